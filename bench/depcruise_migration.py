"""bench/depcruise_migration.py: `rofl audit` with a dependency-cruiser config against `depcruise --validate`.

For each repository (default: trpc and zod under bench/.cache/repos), the config is the one
`depcruise --init oneshot` writes (dependency-cruiser's own config template, rendered by Node with the
answers --init gives a TypeScript monorepo: source in packages/ or apps/, tsPreCompilationDeps true,
the repository's tsconfig.json), written as a `module.exports = {...}` file, which rofl reads without
running it.  depcruise cruises the source folders; rofl scans the repository and translates the config.
Compared: the set of (rule, from, to) violations, per dependency (a cycle's every edge: depcruise's
summary names a cycle once, by one edge) and per module, restricted to the files depcruise cruised.
Every difference is listed by rule with examples; docs/migrating-from-dependency-cruiser.md explains them.

    python bench/depcruise_migration.py [--repo NAME]... [--out bench/.cache/results/depcruise_migration.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
DEPCRUISE = CACHE / "node_modules" / ".bin" / "depcruise"
TEMPLATE = CACHE / "node_modules" / "dependency-cruiser" / "src" / "cli" / "init-config" / "config-template.mjs"
REPOS = {"trpc": ["packages"], "zod": ["packages"]}

RENDER = """
import(process.argv[1]).then(({default: t}) => {
  const v = JSON.parse(process.argv[2]);
  process.stdout.write(t.replace(/{{(\\w+)}}/g, (_, k) => v[k] ?? ""));
});
"""


def render_config(folders: list[str]) -> str:
    """dependency-cruiser's --init template with the answers for a TypeScript monorepo."""
    answers = {
        "sourceLocationRE": "^(" + "|".join(folders) + ")",
        "tsPreCompilationDepsAttribute": "tsPreCompilationDeps: true,",
        "tsOrJsConfigAttribute": "tsConfig: { fileName: 'tsconfig.json' },",
        "extensionsAttribute": 'extensions: [".js", ".jsx", ".ts", ".tsx", ".d.ts", ".mjs", ".cjs", ".mts", ".cts"],',
        "version": "17.4.3",
        "date": "bench",
    }
    done = subprocess.run(
        ["node", "-e", RENDER, TEMPLATE.as_uri(), json.dumps(answers)], capture_output=True, text=True, check=True
    )
    return done.stdout


NPM_RULES = {"no-non-package-json", "not-to-dev-dep", "peer-deps-used", "optional-deps-used", "no-duplicate-dep-types"}


