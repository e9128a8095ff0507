"""Cycles on real code: `rofl cycles` on rxjs/src and examples/shop against madge, timed side by side.

For each corpus: the files in the components `rofl cycles --json` reports must equal the non-trivial
strongly connected components of madge's own graph (``madge --json``) computed with networkx, and
every cycle ``madge --circular`` lists must lie inside one of our components (madge lists only the
cycles its depth-first search meets).  Each removal set (cut) must leave its component acyclic in
madge's graph too.  Wall times: one `madge --circular` run and one `rofl cycles` process (warm
compiled cache, and cold: cache removed), best of REPEAT, as a ratio of madge's time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpora import ensure, node_bin
from bench.scan_compare import precompile, rofl_argv

ROOT = Path(__file__).resolve().parent.parent
REPEAT = 3


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    scanned: Path  # the folder rofl scans
    madge_cwd: Path
    madge_folder: str  # the folder madge reads, relative to madge_cwd
    madge_args: tuple[str, ...]


def targets() -> list[Target]:
    shop = ROOT / "examples" / "shop"
    out = [Target("examples/shop", shop, shop, "src", ("--extensions", "ts,tsx", "--ts-config", "tsconfig.json"))]
    rxjs = next((c for c in ensure() if c.name == "rxjs"), None)
    if rxjs is not None:
        out.append(Target("rxjs/src", rxjs.src, rxjs.root, "src", rxjs.madge_args))
    return out


def timed(argv: list[str], cwd: Path) -> tuple[float, str, int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {proc.stderr.strip()[:300]}")
    return wall, proc.stdout, proc.returncode


def run_target(t: Target, work: Path) -> dict:
    import networkx as nx

    from rofl.loading.cache import CACHE_NAME

    rofl = rofl_argv()
    facts = work / t.name.replace("/", "-")
    subprocess.run(
        [*rofl, "scan", str(t.scanned), "--out", str(facts), "--json"], cwd=t.scanned, check=True, capture_output=True
    )
    prefix = os.path.relpath(t.madge_cwd / t.madge_folder, t.scanned)
    prefix = "" if prefix == "." else prefix.rstrip("/") + "/"
    madge = str(node_bin("madge"))
    _, graph_text, _ = timed([madge, "--json", *t.madge_args, t.madge_folder], t.madge_cwd)
    graph = nx.DiGraph()
    for a, deps in json.loads(graph_text).items():
        graph.add_node(prefix + a)
        graph.add_edges_from((prefix + a, prefix + b) for b in deps)
    sccs = {
        frozenset(c)
        for c in nx.strongly_connected_components(graph)
        if len(c) > 1 or graph.has_edge(*[next(iter(c))] * 2)
    }
    madge_times, circular = [], []
    for _ in range(REPEAT):
        wall, text, _ = timed([madge, "--circular", "--json", *t.madge_args, t.madge_folder], t.madge_cwd)
        madge_times.append(wall)
        circular = [[prefix + f for f in cycle] for cycle in json.loads(text)]
    argv = [*rofl, "cycles", "--facts", str(facts), "--json"]
    cold, warm = [], []
    for _ in range(REPEAT):
        (facts / CACHE_NAME).unlink(missing_ok=True)
        cold.append(timed(argv, t.scanned)[0])
    for _ in range(REPEAT):
        wall, text, code = timed(argv, t.scanned)
        warm.append(wall)
    ours = json.loads(text)["components"]
    comps = {frozenset(c["files"]) for c in ours}
    inside = sum(any(set(cycle) <= c for c in comps) for cycle in circular)
    cuts_hold = True
    for c in ours:
        sub = graph.subgraph(c["files"]).copy()
        sub.remove_edges_from(map(tuple, c["cut"]))
        cuts_hold &= nx.is_directed_acyclic_graph(sub)
    madge_s = min(madge_times)
    return {
        "corpus": t.name,
        "components": len(ours),
        "files_on_cycles": sum(len(c["files"]) for c in ours),
        "equal_to_madge_sccs": comps == sccs,
        "madge_cycles": len(circular),
        "madge_cycles_inside": inside,
        "madge_files_on_cycles": len({f for cycle in circular for f in cycle}),
        "cut_imports": sum(len(c["cut"]) for c in ours),
        "all_exact": all(c["exact"] for c in ours),
        "cuts_acyclic_in_madge_graph": cuts_hold,
        "exit": code,
        "madge_s": round(madge_s, 3),
        "warm_s": round(min(warm), 3),
        "warm_ratio": round(min(warm) / madge_s, 3),
        "cold_s": round(min(cold), 3),
        "cold_ratio": round(min(cold) / madge_s, 3),
    }


def main() -> list[dict]:
    precompile()
    try:
        chosen = targets()
    except (OSError, subprocess.CalledProcessError) as exc:  # npm unavailable: the shop still runs if madge is there
        print(f"(rxjs not available: {exc}; the real corpora need `npm` for bench/corpora.py)")
        return []
    if len(chosen) == 1:
        print("(rxjs/src is not under bench/.cache/corpora; only examples/shop is measured)")
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run_target(t, Path(tmp)) for t in chosen]
    print(format_table(rows))
    return rows


def format_table(rows: list[dict]) -> str:
    head = (
        "| corpus | components | files on cycles | = madge SCCs | madge cycles inside | madge files on cycles "
        "| cut imports (exact) | cuts acyclic | madge --circular s | warm s | ratio | cold s | ratio |"
    )
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        lines.append(
            f"| {r['corpus']} | {r['components']} | {r['files_on_cycles']} | {r['equal_to_madge_sccs']} | "
            f"{r['madge_cycles_inside']}/{r['madge_cycles']} | {r['madge_files_on_cycles']} | "
            f"{r['cut_imports']} ({r['all_exact']}) | {r['cuts_acyclic_in_madge_graph']} | {r['madge_s']} | "
            f"{r['warm_s']} | {r['warm_ratio']} | {r['cold_s']} | {r['cold_ratio']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
