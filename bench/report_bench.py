"""`rofl report` at size (issue 24 part 3): wall time, peak memory and page size on the real monorepos
under bench/.cache/repos (effect, vitest, trpc, when present) and a synthetic 10,000-file workspace
(bench/synthetic_monorepo.py: 40 packages of three.js's sources importing each other by name).

Each tree is scanned once; then `rofl report` runs cold (its first run after the scan compiles the
caches) and warm (best of REPEAT), each in its own process, its peak RSS read from ``wait4``.  The
peer, measured in the same run, is `rofl cycles` on the same scan (the same load and the import graph,
one question): ``warm_ratio`` is the report's warm time over it.  ``peak_of_budget_ratio`` is the
warm peak over the 400 MB the issue allows a 10,000-file repository, ``cold_peak_of_budget_ratio`` the
cold one's.  ``audit_peak_mb`` is `rofl audit`'s peak (it always loads the fact files themselves:
rofl/factload.py reads, checks and loads them one at a time); ``audit_cpu_s`` is the user CPU of that
audit, the load's cost on a loaded machine where wall time is noise.

Recorded at 10,000 files (synth10k, 2 shared cores, 2026-12-01): before the one-at-a-time load, cold
report 705 MB and warm 356 MB, audit 878 MB; after it, cold report 319 MB, warm 316 MB, audit 583 MB
(the load itself peaks at 157 MB of it: the rest is the audit's evaluation), cold cycles 257 MB; the
compiled caches shrink from 84 MB / 33 MB to 25 MB / 9 MB (equal values shared, marshal keeps them so).

``python bench/report_bench.py [effect vitest trpc synth10k]``; also section ``report`` of bench/run.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpora import CACHE
from bench.scan_compare import precompile, rofl_argv

REPOS = CACHE / "repos"
THREE = CACHE / "corpora" / "three" / "src"
REAL = ("effect", "vitest", "trpc")
SYNTH_FILES = 10_000
REPEAT = 2
BUDGET_MB = 400


def synthetic(root: Path, n: int = SYNTH_FILES) -> Path:
    """The shared synthetic workspace (bench/synthetic_monorepo.py) of ``n`` files under ``root``."""
    from bench.synthetic_monorepo import generate

    generate(n, root)
    return root


def _run(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of one process, run under a child that reports its own
    child's rusage (so the peak is that process's, not the largest of every process this bench ran)."""
    wall, peak, out, _ = _run_cpu(argv)
    return wall, peak, out


def _run_cpu(argv: list[str]) -> tuple[float, float, str, float]:
    """``_run``'s figures and the process's user CPU seconds."""
    probe = (
        "import resource,subprocess,sys,time;t=time.perf_counter();"
        "p=subprocess.run(sys.argv[1:],capture_output=True,text=True);w=time.perf_counter()-t;"
        "sys.stdout.write(p.stdout);u=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "sys.stderr.write(p.stderr+'\\n@@%d %f %d %f'%(p.returncode,w,u.ru_maxrss,u.ru_utime))"
    )
    proc = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
    err, _, tail = proc.stderr.rpartition("\n@@")
    code, wall, peak_kb, cpu = tail.split()
    if int(code) not in (0, 1, 3):
        raise RuntimeError(f"{' '.join(argv[:3])} exited {code}: {err.strip()[-400:]}")
    return float(wall), int(peak_kb) / 1024, proc.stdout, float(cpu)


def bench_tree(name: str, src: Path, work: Path) -> dict:
    rofl = rofl_argv()
    facts = work / f"facts-{name}"
    subprocess.run([*rofl, "scan", str(src), "--out", str(facts), "--json"], check=True, capture_output=True)
    out = work / f"{name}.html"
    report = [*rofl, "report", "--facts", str(facts), "--out", str(out)]
    cold_s, cold_mb, said = _run(report)
    warm = [_run(report) for _ in range(REPEAT)]
    warm_s, warm_mb = min(w[0] for w in warm), max(w[1] for w in warm)
    cycles = [_run([*rofl, "cycles", "--facts", str(facts), "--json"]) for _ in range(REPEAT)]
    cycles_s = min(c[0] for c in cycles)
    _, audit_mb, _, audit_cpu = _run_cpu([*rofl, "audit", "--facts", str(facts), "--json"])
    files = json.loads((facts / "manifest.json").read_text()).get("files", {})
    return {
        "repo": name,
        "files": len(files),
        "summary": said.strip().split(": ", 1)[-1][:90],
        "html_mb": round(out.stat().st_size / 2**20, 1),
        "cold_s": round(cold_s, 2),
        "cold_peak_mb": round(cold_mb),
        "warm_s": round(warm_s, 2),
        "warm_peak_mb": round(warm_mb),
        "cycles_s": round(cycles_s, 2),
        "warm_ratio": round(warm_s / cycles_s, 2),
        "peak_of_budget_ratio": round(warm_mb / BUDGET_MB, 3),
        "cold_peak_of_budget_ratio": round(cold_mb / BUDGET_MB, 3),
        "audit_peak_mb": round(audit_mb),
        "audit_cpu_s": round(audit_cpu, 1),
    }


def format_table(rows: list[dict]) -> str:
    cols = (
        "repo files html_mb cold_s cold_peak_mb warm_s warm_peak_mb cycles_s warm_ratio peak_of_budget_ratio"
        " cold_peak_of_budget_ratio audit_peak_mb audit_cpu_s"
    ).split()
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    wanted = argv or [*REAL, "synth10k"]
    precompile()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in wanted:
            if name == "synth10k":
                if not THREE.is_dir():
                    print("(three/src is not under bench/.cache/corpora: run bench/corpora.py; synth10k skipped)")
                    continue
                rows.append(bench_tree(name, synthetic(work / "synth10k"), work))
            elif (REPOS / name / "package.json").is_file():
                rows.append(bench_tree(name, REPOS / name, work))
            else:
                print(f"({name} is not under {REPOS}; skipped)")
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
