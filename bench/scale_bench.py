"""Questions at monorepo scale (issue 22): one-file impact on synthetic monorepos of 2,000 / 20,000 (/ 100,000) files.

The monorepos come from bench/synthetic_monorepo.py (three.js's sources as pnpm workspace packages; the
changed file, three's Vector3 in family 0, reaches the same files at every size).  Each is scanned once
into bench/.cache/synthetic (warm facts) and asked once to build the graph index; then, per size:

* ``impact``: a fresh ``rofl impact --changed FILE --json`` process (the command line's defaults: a
  rescan first, which finds nothing), median wall seconds and CPU seconds of three, and its peak RSS;
* the peer, in the same run: a fresh Python process that reads the same edges (every dependency the
  index holds, as a JSON edge list) and answers ``networkx.ancestors`` of the changed file;
* a no-change ``rofl scan`` (fresh process, median of three): the part of ``impact`` that its rescan is;
* at 20,000 files: ``impact`` through a running ``rofl server`` (median of 20 requests, warm),
  ``rofl why 'depends_on[code](A, B)'`` for a pair that holds (proved from the whole closure) and one
  that does not (answered by demand), beside networkx's ``has_path`` over the same edges in a fresh
  process (the answers must agree), and ``audit`` after a one-file change beside a no-change rescan (capped at SCALE_AUDIT_CAP seconds),
  without rules and with every preset turned on, an audit before the change having judged the scan
  (what the audit after it reuses); the change is either a body edit (a comment appended: no row the
  audit reads changes, as with most edits) or an import edit (an import of a sibling appended: a new
  edge, which the audit evaluates again).

Every process runs from compiled bytecode, as an installed rofl does (``precompile``; the environment
may set PYTHONDONTWRITEBYTECODE).

SCALE_ONLY=audit runs only the audit after a one-file change, at 2,000 and at 20,000 files.

Reported: growth 2,000 -> 20,000 (target <= 2x), peak at 20,000 (target < 400 MB), the server's
median (target <= 50 ms), the audit ratio (target <= 5x) and the growth exponent.  100,000 files only
with ROFL_BENCH_FULL=1 (its first scan takes minutes).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import synthetic_monorepo as synthetic

ROOT = Path(__file__).resolve().parent.parent
RUNS = 3
AUDIT_CAP = float(os.environ.get("SCALE_AUDIT_CAP", "300"))
PEER = """
import json, sys, networkx as nx
edges = json.load(open(sys.argv[1]))
g = nx.DiGraph()
g.add_edges_from(edges)
print(len(nx.ancestors(g, sys.argv[2])))
"""


def rofl_argv() -> list[str]:
    return [sys.executable, "-m", "rofl.cli"]


def run_child(argv: list[str], ok: tuple[int, ...] = (0,)) -> dict:
    """A fresh process: its wall seconds (perf_counter from start to reaping), and its CPU seconds and peak
    RSS (MB) from the kernel's accounting of that child (``os.wait4``), with no wrapper process whose own
    start would add to every figure; an exit code outside ``ok`` is an error."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    if child.returncode not in ok:
        raise RuntimeError(f"{' '.join(argv)} failed: {stderr[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024, "out": stdout}


def timed(argv: list[str], runs: int = RUNS, ok: tuple[int, ...] = (0,)) -> dict:
    """The median of ``runs`` fresh processes (and the largest peak RSS); an exit code outside ``ok`` is an error."""
    found = [run_child(argv, ok) for _ in range(runs)]
    return {
        "wall": statistics.median(m["wall"] for m in found),
        "cpu": statistics.median(m["cpu"] for m in found),
        "rss_mb": max(m["rss_mb"] for m in found),
        "out": found[-1]["out"],
    }


def prepared(n: int) -> tuple[Path, Path, float | None]:
    """The monorepo of ``n`` files and its warm fact folder (scanned once; the cold scan's seconds then)."""
    src = synthetic.ensure(n)
    facts = synthetic.CACHE / "synthetic" / f"facts-{n}"
    cold = None
    if not (facts / "manifest.json").is_file():
        started = time.perf_counter()
        subprocess.run([*rofl_argv(), "scan", str(src), "--out", str(facts)], check=True, capture_output=True)
        cold = time.perf_counter() - started
    return src, facts, cold


def settle() -> None:
    """Wait until what the last command wrote has settled (``rofl.scanner.stamps``): the warm state a user's
    next question meets, where folder and file stamps vouch and nothing is listed or written again."""
    from rofl.scanner.stamps import SETTLED_NS

    time.sleep(SETTLED_NS / 1e9 + 0.2)


def impact_argv(facts: Path, *extra: str) -> list[str]:
    return [*rofl_argv(), "impact", "--facts", str(facts), "--changed", synthetic.changed_file(), "--json", *extra]


def edges_file(facts: Path, sink: Path) -> Path:
    """Every dependency edge the index holds (importer -> imported), as JSON, for the peer."""
    from rofl.loading import cachemac, graph_index
    from rofl.loading.kernel import CODE_RULES

    view = graph_index.current(
        facts, CODE_RULES.read_text(encoding="utf-8"), cachemac.secret(), graph_index.manifest_bytes(facts)
    )
    if view is None:
        raise RuntimeError(f"{facts}: the graph index does not answer")
    edges = [[a, b] for b, importers in view.graph.importers.items() for a in importers]
    sink.write_text(json.dumps(edges))
    return sink


def one_size(n: int) -> dict:
    src, facts, cold = prepared(n)
    subprocess.run(impact_argv(facts), check=True, capture_output=True)  # the index, built once
    settle()
    subprocess.run(impact_argv(facts), check=True, capture_output=True)  # settled: the stamps are recorded
    ours = timed(impact_argv(facts))
    answer = json.loads(ours["out"])
    sink = edges_file(facts, facts.parent / f"edges-{n}.json")
    peer = timed([sys.executable, "-c", PEER, str(sink), synthetic.changed_file()])
    affected = len(answer["affected"])
    if int(peer["out"].strip()) != affected:
        raise RuntimeError(f"{n} files: rofl finds {affected} affected, networkx {peer['out'].strip()}")
    row = {
        "workload": f"{n:,} files",
        "affected": affected,
        "impact_s": ours["wall"],
        "impact_cpu_s": ours["cpu"],
        "peak_mb": ours["rss_mb"],
        "networkx_s": peer["wall"],
        "ratio": ours["wall"] / peer["wall"],
        "cpu_ratio": ours["cpu"] / max(peer["cpu"], 1e-9),
    }
    rescan = timed([*rofl_argv(), "scan", str(src), "--out", str(facts)])  # what impact's rescan costs of it
    row["no_change_scan_s"] = rescan["wall"]
    row["no_change_scan_cpu_s"] = rescan["cpu"]
    if cold is not None:
        row["cold_scan_s"] = cold
    return row


PATH_PEER = """
import json, sys, networkx as nx
g = nx.DiGraph()
g.add_edges_from(json.load(open(sys.argv[1])))
print(nx.has_path(g, sys.argv[2], sys.argv[3]))
"""


def why_pairs(n: int) -> list[dict]:
    """`rofl why 'depends_on[code](A, B)'` at ``n`` files for a pair that holds and one that does not (B the
    changed file; A the first importer of the index's graph that reaches it, and the first that does not),
    each beside networkx's ``has_path`` over the same edges in a fresh process; the answers must agree."""
    import networkx as nx

    _, facts, _ = prepared(n)
    sink = facts.parent / f"edges-{n}.json"
    if not sink.is_file():
        edges_file(facts, sink)
    graph = nx.DiGraph()
    graph.add_edges_from(json.loads(sink.read_text()))
    target = synthetic.changed_file()
    reach = nx.ancestors(graph, target)
    sources = sorted(node for node in graph if graph.out_degree(node) and node != target)
    rows = []
    pairs = ((True, next(a for a in sources if a in reach)), (False, next(a for a in sources if a not in reach)))
    for holds, source in pairs:
        fact = f'depends_on[code]("{source}", "{target}")'
        ours = timed([*rofl_argv(), "why", fact, "--facts", str(facts), "--json"], ok=(0, 1))  # 1: does not hold
        answer = json.loads(ours["out"])["holds"]
        peer = timed([sys.executable, "-c", PATH_PEER, str(sink), source, target])
        if answer != holds or peer["out"].strip() != str(holds):
            raise RuntimeError(f"why {fact}: rofl says {answer}, networkx {peer['out'].strip()}, expected {holds}")
        rows.append(
            {
                "workload": f"{n:,} files, why of a depends_on that {'holds' if holds else 'does not hold'}",
                "why_s": ours["wall"],
                "why_peak_mb": ours["rss_mb"],
                "networkx_s": peer["wall"],
                "ratio": ours["wall"] / peer["wall"],
            }
        )
    return rows


def served(n: int, requests: int = 20) -> dict:
    """impact through a running `rofl server` (warm): median seconds per request."""
    import httpx

    from bench.server_bench import start_server

    src, facts, _ = prepared(n)
    process, url = start_server(facts, src)
    try:
        body = {"changed": [synthetic.changed_file()]}
        seconds = []
        with httpx.Client(base_url=url, timeout=600) as client:
            for i in range(requests + 3):
                t = time.perf_counter()
                response = client.post("/commands/impact", json=body)
                response.raise_for_status()
                if i >= 3:  # warm-ups: the first rescans and loads the index; the watcher gets ready
                    seconds.append(time.perf_counter() - t)
                else:
                    time.sleep(0.5)
        return {"workload": f"{n:,} files, through rofl server", "server_median_s": statistics.median(seconds)}
    finally:
        process.terminate()
        process.wait(timeout=30)


def every_preset() -> str:
    """A rule file turning every shipped preset on: the audit whose rules read the scan's [code] facts."""
    from rofl.loading.presets import shipped_presets

    return "".join(f"use({name}).\n" for name in shipped_presets())


def edited(path: Path, original: bytes, kind: str) -> bytes:
    """The changed file's bytes after an edit: ``body`` appends a comment (no import or export changes, as most
    edits); ``import`` appends an import of a sibling file it does not import yet (a new edge of the graph)."""
    if kind == "body":
        return original + b"\n// edited\n"
    text = original.decode("utf-8")
    sibling = next(p.name for p in sorted(path.parent.glob("*.js")) if p != path and f"./{p.name}" not in text)
    return original + f"\nimport './{sibling}';\n".encode()


def audit_after_change(n: int, presets: bool = False, kind: str = "body") -> dict:
    """`rofl audit` after a one-file change (rescanned; ``kind`` as ``edited`` makes it), beside a no-change
    rescan, in the same run; with ``presets``, every preset turned on (its rules read the scan's [code] facts)."""
    src, facts, _ = prepared(n)
    audit_argv = ["timeout", str(int(AUDIT_CAP)), *rofl_argv(), "audit", "--facts", str(facts)]
    if presets:
        rules = facts.parent / "presets.rofl"
        rules.write_text(every_preset())
        audit_argv += ["--rules", str(rules)]
    subprocess.run([*rofl_argv(), "scan", str(src), "--out", str(facts)], check=True, capture_output=True)
    subprocess.run(audit_argv, capture_output=True)  # the audit before the change: what the next one reuses
    rescan = timed([*rofl_argv(), "scan", str(src), "--out", str(facts)])
    target = src / synthetic.changed_file()
    original = target.read_bytes()
    audit: dict | None = None
    try:
        target.write_bytes(edited(target, original, kind))
        subprocess.run([*rofl_argv(), "scan", str(src), "--out", str(facts)], check=True, capture_output=True)
        try:
            audit = run_child(audit_argv, ok=(0, 1))  # 1: findings (every preset finds some)
        except RuntimeError:
            audit = None  # over the cap (or failed): reported as such
    finally:
        target.write_bytes(original)
        subprocess.run([*rofl_argv(), "scan", str(src), "--out", str(facts)], check=True, capture_output=True)
    row = {
        "workload": f"{n:,} files, audit{' with every preset' if presets else ''} after a one-file "
        + ("change" if kind == "body" else "import change"),
        "rescan_s": rescan["wall"],
        "rescan_cpu_s": rescan["cpu"],
    }
    if audit is not None:
        row["audit_s"] = audit["wall"]
        row["audit_cpu_s"] = audit["cpu"]
        row["audit_vs_rescan_x"] = audit["wall"] / rescan["wall"]
        row["audit_vs_rescan_cpu_x"] = audit["cpu"] / max(rescan["cpu"], 1e-9)
    else:
        row["audit_s"] = f"> {AUDIT_CAP:.0f} (cap)"
    return row


def audit_only() -> list[dict]:
    """SCALE_ONLY=audit: the audit after a one-file change at 2,000 and 20,000 files (without and with every
    preset), nothing else."""
    rows = [
        audit_after_change(n, presets, kind)
        for n in (2_000, 20_000)
        for presets in (False, True)
        for kind in ("body", "import")
    ]
    for a in rows:
        if "audit_vs_rescan_x" in a:
            print(
                f"{a['workload']}: {a['audit_s']:.2f} s ({a['audit_cpu_s']:.2f} s CPU) vs no-change rescan "
                f"{a['rescan_s']:.2f} s ({a['rescan_cpu_s']:.2f} s CPU): {a['audit_vs_rescan_x']:.1f}x wall, "
                f"{a['audit_vs_rescan_cpu_x']:.1f}x CPU (target <= 5x)"
            )
        else:
            print(f"{a['workload']}: {a['audit_s']} s vs no-change rescan {a['rescan_s']:.2f} s")
    return rows


def main() -> list[dict]:
    if not synthetic.THREE.is_dir():
        print(f"three/src is absent ({synthetic.THREE}): run `python bench/run.py scan` once to fetch it")
        return []
    from bench.scan_compare import precompile

    precompile()
    if os.environ.get("SCALE_ONLY") == "audit":
        return audit_only()
    sizes = [2_000, 20_000] + ([100_000] if os.environ.get("ROFL_BENCH_FULL") else [])
    rows = [one_size(n) for n in sizes]
    by = {r["workload"]: r for r in rows}
    small, big = by["2,000 files"], by["20,000 files"]
    growth = big["impact_s"] / small["impact_s"]
    cpu_growth = big["impact_cpu_s"] / small["impact_cpu_s"]
    exponent = math.log(growth) / math.log(10)
    summary = {
        "workload": "growth 2,000 -> 20,000 files",
        "growth_ratio": growth,
        "cpu_growth_ratio": cpu_growth,
        "exponent": exponent,
    }
    if "100,000 files" in by:
        top = by["100,000 files"]
        summary["exponent_20k_100k"] = math.log(top["impact_s"] / big["impact_s"]) / math.log(5)
    extra = [summary, served(20_000), *why_pairs(20_000)]
    if os.environ.get("SCALE_AUDIT", "1") != "0":
        extra += [audit_after_change(20_000, presets, kind) for presets in (False, True) for kind in ("body", "import")]
    print("| files | affected | impact (s, wall) | CPU s | peak MB | networkx (s) | ratio | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['affected']} | {r['impact_s']:.2f} | {r['impact_cpu_s']:.2f} | "
            f"{r['peak_mb']:.0f} | {r['networkx_s']:.2f} | {r['ratio']:.2f} | {r['cpu_ratio']:.2f} |"
        )
    print(
        f"\ngrowth 2,000 -> 20,000: {growth:.2f}x wall (target <= 2x), {cpu_growth:.2f}x CPU; exponent {exponent:.2f}"
        + (f"; 20,000 -> 100,000 exponent {summary['exponent_20k_100k']:.2f}" if "exponent_20k_100k" in summary else "")
    )
    print(f"peak at 20,000: {big['peak_mb']:.0f} MB (target < 400 MB)")
    print(f"through rofl server at 20,000: {extra[1]['server_median_s'] * 1000:.1f} ms median (target <= 50 ms)")
    for w in extra[2:4]:
        print(
            f"{w['workload']}: {w['why_s']:.2f} s, {w['why_peak_mb']:.0f} MB (networkx has_path {w['networkx_s']:.2f} s)"
        )
    for a in extra[4:]:
        ratio = f"{a['audit_vs_rescan_x']:.1f}x" if "audit_vs_rescan_x" in a else "not measured (over the cap)"
        seconds = f"{a['audit_s']:.2f}" if isinstance(a["audit_s"], float) else a["audit_s"]
        print(f"{a['workload']}: {seconds} s vs no-change rescan {a['rescan_s']:.2f} s: {ratio} (target <= 5x)")
    return rows + extra


if __name__ == "__main__":
    os.environ.setdefault("CI", "1")
    main()
