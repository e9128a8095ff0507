"""Impact on real code: `rofl impact` on three/src against networkx ancestors over madge's graph, timed side by side.

For several changed files, the affected set from `rofl impact --json` must equal
``networkx.ancestors`` over the import graph madge reports for the same folder (madge's edges and
ours agree on three/src, see bench/SCAN_RESULTS.md).  Wall times of one `rofl impact` process from a
warm compiled cache and from cold fact files (cache removed) are reported as ratios of one
`madge --json` run measured in the same session.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpora import ensure, node_bin
from bench.scan_compare import madge_edges, measure, precompile, rofl_argv

CHANGED = ("math/Vector3.js", "core/Object3D.js", "renderers/WebGLRenderer.js", "constants.js", "math/MathUtils.js")
REPEAT = 3


def main() -> list[dict]:
    import networkx as nx

    from rofl.cache import CACHE_NAME

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


if __name__ == "__main__":
    main()
