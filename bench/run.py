"""`make bench`: every benchmark, each against a peer measured in the same run; prints Markdown tables.

Sections: the kernel (transitive closure vs clingo), time and persistence (ticks, save/restore),
scanning real code (vs madge and dependency-cruiser), hostile input (beside a clean corpus of the
same size: issue 9's bounds as numbers), audits (audit --reextract beside a cold scan), impact on three/src (vs madge), and real
monorepos (zod, excalidraw, TanStack/query, vite, vs dependency-cruiser; each used when its work tree
is under bench/.cache/repos).  Pass section names to run only some:
``python bench/run.py kernel kernel_scale ticks scan hostile audit impact cycles monorepos``.
Section ``server`` (bench/server_bench.py, issue 14): requests per second and median latency of `impact` through
`rofl server` on three/src, beside a fresh `rofl impact` process in the same run.
Section ``cycles`` (bench/cycles_bench.py): `rofl cycles` on rxjs/src and the shop against madge's graph and `madge --circular`.
Section ``adapters`` (bench/adapter_bench.py, issue 13): wants per second through exec and sql and rounds per second for a recursive tree, beside plain Python.
Section ``presets`` (bench/presets_bench.py, issue 15): `rofl audit` with all seven presets on excalidraw and TanStack/query, beside dependency-cruiser's equivalent rules.
Section ``kernel_scale`` (bench/kernel_scale_bench.py, issue 11): the growing list over many ticks
(vs clingo's time-indexed version), audit of a 3,500-file import chain, and ``in_cycle``/impact on one
scan of all the real code under bench/.cache (vs networkx), with time and peak memory.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SECTIONS = (
    "kernel",
    "kernel_scale",
    "ticks",
    "scan",
    "hostile",
    "audit",
    "impact",
    "server",
    "cycles",
    "monorepos",
    "adapters",
    "presets",
)


def main(argv: list[str]) -> int:
    wanted = argv or list(SECTIONS)
    unknown = [w for w in wanted if w not in SECTIONS]
    if unknown:
        print(f"bench/run.py: unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    if "kernel" in wanted:
        print("\n## Kernel: transitive closure with provenance, against clingo\n", flush=True)
        from bench import kernel_bench

        kernel_bench.main([])
        print("\n(c) the import graph of three/src, as scanned\n", flush=True)
        import subprocess
        import tempfile

        from bench.corpora import ensure
        from bench.scan_compare import our_facts

        three = next(c for c in ensure() if c.name == "three")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "rofl.cli", "scan", str(three.src), "--out", tmp, "--json"],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            row = kernel_bench.corpus_import_graph(sorted(our_facts(Path(tmp))["edges"]), name="three/src imports")
        print(row)
    if "kernel_scale" in wanted:
        print(
            "\n## Kernel at scale: deep terms over many ticks, cycles without the closure (time and peak memory)\n",
            flush=True,
        )
        from bench import kernel_scale_bench

        kernel_scale_bench.main([])
    if "ticks" in wanted:
        print("\n## Time and persistence\n", flush=True)
        from bench import tick_bench

        tick_bench.main()
    if "scan" in wanted:
        print("\n## Scanning real code, against madge and dependency-cruiser\n", flush=True)
        from bench import scan_compare

        scan_compare.main()
    if "hostile" in wanted:
        print("\n## Hostile input: scan time and peak memory beside a clean corpus of the same size\n", flush=True)
        from bench import hostile_bench

        hostile_bench.main()
    if "audit" in wanted:
        print("\n## Audits on three/src: signature check and re-extraction beside a cold scan\n", flush=True)
        from bench import audit_bench

        audit_bench.main()
    if "impact" in wanted:
        print("\n## Impact on three/src, against madge\n", flush=True)
        from bench import impact_bench

        impact_bench.main()
    if "server" in wanted:
        print("\n## impact through `rofl server` on three/src, against a fresh `rofl impact` process\n", flush=True)
        from bench import server_bench

        server_bench.main()
    if "cycles" in wanted:
        print("\n## Cycles on rxjs/src and examples/shop, against madge --circular\n", flush=True)
        from bench import cycles_bench

        cycles_bench.main()
    if "adapters" in wanted:
        print("\n## Adapters: exec and sql wants, rounds of a recursive tree, against plain Python\n", flush=True)
        from bench import adapter_bench

        adapter_bench.main()
    if "presets" in wanted:
        print("\n## Presets: rofl audit with all seven, against dependency-cruiser's equivalent rules\n", flush=True)
        from bench import presets_bench

        presets_bench.main()
    if "monorepos" in wanted:
        print("\n## Real monorepos, against dependency-cruiser\n", flush=True)
        from bench import monorepo_compare

        monorepo_compare.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