def depcruise_set(repo: Path, config: Path, folders: list[str]) -> tuple[set, int, set, dict]:
    """(rule, from, to) per dependency and module, the summary's violation count, the cruised files, and
    depcruise's own graph ({from: {to: dependency}}) to explain differences with."""
    from rofl.loading.depcruise_config import depcruise_violations, package_of

    done = subprocess.run(
        [str(DEPCRUISE), "--config", str(config), "--output-type", "json", *folders],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    doc = json.loads(done.stdout)
    cruised = set()
    graph: dict = {}
    for m in doc["modules"]:
        graph[m["source"]] = {package_of(d["resolved"]): d for d in m.get("dependencies", [])}
        if not m.get("coreModule") and not m.get("couldNotResolve") and "node_modules" not in m["source"]:
            cruised.add(m["source"])
    return depcruise_violations(doc), len(doc["summary"]["violations"]), cruised, graph


def reaches(graph: dict, a: str, b: str) -> bool:
    seen, todo = {a}, [a]
    while todo:
        for y in graph.get(todo.pop(), {}):
            if y == b:
                return True
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return False


def importers(facts: Path, file: str) -> list[dict]:
    done = subprocess.run(
        ["rofl", "ask", f"src_resolves[code](A, S, {json.dumps(file)})", "--facts", str(facts), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    return json.loads(done.stdout).get("answers", []) if done.returncode == 0 else []


def cause(v: tuple, side: str, graph: dict, facts: Path) -> str:
    """Why a violation is on one side only, checked against depcruise's own graph (and rofl's)."""
    rule, a, b = v
    dep = graph.get(a, {}).get(b)
    same_package = [
        d
        for d in graph.get(a, {}).values()
        if str(d.get("module")) == b or str(d.get("module", "")).startswith(b + "/")
    ]
    if side == "rofl" and rule == "no-circular" and reaches(graph, b, a):
        return "on a cycle of depcruise's own graph; its cycle search (one DFS, visited set shared across branches) misses it"
    if side == "depcruise" and rule == "not-to-unresolvable" and not b.startswith((".", "/")):
        return "a package not installed in the checkout (no node_modules): depcruise cannot resolve it; rofl reads the package name"
    if side == "rofl" and rule in NPM_RULES and any(d.get("couldNotResolve") for d in [*same_package, dep] if d):
        return "a package not installed in the checkout: depcruise sees it unresolvable, so no npm dependency type"
    if dep is not None and "../node_modules/" in str(dep.get("resolved")):
        return "depcruise resolved a workspace package to a copy in a node_modules above the checkout (the bench's own tools); rofl to the workspace package"
    if side == "rofl" and rule in NPM_RULES and any("../node_modules/" in str(d.get("resolved")) for d in same_package):
        return "depcruise resolved a workspace package to a copy in a node_modules above the checkout (the bench's own tools); rofl to the workspace package"
    if side == "depcruise" and rule == "no-orphans" and a == b:
        found = importers(facts, a)
        if found:
            return (
                f"rofl resolves {found[0]['S']!r} (in {found[0]['A']}) to it through that package's own tsconfig paths; "
                "depcruise reads the one tsConfig the config names and cannot resolve it"
            )
    return "unexplained"


def rofl_set(repo: Path, config: Path, facts: Path) -> tuple[set, list[str]]:
    if not (facts / "manifest.json").exists():
        subprocess.run(["rofl", "scan", str(repo), "--out", str(facts)], check=True, capture_output=True)
    done = subprocess.run(
        ["rofl", "audit", "--facts", str(facts), "--depcruise-config", str(config), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        sys.exit(f"rofl audit failed: {done.stderr}")
    doc = json.loads(done.stdout)
    got = {(f["rule"], f["from"], f["to"]) for f in doc.get("findings", []) if f.get("rule")}
    warnings = [ln for ln in done.stderr.splitlines() if ln.startswith("warning:")]
    return got, warnings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", choices=sorted(REPOS))
    ap.add_argument("--out", default=str(CACHE / "results" / "depcruise_migration.json"))
    ap.add_argument("--examples", type=int, default=5)
    args = ap.parse_args()
    report: dict = {}
    work = Path(tempfile.mkdtemp(prefix="rofl-depcruise-"))
    for name in args.repo or sorted(REPOS):
        repo = CACHE / "repos" / name
        folders = REPOS[name]
        config = work / f"{name}.dependency-cruiser.cjs"
        config.write_text(render_config(folders))
        theirs, summary_count, cruised, graph = depcruise_set(repo, config, folders)
        facts = CACHE / "facts" / f"depcruise-{name}"
        ours_all, warnings = rofl_set(repo, config, facts)
        ours = {v for v in ours_all if v[1] in cruised}
        only_theirs, only_ours = sorted(theirs - ours), sorted(ours - theirs)
        print(
            f"{name}: depcruise {len(theirs)} violations per dependency/module ({summary_count} in its summary), "
            f"rofl {len(ours)} on the same files ({len(ours_all)} on the whole scan); "
            f"agree {len(theirs & ours)}, only depcruise {len(only_theirs)}, only rofl {len(only_ours)}"
        )
        agree_by_rule = dict(Counter(r for r, _, _ in theirs & ours).most_common())
        print(f"  agree by rule: {agree_by_rule}")
        for line in warnings:
            print(f"  {line}")
        causes: dict = {}
        for label, side, diff in (("only depcruise", "depcruise", only_theirs), ("only rofl", "rofl", only_ours)):
            by = Counter((r, cause(v, side, graph, facts)) for v in diff for r in [v[0]])
            for (rule, why), n in by.most_common():
                print(f"  {label} {rule}: {n}: {why}")
                causes[f"{label} {rule}: {why}"] = n
                for v in [d for d in diff if d[0] == rule and cause(d, side, graph, facts) == why][: args.examples]:
                    print(f"    {v[1]} -> {v[2]}")
        unexplained = sum(n for k, n in causes.items() if k.endswith(": unexplained"))
        print(f"  {len(only_theirs) + len(only_ours)} differences, {unexplained} unexplained")
        report[name] = {
            "depcruise": len(theirs),
            "depcruise_summary": summary_count,
            "rofl": len(ours),
            "rofl_whole_scan": len(ours_all),
            "agree": len(theirs & ours),
            "agree_by_rule": agree_by_rule,
            "only_depcruise": [list(v) for v in only_theirs],
            "only_rofl": [list(v) for v in only_ours],
            "untranslated": warnings,
            "causes": causes,
        }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
