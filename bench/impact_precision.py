"""How narrow `rofl impact` is: its affected files against reverse reachability over TypeScript's own graph.

For each repository present under bench/.cache/repos (bench/monorepos.py), bench/ts_resolution_check.py
copies the snapshot, links its workspace as pnpm does, scans it with rofl and asks TypeScript 5.9's
``resolveModuleName`` for every (file, specifier).  TypeScript's graph has an edge for every pair it
resolves to a file of the repository (symlinks followed to real paths; a ``.d.ts`` stays a ``.d.ts``).
The by-design graph adds rofl's edges that TypeScript cannot give, each labelled: assets,
``.vue``/``.svelte``/``.astro`` targets and their ``.svelte.d.ts`` twins, ``?query`` specifiers, and
build output mapped to source (TypeScript, shown the package's missing build output, resolves to a
build file whose stem is rofl's target, bench/ts_resolution_check.py:build_output_source).

Changes are drawn with a seeded generator (``--seed``, default 20): per repository sources at three
depths (TypeScript ancestors 1-9, 10-99, 100 or more) and one unconstrained, a deleted file (the
file is removed from the copy, `rofl impact` rescans it, the file is put back), an asset, a folder,
and one tsconfig and one package.json of a workspace package.  What TypeScript says is affected:

- a source, deleted file, asset: ``networkx.ancestors`` of it;
- a folder: the ancestors of every file below it, the files below it excluded;
- a tsconfig: every file it governs (its ``fileNames``, and those of configs extending it) and
  their ancestors;
- a package.json: every file whose resolution read it (TypeScript's ``affectingLocations``) and
  their ancestors; the by-design set adds the files in its scope (its ``type``, ``imports`` and
  dependencies govern them) and their ancestors, labelled "package scope".

The by-design graph also takes a runtime file an export names beside the ``types`` file TypeScript
picks (``"./vite": {"types": "./types/index.d.ts", "import": "./src/exports/vite/index.js"}``).

Per change: rofl's count, TypeScript's, TypeScript's with the by-design edges, missed (TypeScript
reaches, rofl does not: must be 0), the ratios, and rofl's files beyond the by-design graph, split
into package-wide ones (src_workspace_import: labelled when the JSON entry says so) and
unexplained.  Per repository: the share of imports of the repository's own packages that fall back
to "every file of the package" (src_workspace_import), and ``via`` hops that are no import
(consecutive pairs that are neither a src_resolves edge, the last hop to a changed config, deleted
file or folder (touches), nor a package-wide hop).  With ``--symbols`` in `rofl impact --help`, the
median affected count with ``--symbols`` too.

``python bench/impact_precision.py [NAME ...] [--seed N] [--markdown]``; writes
bench/.cache/results/impact-precision-NAME.json.  Not part of ``make bench``: 14 minutes for the six
repositories on 2 busy cores (each change asked twice when ``--symbols`` exists).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import ts_resolution_check as tsr
from bench.scan_compare import rofl_argv

RESULTS = tsr.RESULTS
DEPTHS = (("source, 1-9 importers deep", 1, 9), ("source, 10-99", 10, 99), ("source, 100+", 100, 10**9))


@dataclass(frozen=True, slots=True)
class Change:
    """One changed path and what kind of change it is."""

    kind: str
    path: str


@dataclass(slots=True)
class Graphs:
    """TypeScript's file graph and the by-design edges rofl adds, per label."""

    ts: nx.DiGraph
    plus: nx.DiGraph  # ts with every labelled edge
    labelled: dict[str, set[tuple[str, str]]] = field(default_factory=dict)


