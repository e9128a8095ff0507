"""Impact on real code: `rofl impact` on three/src against networkx ancestors over madge's graph, timed side by side.

For several changed files, the affected set from `rofl impact --json` must equal
``networkx.ancestors`` over the import graph madge reports for the same folder (madge's edges and
ours agree on three/src, see bench/SCAN_RESULTS.md).  Wall times of one `rofl impact` process from a
warm compiled cache and from cold fact files (cache removed) are reported as ratios of one
`madge --json` run measured in the same session.

``python bench/impact_bench.py --git-base REPO REF`` instead checks a branch's impact on a monorepo
work tree with history (the snapshots under bench/.cache/repos have one commit; clone the upstream
repository at the snapshot's commit): `rofl impact --git-base REF` against networkx ancestors, over
dependency-cruiser's graph (configured as bench/monorepo_compare.py does), of the changed sources and
of the files whose resolution read a changed config (the manifest's resolution dependencies).
``python bench/impact_bench.py --sample REPO [N]`` checks N sampled sources (with and without
--runtime), folders and deletions on a copy of REPO against networkx ancestors over its fact files.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rofl.scanner.manifest import read as read_manifest

from bench.corpora import ensure, node_bin
from bench.scan_compare import madge_edges, measure, precompile, rofl_argv

CHANGED = ("math/Vector3.js", "core/Object3D.js", "renderers/WebGLRenderer.js", "constants.js", "math/MathUtils.js")
REPEAT = 3


def main() -> list[dict]:
    import networkx as nx

    from rofl.loading.cache import CACHE_NAME

    precompile()
    three = next(c for c in ensure() if c.name == "three")
    rofl = rofl_argv()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        facts = work / "facts"
        sink = work / "out.json"
        measure([*rofl, "scan", str(three.src), "--out", str(facts), "--json"], three.root, sink)
        madge_json = work / "madge.json"
        madge_times = [
            measure([str(node_bin("madge")), "--json", "src"], three.root, madge_json)[0] for _ in range(REPEAT)
        ]
        graph = nx.DiGraph(sorted(madge_edges(madge_json)))
        madge_wall = min(madge_times)
        for changed in CHANGED:
            argv = [*rofl, "impact", "--facts", str(facts), "--changed", changed, "--json"]
            cold = []
            for _ in range(REPEAT):
                (facts / CACHE_NAME).unlink(missing_ok=True)
                cold.append(measure(argv, three.root, sink)[0])
            warm = [measure(argv, three.root, sink)[0] for _ in range(REPEAT)]
            ours = {a["file"] for a in json.loads(sink.read_text())["affected"]}
            theirs = nx.ancestors(graph, changed) if changed in graph else set()
            rows.append(
                {
                    "changed": changed,
                    "affected": len(ours),
                    "equal_to_madge_ancestors": ours == theirs,
                    "only_ours": len(ours - theirs),
                    "only_madge": len(theirs - ours),
                    "madge_s": round(madge_wall, 3),
                    "warm_s": round(min(warm), 3),
                    "warm_ratio": round(min(warm) / madge_wall, 3),
                    "cold_s": round(min(cold), 3),
                    "cold_ratio": round(min(cold) / madge_wall, 3),
                }
            )
    print(format_table(rows))
    return rows


def format_table(rows: list[dict]) -> str:
    head = "| changed file | affected | = madge ancestors | madge s | warm s | warm ratio (<=0.15) | cold s | cold ratio (<=0.5) |"
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        lines.append(
            f"| {r['changed']} | {r['affected']} | {r['equal_to_madge_ancestors']} | {r['madge_s']} | {r['warm_s']} | "
            f"{r['warm_ratio']} | {r['cold_s']} | {r['cold_ratio']} |"
        )
    return "\n".join(lines)


def git_base(root: Path, ref: str) -> dict:
    """`rofl impact --git-base REF` on the work tree ``root`` against networkx over dependency-cruiser's
    graph (as is, and with the by-design differences and package-wide edges of bench/SCAN_RESULTS.md)
    and over rofl's own edges; counts of affected files and of affected test files."""
    import subprocess

    import networkx as nx

    from bench import edge_diff, monorepo_compare, monorepos, rofl_facts
    from rofl.questions.affected import test_filter

    rofl = rofl_argv()
    repo = monorepos.Repo(root.name, root.resolve(), "", "")
    with tempfile.TemporaryDirectory(prefix="rofl-impact-git-base-") as tmp:
        work = Path(tmp)
        facts_dir = work / "facts"
        subprocess.run([*rofl, "scan", str(repo.root), "--out", str(facts_dir)], check=True, capture_output=True)
        facts = rofl_facts.read(facts_dir)
        workspace = monorepos.workspace_packages(repo)
        groups = monorepos.ts_groups(sorted(facts.files), monorepos.tsconfig_options(repo))
        modules = monorepos.link_workspace(workspace, repo, work / "links" / "node_modules")
        graph = monorepo_compare.depcruise_graph.CruiseGraph()
        for index, group in enumerate(groups):
            config = monorepo_compare.depcruise_graph.write_config(group, repo, modules, work, index)
            output = work / f"depcruise-{index}.json"
            cruise = monorepo_compare.depcruise_graph
            cruise.run(cruise.argv(config, group, output), cruise.cwd(group, repo))
            cruise.read_output(output, group, graph)
        diffs = edge_diff.differences(facts, graph, workspace, repo.root)
        theirs, ours_graph, theirs_plus = monorepo_compare._graphs(facts, graph, diffs)
        proc = subprocess.run(
            [*rofl, "impact", "--facts", str(facts_dir), "--git-base", ref, "--json"],
            cwd=repo.root,
            capture_output=True,
            text=True,
            check=True,
        )
        data = json.loads(proc.stdout)
        manifest = read_manifest(str(facts_dir))  # probe paths expanded from the table
    readers: dict[str, set[str]] = {}
    for path, entry in manifest["files"].items():
        for dep in entry.get("resolution_deps", ()):
            readers.setdefault(dep, set()).add(path)
    sources = {c["path"] for c in data["classified"] if c["as"] == "source"}
    config_readers = {f for c in data["classified"] if c["as"] == "config" for f in readers.get(c["path"], ())}
    ours = {a["file"] for a in data["affected"]}
    is_test = test_filter(None)
    row: dict = {
        "ref": ref,
        "classified": {
            k: sum(c["as"] == k for c in data["classified"]) for k in sorted({c["as"] for c in data["classified"]})
        },
        "rofl": len(ours),
        "rofl_tests": sum(map(is_test, ours)),
    }
    for label, g in (("depcruise", theirs), ("depcruise_by_design", theirs_plus), ("rofl_edges", ours_graph)):
        seeds = sources | config_readers
        reached = set(config_readers)
        for seed in seeds:
            reached |= nx.ancestors(g, seed) if seed in g else set()
        from_sources = set().union(*(nx.ancestors(g, s) for s in sources if s in g)) - sources
        expected = reached - sources
        row[label] = {
            "from_changed_sources": len(from_sources),
            "with_config_readers": len(expected),
            "tests": sum(map(is_test, expected)),
            "equal": expected == ours,
            "only_rofl": sorted(ours - expected)[:10],
            "only_networkx": sorted(expected - ours)[:10],
        }
    print(json.dumps(row, indent=1))
    return row


