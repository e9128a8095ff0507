"""`make bench`: every benchmark, each against a peer measured in the same run; prints Markdown tables.

Sections: the kernel (transitive closure vs clingo), time and persistence (ticks, save/restore),
scanning real code (vs madge and dependency-cruiser), hostile input (beside a clean corpus of the
same size: issue 9's bounds as numbers), audits (audit --reextract beside a cold scan), impact on three/src (vs madge), and real
monorepos (zod, excalidraw, TanStack/query, vite, vs dependency-cruiser; each used when its work tree
is under bench/.cache/repos).  Pass section names to run only some:
``python bench/run.py kernel kernel_scale ticks scan hostile audit impact cycles monorepos``.
Every run ends with each ratio beside the one recorded in bench/RECORDS.json and lists the figures
more than 15% worse (bench/records.py); ``--record`` writes this run's ratios into that file.
Section ``report`` (bench/report_bench.py, issue 24): `rofl report` on effect, vitest, trpc and a 10,000-file workspace (time, peak RSS).
Section ``scale`` (bench/scale_bench.py, issue 22): one-file impact on synthetic monorepos (bench/synthetic_monorepo.py)
of 2,000 and 20,000 files (100,000 with ROFL_BENCH_FULL=1): time, peak memory, growth, `rofl server`, audit after a change.
Section ``server`` (bench/server_bench.py, issue 14): requests per second and median latency of `impact` through
`rofl server` on three/src, beside a fresh `rofl impact` process in the same run.
Section ``cycles`` (bench/cycles_bench.py): `rofl cycles` on rxjs/src and the shop against madge's graph and `madge --circular`.
Section ``adapters`` (bench/adapter_bench.py, issue 13): wants per second through exec and sql and rounds per second for a recursive tree, beside plain Python.
Section ``presets`` (bench/presets_bench.py, issue 15): `rofl audit` with all seven presets on excalidraw and TanStack/query, beside dependency-cruiser's equivalent rules.
Section ``dask`` (bench/dask_bench.py, issue 22): cold scans of the 20,000-file synthetic monorepo with
``--dask local:1``/``local:2`` beside ``--jobs 1``/``2``, the outputs compared byte for byte, and the curve beyond.
Section ``commands`` (bench/commands_bench.py, issue 23): every quick command at commit 089fa01 beside the working tree, same trees, same run.
Section ``kernel_scale`` (bench/kernel_scale_bench.py, issue 11): the growing list over many ticks
(vs clingo's time-indexed version), audit of a 3,500-file import chain, and ``in_cycle``/impact on one
scan of all the real code under bench/.cache (vs networkx), with time and peak memory.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# section -> (its heading, the bench module whose main() runs it), in the order they run
SECTIONS: dict[str, tuple[str, str]] = {
    "kernel": ("Kernel: transitive closure with provenance, against clingo", "kernel_bench"),
    "kernel_scale": (
        "Kernel at scale: deep terms over many ticks, cycles without the closure (time and peak memory)",
        "kernel_scale_bench",
    ),
    "ticks": ("Time and persistence", "tick_bench"),
    "scan": ("Scanning real code, against madge and dependency-cruiser", "scan_compare"),
    "hostile": ("Hostile input: scan time and peak memory beside a clean corpus of the same size", "hostile_bench"),
    "audit": ("Audits on three/src: signature check and re-extraction beside a cold scan", "audit_bench"),
    "impact": ("Impact on three/src, against madge", "impact_bench"),
    "server": ("impact through `rofl server` on three/src, against a fresh `rofl impact` process", "server_bench"),
    "cycles": ("Cycles on rxjs/src and examples/shop, against madge --circular", "cycles_bench"),
    "adapters": ("Adapters: exec and sql wants, rounds of a recursive tree, against plain Python", "adapter_bench"),
    "presets": ("Presets: rofl audit with all seven, against dependency-cruiser's equivalent rules", "presets_bench"),
    "monorepos": ("Real monorepos, against dependency-cruiser", "monorepo_compare"),
    "dask": ("Scanning on a Dask cluster: --dask local:N against --jobs N on 20,000 files", "dask_bench"),
    "scale": (
        "Questions at monorepo scale: one-file impact on synthetic monorepos of 2,000 / 20,000 files, against networkx",
        "scale_bench",
    ),
    "report": ("rofl report at size: time, peak memory and page size, beside `rofl cycles`", "report_bench"),
    "commands": ("Every quick command beside commit 089fa01 (before issue 23), same trees", "commands_bench"),
}
# the sections whose main() takes an argument list (run with none: their defaults)
TAKES_ARGV = frozenset({"kernel_bench", "kernel_scale_bench", "monorepo_compare", "report_bench"})


def _three_import_graph() -> None:
    """The kernel section's last row: the import graph of three/src, as scanned."""
    import subprocess
    import tempfile

    from bench import kernel_bench
    from bench.corpora import ensure
    from bench.scan_compare import our_facts

    print("\n(c) the import graph of three/src, as scanned\n", flush=True)
    three = next(c for c in ensure() if c.name == "three")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "rofl.cli", "scan", str(three.src), "--out", tmp, "--json"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        row = kernel_bench.corpus_import_graph(sorted(our_facts(Path(tmp))["edges"]), name="three/src imports")
    print(row)


def _run_section(section: str, module_name: str) -> list[dict]:
    """Run one section in a fresh interpreter and return its rows.  A child process inherits the peak RSS
    of the process it is forked from (Linux keeps the high-water mark across fork and exec), so a section
    run after one that grew this process (the kernel's in-process closures) would report that peak for
    every command it measures; each section's own process starts small."""
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        argv = [sys.executable, str(Path(__file__).resolve()), "--section", section, module_name, str(out)]
        subprocess.run(argv, check=True, cwd=ROOT)
        return json.loads(out.read_text(encoding="utf-8"))


def _section_child(section: str, module_name: str, out: str) -> int:
    """The child side of ``_run_section``: run the section's module (``bench.NAME``, or a dotted path) here,
    write its rows as JSON to ``out``."""
    import json

    module = importlib.import_module(module_name if "." in module_name else f"bench.{module_name}")
    rows = module.main([]) if module_name in TAKES_ARGV else module.main()
    if section == "kernel":
        _three_import_graph()
    Path(out).write_text(json.dumps(rows, default=str), encoding="utf-8")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--section"]:
        return _section_child(argv[1], argv[2], argv[3])
    from bench import records

    write_record = "--record" in argv
    argv = [a for a in argv if a != "--record"]
    wanted = argv or list(SECTIONS)
    unknown = [w for w in wanted if w not in SECTIONS]
    if unknown:
        print(f"bench/run.py: unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    measured: list[records.Figure] = []
    for section, (heading, module_name) in SECTIONS.items():
        if section not in wanted:
            continue
        print(f"\n## {heading}\n", flush=True)
        measured += records.figures(section, _run_section(section, module_name))
    print("\n## Against the recorded figures (bench/RECORDS.json)\n", flush=True)
    print(records.render(records.compare(measured)))
    if write_record:
        print(f"recorded {records.record(measured)} figure(s) in {records.RECORDS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