def build_graphs(prepared: tsr.Prepared) -> Graphs:
    ts = nx.DiGraph()
    ts.add_nodes_from(prepared.facts.files)
    for (importer, _spec), ts_answer in prepared.answers.items():
        if ts_answer.file is not None and ts_answer.file != importer:
            ts.add_edge(importer, ts_answer.file)
    plus = ts.copy()
    labelled: dict[str, set[tuple[str, str]]] = {}
    for (importer, spec), answers in prepared.facts.answers.items():
        for answer in answers:
            if answer[0] != "file" or ts.has_edge(importer, answer[1]) or importer == answer[1]:
                continue
            label = tsr.by_design(prepared, importer, spec, answer[1])
            if label is not None:
                labelled.setdefault(label, set()).add((importer, answer[1]))
                plus.add_edge(importer, answer[1])
    return Graphs(ts, plus, labelled)


def _ancestors(graph: nx.DiGraph, paths: set[str]) -> set[str]:
    found: set[str] = set()
    for path in paths:
        if path in graph:
            found |= nx.ancestors(graph, path)
    return found


def governed(prepared: tsr.Prepared, config: str) -> set[str]:
    """The files a tsconfig governs: its own file names and those of every config extending it."""
    files: set[str] = set()
    for name, info in prepared.configs.items():
        if name == config or config in info["extended"]:
            files |= set(info["files"])
    return files & prepared.facts.files


def read_by(prepared: tsr.Prepared, manifest: str) -> set[str]:
    """The files one of whose resolutions read ``manifest`` (TypeScript's affectingLocations)."""
    return {importer for (importer, _s), a in prepared.answers.items() if manifest in a.affecting}


def typescript_sets(prepared: tsr.Prepared, graphs: Graphs, change: Change) -> tuple[set[str], set[str]]:
    """(TypeScript's affected files, with the by-design edges too) for one change."""
    if change.kind == "folder":
        below = {f for f in prepared.facts.files | prepared.facts.assets if f.startswith(change.path + "/")}
        return _ancestors(graphs.ts, below) - below, _ancestors(graphs.plus, below) - below
    plus_seeds: set[str] = set()
    if change.kind == "tsconfig":
        seeds = governed(prepared, change.path)
    elif change.kind == "package.json":
        seeds = read_by(prepared, change.path)
        plus_seeds = in_scope(prepared, change.path)
    else:
        return _ancestors(graphs.ts, {change.path}), _ancestors(graphs.plus, {change.path})
    plus_seeds |= seeds
    return (seeds | _ancestors(graphs.ts, seeds)) - {change.path}, (
        plus_seeds | _ancestors(graphs.plus, plus_seeds)
    ) - {change.path}


def in_scope(prepared: tsr.Prepared, manifest: str) -> set[str]:
    """The scanned files whose nearest package.json is ``manifest`` (its ``type``, ``imports`` and dependencies govern them)."""
    folder = os.path.dirname(manifest)
    found = set()
    for path in prepared.facts.files:
        if not (folder == "" or path.startswith(folder + "/")):
            continue
        parent = os.path.dirname(path)
        while parent != folder and not (prepared.root / parent / "package.json").is_file():
            parent = os.path.dirname(parent)
        if parent == folder:
            found.add(path)
    return found


def pick_changes(prepared: tsr.Prepared, graphs: Graphs, rng: random.Random) -> list[Change]:
    facts = prepared.facts
    sources = sorted(f for f in facts.files if f.endswith(tsr.CODE_EXTENSIONS + tsr.COMPONENT_EXTENSIONS))
    depth = {f: len(nx.ancestors(graphs.ts, f)) for f in sources}
    changes: list[Change] = []
    for label, low, high in DEPTHS:
        pool = [f for f in sources if low <= depth[f] <= high]
        if pool:
            changes.append(Change(label, rng.choice(pool)))
    changes.append(Change("source, any", rng.choice(sources)))
    imported = [f for f in sources if depth[f] >= 1 and not f.endswith(".d.ts")]
    if imported:
        changes.append(Change("deleted", rng.choice(imported)))
    assets = sorted(
        a
        for a in facts.assets
        if (prepared.root / a).is_file() and not os.path.basename(a).startswith(("package.json", "tsconfig"))
    )
    if assets:
        changes.append(Change("asset", rng.choice(assets)))
    folders = sorted({os.path.dirname(f) for f in imported if os.path.dirname(f)})
    if folders:
        changes.append(Change("folder", rng.choice(folders)))
    configs = sorted(c for c in prepared.configs if governed(prepared, c))
    if configs:
        changes.append(Change("tsconfig", rng.choice(configs)))
    manifests = sorted(
        os.path.join(f, "package.json")
        for f in prepared.packages.values()
        if f != "." and read_by(prepared, f + "/package.json")
    )
    if manifests:
        changes.append(Change("package.json", rng.choice(manifests)))
    return changes