def sample(repo: Path, count: int, seed: int = 7) -> dict:
    """On a copy of ``repo`` (a git work tree): for ``count`` sampled files, folders and deletions,
    `rofl impact` against networkx ancestors over the edges read from the fact files
    (tests/cli/impact_fixtures.import_graph: src_resolves, plus every file of a package for
    src_workspace_import); sources with and without --runtime; each deletion asked from the facts as
    they are, with the rescan that drops the file, and again after it (a superset is a miss only when
    it lacks an ancestor).  Mismatches are listed."""
    import os
    import random
    import shutil
    import subprocess

    from tests.cli.impact_fixtures import affected_of, import_graph

    rofl = rofl_argv()
    rnd = random.Random(seed)
    found: list[str] = []
    checked = 0
    with tempfile.TemporaryDirectory(prefix="rofl-impact-sample-") as tmp:
        root, facts = Path(tmp) / "repo", Path(tmp) / "facts"
        shutil.copytree(repo, root, symlinks=True)

        def scan() -> None:
            subprocess.run([*rofl, "scan", str(root), "--out", str(facts)], check=True, capture_output=True)

        def ask(*args: str) -> set[str]:
            proc = subprocess.run(
                [*rofl, "impact", "--facts", str(facts), *args, "--json"], capture_output=True, text=True, cwd=root
            )
            if proc.returncode != 0:
                raise RuntimeError(f"rofl impact {' '.join(args)}: {proc.stderr.strip()}")
            return {a["file"] for a in json.loads(proc.stdout)["affected"]}

        scan()
        graph, runtime = import_graph(facts), import_graph(facts, runtime=True)
        files = sorted(json.loads((facts / "manifest.json").read_text())["files"])
        for path in rnd.sample(files, count):
            for flags, g in (((), graph), (("--runtime",), runtime)):
                checked += 1
                if ask("--changed", path, *flags) != affected_of(g, {path}):
                    found.append(f"source {path} {' '.join(flags)}")
        folders = sorted({os.path.dirname(f) for f in files if "/" in f})
        for folder in rnd.sample(folders, min(count, len(folders))):
            checked += 1
            if ask("--changed", folder) != affected_of(graph, {f for f in files if f.startswith(folder + "/")}):
                found.append(f"folder {folder}")
        for path in rnd.sample(files, count):
            expected = affected_of(graph, {path})
            target = root / path
            data, mode = target.read_bytes(), target.stat().st_mode
            target.unlink()
            try:
                answers = [ask("--changed", path, "--no-rescan"), ask("--changed", path), ask("--changed", path)]
            finally:
                target.write_bytes(data)
                target.chmod(mode)
                scan()
            for how, ours in zip(("as they are", "rescan", "again"), answers, strict=True):
                checked += 1
                if not expected <= ours:
                    found.append(f"deleted {path} ({how}): misses {sorted(expected - ours)[:3]}")
    row = {"repo": repo.name, "checked": checked, "mismatches": found}
    print(json.dumps(row, indent=1))
    return row


if __name__ == "__main__":
    if sys.argv[1:2] == ["--git-base"] and len(sys.argv) == 4:
        git_base(Path(sys.argv[2]), sys.argv[3])
    elif sys.argv[1:2] == ["--sample"] and len(sys.argv) in (3, 4):
        sample(Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) == 4 else 8)
    else:
        main()
