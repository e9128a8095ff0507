"""Kernel benchmark: transitive closure with provenance, our evaluator against clingo in the same run.

    path(X, Y) :- edge(X, Y).
    path(X, Z) :- edge(X, Y), path(Y, Z).

Workloads: (a) a random DAG of 2,000 nodes and 6,000 distinct edges, each from a lower to a higher
number (fixed seed); (b) a 500-node chain; (c) any external edge list through
``corpus_import_graph(edges)`` (the import graph of a real corpus, once the scanner provides it).

Per workload:

Every time is the best of ``--repeat`` runs (default 3), each in a fresh kernel / ``Control``.

* ``ours_eval_s``: our evaluation only (semi-naive, provenance on: the kernel always counts each
  derived fact's support and can prove it; a closure's facts keep no record, their rule and witness
  are found when asked, ``engine.evaluate.LeanRecords``; there is no switch to turn it off). The
  rules and the edge facts are parsed and reflected into the store first (``ours_load_s``);
  ``ours_total_s`` = booting the kernel + load + evaluation.
* ``clingo_s``: clingo's ground + solve on the same program text (``clingo.Control()``, ``add``,
  ``ground``, ``solve``); ``clingo_total_s`` adds ``Control()`` and ``add`` (clingo's parse).
* ``ratio``: ``ours_eval_s / clingo_s`` (target <= 5); ``ratio_total`` compares the totals.
* ``facts_per_s``: derived ``path`` facts per second of our evaluation (target >= 200,000);
  ``firings`` is the number of distinct rule firings (the sum of support counts).
* ``bytes_per_fact``: peak memory allocated by Python during our evaluation, measured with
  ``tracemalloc`` around ``Kernel.evaluate()`` only (a separate, untimed run: tracemalloc slows
  allocation down), divided by the number of derived ``path`` facts (target <= 500). It includes
  everything the evaluation allocates: the tables, their hash indexes, the provenance records with
  their witness tuples, the round buffers and the generated join code. ``retained_bytes_per_fact``
  is what is still allocated when the evaluation returns.

Our ``path`` facts are checked against clingo's (the counts must agree) in every run.

Whole processes (``whole_processes``, issue 22): the same program file read by a fresh Python process
that boots a kernel, loads the file and evaluates (ours), and by one that hands it to
``clingo.Control`` and grounds and solves (clingo); each prints how many ``path`` facts hold. Wall
time and peak RSS of each process (one wrapper per measurement, ``bench/kernel_scale_bench.py``'s
``run_child``); best of ``--repeat`` for the small workloads, one run for the large ones (the DAG of
20,000 nodes and 60,000 edges, 1.2 million facts; the 5,000-node chain, 12.5 million).
``ratio_process`` is our wall time over clingo's, ``memory_ratio`` our peak RSS over clingo's.
Soufflé is the second peer when a ``souffle`` executable is on the PATH (Debian's current release
does not package it and PyPI has no build of it): the bench says so in one line and skips it.

Run: ``python bench/kernel_bench.py [--profile] [--only dag|chain] [--no-process] [--no-large]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rofl.engine.kernel import Kernel  # noqa: E402

BOOT = ROOT / "rules" / "boot.rofl"
RULES = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"
BUDGET = 10**10  # derivation steps: far above what these workloads need
DAG_SEED = 20260101
TARGETS = {"ratio": 1.0, "facts_per_s": 200_000, "bytes_per_fact": 500}


# ------------------------------------------------------------------------------------------ workloads
def random_dag(nodes: int = 2000, edges: int = 6000, seed: int = DAG_SEED) -> list[tuple[int, int]]:
    """``edges`` distinct edges (a, b) with a < b, drawn uniformly with a fixed seed, in drawing order."""
    rng = random.Random(seed)
    seen: set = set()
    out: list[tuple[int, int]] = []
    while len(out) < edges:
        a, b = rng.randrange(nodes), rng.randrange(nodes)
        if a == b:
            continue
        e = (min(a, b), max(a, b))
        if e not in seen:
            seen.add(e)
            out.append(e)
    return out


def chain(nodes: int = 500) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(nodes - 1)]


def program_text(edges: list[tuple[int, int]]) -> str:
    """The same text is valid ROFL and valid ASP (integers only)."""
    return "".join(f"edge({a}, {b}).\n" for a, b in edges) + RULES


def closure_size(edges: list[tuple[int, int]]) -> int:
    """Reachable pairs by plain BFS: an independent check on both engines."""
    succ: dict[int, list[int]] = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    total = 0
    for start in succ:
        seen: set = set()
        todo = list(succ[start])
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(succ.get(n, ()))
        total += len(seen)
    return total


# ------------------------------------------------------------------------------------------ ours
def _loaded_kernel(text: str, tmp: Path) -> tuple[Kernel, float, float]:
    """A booted kernel with ``text`` parsed and reflected into the store, not yet evaluated."""
    t0 = time.perf_counter()
    k = Kernel(BOOT, budget=BUDGET)
    t1 = time.perf_counter()
    path = tmp / "tc.rofl"
    path.write_text(text, encoding="utf-8")
    k.load_sources([(path, None)], evaluate_now=False)
    t2 = time.perf_counter()
    return k, t1 - t0, t2 - t1


def run_ours(text: str, profile: bool = False, repeat: int = 3, memory: bool = True) -> dict:
    """Best of ``repeat`` runs (each in a fresh kernel) for every timing, then one tracemalloc run."""
    boot_s = load_s = eval_s = float("inf")
    with tempfile.TemporaryDirectory() as d:
        for i in range(repeat):
            k, b, load = _loaded_kernel(text, Path(d))
            gc.collect()
            profiler = None
            if profile and i == repeat - 1:
                from pyinstrument import Profiler

                profiler = Profiler(interval=0.0005)
                profiler.start()
            t0 = time.perf_counter()
            outcome = k.evaluate()
            e = time.perf_counter() - t0
            if profiler is not None:
                profiler.stop()
            assert not outcome.partial, "the budget ran out"
            boot_s, load_s, eval_s = min(boot_s, b), min(load_s, load), min(eval_s, e)
            if i < repeat - 1:
                del k, outcome
        held = outcome.rows("path")
        firings = sum(outcome.provenance("path", row).support for row in held)
        rows = {row[1:] for row in held}
        facts = len(rows)
        del k, outcome, held
        # memory: a second, untimed evaluation under tracemalloc
        base = current = peak = 0
        if memory:
            k, _, _ = _loaded_kernel(text, Path(d))
            gc.collect()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            k.evaluate()
            current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
    out = {
        "ours_boot_s": boot_s,
        "ours_load_s": load_s,
        "ours_eval_s": eval_s,
        "ours_total_s": boot_s + load_s + eval_s,
        "facts": facts,
        "firings": firings,
        "peak_bytes": peak - base,
        "retained_bytes": current - base,
        "rows": rows,
    }
    if profiler is not None:
        out["profile"] = profiler.output_text(unicode=False, color=False, show_all=False)
    return out


# ------------------------------------------------------------------------------------------ clingo
def run_clingo(text: str, repeat: int = 3) -> dict:
    """Best of ``repeat`` runs, each in a fresh ``clingo.Control``."""
    import clingo

    best: dict = {}
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        ctl = clingo.Control(["--warn=none"])
        ctl.add("base", [], text)
        t1 = time.perf_counter()
        ctl.ground([("base", [])])
        t2 = time.perf_counter()
        result = ctl.solve()
        t3 = time.perf_counter()
        assert result.satisfiable
        run = {
            "clingo_parse_s": t1 - t0,
            "clingo_ground_s": t2 - t1,
            "clingo_solve_s": t3 - t2,
            "clingo_s": t3 - t1,
            "clingo_total_s": t3 - t0,
        }
        if not best or run["clingo_s"] < best["clingo_s"]:
            best = run
        rows = {tuple(a.number for a in s.symbol.arguments) for s in ctl.symbolic_atoms.by_signature("path", 2)}
        del ctl
    best["rows"] = rows
    return best


# ------------------------------------------------------------------------------------------ one measurement
def measure(
    name: str, edges: list[tuple[int, int]], profile: bool = False, repeat: int = 3, memory: bool = True
) -> dict:
    text = program_text(edges)
    ours = run_ours(text, profile, repeat, memory)
    theirs = run_clingo(text, repeat)
    expected = closure_size(edges)
    agree = ours["rows"] == theirs["rows"] and len(ours["rows"]) == expected
    nodes = len({n for e in edges for n in e})
    row = {
        "workload": name,
        "nodes": nodes,
        "edges": len(edges),
        "facts": ours["facts"],
        "firings": ours["firings"],
        **{key: ours[key] for key in ("ours_eval_s", "ours_load_s", "ours_boot_s", "ours_total_s")},
        **{key: theirs[key] for key in ("clingo_s", "clingo_ground_s", "clingo_solve_s", "clingo_total_s")},
        "ratio": ours["ours_eval_s"] / theirs["clingo_s"],
        "ratio_total": ours["ours_total_s"] / theirs["clingo_total_s"],
        "facts_per_s": ours["facts"] / ours["ours_eval_s"],
        "firings_per_s": ours["firings"] / ours["ours_eval_s"],
        "bytes_per_fact": ours["peak_bytes"] / max(1, ours["facts"]),
        "retained_bytes_per_fact": ours["retained_bytes"] / max(1, ours["facts"]),
        "memory_method": "tracemalloc peak around Kernel.evaluate()",
        "repeat": repeat,
        "agrees_with_clingo": agree,
    }
    row["meets_targets"] = (
        row["ratio"] <= TARGETS["ratio"]
        and row["facts_per_s"] >= TARGETS["facts_per_s"]
        and row["bytes_per_fact"] <= TARGETS["bytes_per_fact"]
    )
    if "profile" in ours:
        row["profile"] = ours["profile"]
    return row


def corpus_import_graph(edges, name: str = "corpus import graph", profile: bool = False, repeat: int = 3) -> dict:
    """Measure the closure of an external edge list: ``(importer, imported)`` pairs of any hashable names.

    Names are interned to integers in first-seen order (the measurement is about the closure, not
    about term sizes); cycles are fine.
    """
    ids: dict = {}
    numbered: list[tuple[int, int]] = []
    seen: set = set()
    for a, b in edges:
        e = (ids.setdefault(a, len(ids)), ids.setdefault(b, len(ids)))
        if e not in seen:
            seen.add(e)
            numbered.append(e)
    return measure(name, numbered, profile, repeat)


# ------------------------------------------------------------------------------------------ whole processes
_OURS_PROCESS = (
    "import sys\n"
    "from pathlib import Path\n"
    "from rofl.engine.kernel import Kernel\n"
    "k = Kernel(Path(sys.argv[1]), budget=10**12)\n"
    "k.load_sources([(Path(sys.argv[2]), None)], evaluate_now=False)\n"
    "print(len(k.evaluate().rows('path')))\n"
)
_CLINGO_PROCESS = (
    "import sys, clingo\n"
    "ctl = clingo.Control(['--warn=none'])\n"
    "ctl.load(sys.argv[1])\n"
    "ctl.ground([('base', [])])\n"
    "ctl.solve()\n"
    "print(sum(1 for _ in ctl.symbolic_atoms.by_signature('path', 2)))\n"
)
# Soufflé's form of the same program: the edges as a fact file, the closure as an output relation
_SOUFFLE_PROGRAM = (
    ".decl edge(x: number, y: number)\n.input edge\n.decl path(x: number, y: number)\n.output path\n"
    "path(x, y) :- edge(x, y).\npath(x, z) :- edge(x, y), path(y, z).\n"
)
PROCESS_MEM_MB = "16384"  # the address-space cap of each measured process (the 5,000-node chain needs GBs)


def souffle_status() -> str | None:
    """The path of a ``souffle`` executable, or None (and the bench says why it skips that peer)."""
    return shutil.which("souffle")


def _best(argv: list[str], out: Path, repeat: int, cap: float) -> dict:
    from bench.kernel_scale_bench import run_child

    best: dict = {}
    env_before = os.environ.get("KERNEL_SCALE_MEM_MB")
    os.environ["KERNEL_SCALE_MEM_MB"] = PROCESS_MEM_MB
    try:
        for _ in range(repeat):
            m = run_child(argv, out, cap)
            m["printed"] = out.read_text(encoding="utf-8").strip()
            if not best or m["s"] < best["s"]:
                best = {**m, "mb": max(m["mb"], best.get("mb", 0))}
            if m["capped"] or m["failed"]:
                break
    finally:
        if env_before is None:
            os.environ.pop("KERNEL_SCALE_MEM_MB", None)
        else:
            os.environ["KERNEL_SCALE_MEM_MB"] = env_before
    return best


def whole_process(name: str, edges: list[tuple[int, int]], repeat: int = 3, cap: float = 600.0) -> dict:
    """Our whole process against clingo's (and Soufflé's when installed) on the same program file."""
    expected = closure_size(edges)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        program = tmp / "tc.lp"
        program.write_text(program_text(edges), encoding="utf-8")
        ours = _best([sys.executable, "-c", _OURS_PROCESS, str(BOOT), str(program)], tmp / "ours.out", repeat, cap)
        theirs = _best([sys.executable, "-c", _CLINGO_PROCESS, str(program)], tmp / "clingo.out", repeat, cap)
        row = {
            "workload": f"{name} (whole process)",
            "edges": len(edges),
            "facts": expected,
            "ours_process_s": ours["s"],
            "ours_peak_mb": ours["mb"],
            "clingo_process_s": theirs["s"],
            "clingo_peak_mb": theirs["mb"],
            "ratio_process": ours["s"] / theirs["s"],
            "memory_ratio": ours["mb"] / theirs["mb"],
            "agrees_with_clingo": ours["printed"] == theirs["printed"] == str(expected),
            "repeat": repeat,
        }
        souffle = souffle_status()
        if souffle is not None:
            facts = tmp / "edge.facts"
            facts.write_text("".join(f"{a}\t{b}\n" for a, b in edges), encoding="utf-8")
            (tmp / "tc.dl").write_text(_SOUFFLE_PROGRAM, encoding="utf-8")
            peer = _best([souffle, "-F", str(tmp), "-D", str(tmp), str(tmp / "tc.dl")], tmp / "s.out", repeat, cap)
            row["souffle_process_s"] = peer["s"]
            row["souffle_peak_mb"] = peer["mb"]
            row["ratio_process_souffle"] = ours["s"] / peer["s"]
    return row


def print_processes(rows: list[dict]) -> None:
    print()
    print(
        "| workload | facts | ours s | ours peak MB | clingo s | clingo peak MB | time ratio | memory ratio | same count |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['facts']:,} | {r['ours_process_s']:.2f} | {r['ours_peak_mb']:.0f} | "
            f"{r['clingo_process_s']:.2f} | {r['clingo_peak_mb']:.0f} | {r['ratio_process']:.2f} | "
            f"{r['memory_ratio']:.2f} | {r['agrees_with_clingo']} |"
        )
    if souffle_status() is None:
        print(
            "Soufflé: skipped, no `souffle` on the PATH (`apt-cache policy souffle`: Debian's current release "
            "does not package it; PyPI's `souffle` is an unrelated project)."
        )
    else:
        for r in rows:
            print(f"Soufflé {r['workload']}: {r['souffle_process_s']:.2f} s, ratio {r['ratio_process_souffle']:.2f}")


# ------------------------------------------------------------------------------------------ table
COLUMNS = (
    ("workload", "workload", "{}"),
    ("edges", "edges", "{:,}"),
    ("facts", "derived", "{:,}"),
    ("firings", "firings", "{:,}"),
    ("ours_eval_s", "ours eval s", "{:.3f}"),
    ("ours_total_s", "ours total s", "{:.3f}"),
    ("clingo_s", "clingo g+s s", "{:.3f}"),
    ("clingo_total_s", "clingo total s", "{:.3f}"),
    ("ratio", "ratio (<=1)", "{:.2f}"),
    ("facts_per_s", "facts/s (>=200k)", "{:,.0f}"),
    ("bytes_per_fact", "B/fact peak (<=500)", "{:.0f}"),
    ("retained_bytes_per_fact", "B/fact kept", "{:.0f}"),
    ("agrees_with_clingo", "same facts", "{}"),
)


def format_table(rows: list[dict]) -> str:
    cells = [[title for _, title, _ in COLUMNS]]
    for r in rows:
        cells.append([fmt.format(r[key]) for key, _, fmt in COLUMNS])
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    lines = []
    for n, row in enumerate(cells):
        lines.append(
            "| " + " | ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))) + " |"
        )
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="profile our evaluation with pyinstrument")
    parser.add_argument("--only", choices=("dag", "chain"), help="run one workload")
    parser.add_argument("--repeat", type=int, default=3, help="timings are the best of N runs (default 3)")
    parser.add_argument("--no-process", action="store_true", help="skip the whole-process comparison")
    parser.add_argument("--no-large", action="store_true", help="skip the 20,000-node DAG and 5,000-node chain")
    args = parser.parse_args(argv)
    workloads = [
        ("dag 2000/6000", random_dag, False),
        ("dag 20000/60000", lambda: random_dag(20_000, 60_000), True),
        ("chain 500", chain, False),
        ("chain 5000", lambda: chain(5000), True),
    ]
    if args.only:
        workloads = [w for w in workloads if w[0].startswith(args.only)]
    if args.no_large:
        workloads = [w for w in workloads if not w[2]]
    rows = []
    for name, make, large in workloads:
        if name != "chain 5000":  # in-process with tracemalloc over 12.5 million facts: measured as a process only
            rows.append(measure(name, make(), args.profile, 1 if large else args.repeat, memory=not large))
    print(format_table(rows))
    print(
        f"times: best of {args.repeat}; memory: {rows[0]['memory_method']}; "
        "provenance on (a support count per derived fact; rule and witness found when asked)"
    )
    for r in rows:
        missed = [k for k, v in TARGETS.items() if (r[k] > v if k != "facts_per_s" else r[k] < v)]
        status = "all targets met" if not missed else "missed: " + ", ".join(missed)
        print(
            f"{r['workload']}: {status}; load {r['ours_load_s']:.3f}s, boot {r['ours_boot_s']:.3f}s, "
            f"clingo ground {r['clingo_ground_s']:.3f}s solve {r['clingo_solve_s']:.3f}s"
        )
        if "profile" in r:
            print(r["profile"])
    if not args.no_process:
        processes = [whole_process(name, make(), 1 if large else args.repeat) for name, make, large in workloads]
        print_processes(processes)
        rows += processes
    return rows


if __name__ == "__main__":
    main()