def run_impact(prepared: tsr.Prepared, change: Change, extra: tuple[str, ...] = ()) -> dict:
    argv = [*rofl_argv(), "impact", "--facts", str(prepared.facts_dir), "--changed", change.path, "--format", "json"]
    if change.kind != "deleted":
        argv.append("--no-rescan")
    proc = subprocess.run([*argv, *extra], capture_output=True, text=True, cwd=prepared.root)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"rofl impact {change.path}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)


def impact(prepared: tsr.Prepared, change: Change, extra: tuple[str, ...] = ()) -> tuple[dict, float]:
    """rofl's answer for ``change`` (a deleted file: removed from the copy, rescanned, put back)."""
    started = time.perf_counter()
    if change.kind != "deleted":
        return run_impact(prepared, change, extra), time.perf_counter() - started
    path = prepared.root / change.path
    aside = path.with_name(path.name + ".rofl-bench-deleted")
    path.rename(aside)
    try:
        answer = run_impact(prepared, change, extra)
    finally:
        aside.rename(path)
    seconds = time.perf_counter() - started
    subprocess.run(
        [*rofl_argv(), "scan", str(prepared.root), "--out", str(prepared.facts_dir)], check=True, capture_output=True
    )
    return answer, seconds


def _workspace_dirs(prepared: tsr.Prepared) -> dict[str, set[str]]:
    dirs: dict[str, set[str]] = {}
    for (importer, _spec), answers in prepared.facts.answers.items():
        for answer in answers:
            if answer[0] == "workspace":
                dirs.setdefault(importer, set()).add(answer[1])
    return dirs


def _inside(path: str, folder: str) -> bool:
    return folder in (".", "") or path == folder or path.startswith(folder.rstrip("/") + "/")


def check_via(prepared: tsr.Prepared, change: Change, answer: dict, workspace: dict[str, set[str]]) -> Counter[str]:
    """Each consecutive pair of each ``via``: an import, a touches hop, a package-wide hop, or a violation."""
    hops: Counter[str] = Counter()
    edges = prepared.facts.edges
    for entry in answer.get("affected", []):
        via = entry.get("via") or []
        # the JSON's package_wide hops ({"from", "to", "package", "why", ...}); a field of another
        # name on the entry counts as the label when there is none of that name
        wide = entry.get("package_wide")
        labels = (
            {(h.get("from"), h.get("to")) for h in wide if isinstance(h, dict)}
            if isinstance(wide, list)
            else set(entry) - {"file", "via", "symbols", "touched"}
        )
        for i, (a, b) in enumerate(zip(via, via[1:], strict=False)):
            last = i == len(via) - 2
            if (a, b) in edges:
                hops["import"] += 1
            elif (
                last and (b == change.path or _inside(b, change.path)) and b not in prepared.facts.files - {change.path}
            ):
                hops["touches (config, deleted file, folder)"] += 1
            elif (
                last
                and change.kind in ("folder", "deleted")
                and _inside(b, change.path if change.kind == "folder" else b)
            ):
                hops["touches (config, deleted file, folder)"] += 1
            elif (a, b) in labels or (labels and not isinstance(wide, list)):
                hops["package-wide, labelled"] += 1
            elif any(_inside(b, d) for d in workspace.get(a, ())):
                hops["package-wide, NOT labelled"] += 1
            else:
                hops["NOT an import"] += 1
    return hops


def own_package_imports(prepared: tsr.Prepared) -> tuple[int, int]:
    """(imports naming one of the repository's own packages, of which package-wide fallbacks)."""
    names = sorted(prepared.packages, key=len, reverse=True)
    total = fallback = 0
    for (_importer, spec), answers in prepared.facts.answers.items():
        if spec.startswith((".", "/", "#")):
            continue
        if any(spec == n or spec.startswith(n + "/") for n in names):
            total += 1
            fallback += any(a[0] == "workspace" for a in answers)
    return total, fallback


def measure(prepared: tsr.Prepared, seed: int, symbols: bool) -> dict:
    graphs = build_graphs(prepared)
    rng = random.Random(f"{seed}:{prepared.repo.name}")
    workspace = _workspace_dirs(prepared)
    rows = []
    hops: Counter[str] = Counter()
    for change in pick_changes(prepared, graphs, rng):
        answer, seconds = impact(prepared, change)
        rofl = {e["file"] for e in answer.get("affected", [])}
        labelled_wide = {e["file"] for e in answer.get("affected", []) if e.get("package_wide")}
        ts, plus = typescript_sets(prepared, graphs, change)
        by_label = {}
        for label, extra_edges in graphs.labelled.items():
            g = graphs.ts.copy()
            g.add_edges_from(extra_edges)
            only = typescript_sets(prepared, Graphs(g, g), change)[0] - ts
            if only:
                by_label[label] = len(only)
        if change.kind == "package.json":
            scope = len(plus - ts) - sum(by_label.values())
            if scope > 0:
                by_label["package scope"] = scope
        beyond = rofl - plus
        wide = {
            e["file"]
            for e in answer.get("affected", [])
            if e["file"] in beyond
            and (
                e.get("package_wide")
                or any(
                    any(_inside(b, d) for d in workspace.get(a, ()))
                    for a, b in zip(e.get("via", []), e.get("via", [])[1:], strict=False)
                )
            )
        }
        via = check_via(prepared, change, answer, workspace)
        hops.update(via)
        row = {
            "kind": change.kind,
            "path": change.path,
            "classified": [c.get("as") for c in answer.get("classified", [])],
            "rofl": len(rofl),
            "typescript": len(ts),
            "typescript_by_design": len(plus),
            "missed": sorted(ts - rofl),
            "missed_by_design": sorted(plus - rofl),
            "ratio": round(len(rofl) / len(ts), 3) if ts else None,
            "ratio_by_design": round(len(rofl) / len(plus), 3) if plus else None,
            "by_design": by_label,
            "beyond_by_design": len(beyond),
            "beyond_package_wide": len(wide),
            "beyond_labelled_in_json": len(beyond & labelled_wide),
            "beyond_examples": sorted(beyond)[:5],
            "via": dict(via),
            "seconds": round(seconds, 2),
            "partial": bool(answer.get("partial")),
        }
        if symbols:
            row["symbols"] = len(impact(prepared, change, ("--symbols",))[0].get("affected", []))
        rows.append(row)
    total, fallback = own_package_imports(prepared)
    return {
        "repo": prepared.repo.name,
        "upstream": prepared.repo.upstream,
        "commit": prepared.repo.commit,
        "seed": seed,
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "changes": rows,
        "own_package_imports": total,
        "package_wide_fallbacks": fallback,
        "fallback_share": round(fallback / total, 4) if total else 0.0,
        "via_hops": dict(hops),
        "via_violations": hops["NOT an import"] + hops["package-wide, NOT labelled"],
        "labelled_edges": {k: len(v) for k, v in graphs.labelled.items()},
    }


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def table(results: list[dict], markdown: bool) -> str:
    head = [
        "repo",
        "change",
        "path",
        "rofl",
        "TS",
        "TS+by-design",
        "missed",
        "rofl/TS",
        "rofl/(TS+by-design)",
        "by-design additions",
        "beyond (package-wide / other)",
    ]
    symbols = any("symbols" in r for res in results for r in res["changes"])
    if symbols:
        head.append("--symbols")
    lines = []
    if markdown:
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    else:
        lines.append("\t".join(head))
    for res in results:
        for r in res["changes"]:
            additions = ", ".join(f"{k} {v}" for k, v in r["by_design"].items()) or "—"
            wide = r["beyond_package_wide"]
            cells = [
                res["repo"],
                r["kind"],
                f"`{r['path']}`" if markdown else r["path"],
                str(r["rofl"]),
                str(r["typescript"]),
                str(r["typescript_by_design"]),
                str(len(r["missed"])),
                _ratio(r["ratio"]),
                _ratio(r["ratio_by_design"]),
                additions,
                f"{r['beyond_by_design']} ({wide} / {r['beyond_by_design'] - wide})",
            ]
            if symbols:
                cells.append(str(r.get("symbols", "—")))
            lines.append(("| " + " | ".join(cells) + " |") if markdown else "\t".join(cells))
    lines.append("")
    head2 = [
        "repo",
        "changes",
        "missed (sum)",
        "within 1.10 of TS+by-design",
        "own-package imports",
        "package-wide fallbacks",
        "share",
        "via hops: import / touches / package-wide labelled / NOT labelled / NOT an import",
    ]
    if markdown:
        lines += ["| " + " | ".join(head2) + " |", "|" + "---|" * len(head2)]
    else:
        lines.append("\t".join(head2))
    for res in results:
        rows = res["changes"]
        within = sum(
            1 for r in rows if r["ratio_by_design"] is None and r["rofl"] == 0 or (r["ratio_by_design"] or 99) <= 1.10
        )
        h = res["via_hops"]
        cells = [
            res["repo"],
            str(len(rows)),
            str(sum(len(r["missed"]) for r in rows)),
            f"{within}/{len(rows)}",
            str(res["own_package_imports"]),
            str(res["package_wide_fallbacks"]),
            f"{100 * res['fallback_share']:.1f}%",
            " / ".join(
                str(h.get(k, 0))
                for k in (
                    "import",
                    "touches (config, deleted file, folder)",
                    "package-wide, labelled",
                    "package-wide, NOT labelled",
                    "NOT an import",
                )
            ),
        ]
        lines.append(("| " + " | ".join(cells) + " |") if markdown else "\t".join(cells))
    if symbols:
        counts = [r["rofl"] for res in results for r in res["changes"]]
        with_symbols = [r["symbols"] for res in results for r in res["changes"] if "symbols" in r]
        lines.append(
            f"\nmedian affected: {statistics.median(counts)} files; with --symbols: {statistics.median(with_symbols)}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    markdown = "--markdown" in args
    seed = 20
    if "--seed" in args:
        seed = int(args[args.index("--seed") + 1])
        del args[args.index("--seed") : args.index("--seed") + 2]
    names = [a for a in args if not a.startswith("--")]
    repos, stop = tsr.select_repos(names, "measured")
    if stop is not None:
        return stop
    if not repos:
        print("no repository present: nothing measured")
        return 0
    helptext = subprocess.run([*rofl_argv(), "impact", "--help"], capture_output=True, text=True).stdout
    symbols = "--symbols" in helptext
    RESULTS.mkdir(parents=True, exist_ok=True)
    results = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rofl-impact-precision-") as tmp:
        for repo in repos:
            began = time.perf_counter()
            result = measure(tsr.prepare(repo, Path(tmp)), seed, symbols)
            result["seconds"] = round(time.perf_counter() - began, 1)
            (RESULTS / f"impact-precision-{repo.name}.json").write_text(json.dumps(result, indent=1))
            print(f"{repo.name}: {len(result['changes'])} changes in {result['seconds']} s", file=sys.stderr)
            results.append(result)
    print(table(results, markdown))
    print(f"\n({time.perf_counter() - started:.0f} s, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
