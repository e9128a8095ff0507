"""The audit section of `make bench`: `rofl audit --reextract` beside a cold scan of three/src.

Rows: a cold scan (the reference), audit over the facts (reusing its judgement of each fact file,
rofl.loading.audit_store), audit with a signature check (--public-key), and audit with re-extraction (--src
--reextract), each the median wall time of three runs in a fresh process; then what re-extraction
adds to an audit (the last row minus the plain audit), which issue 10 bounds by a cold scan.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROFL = [sys.executable, "-m", "rofl.cli"]


def _timed(args: list[str], env: dict | None = None, before=None) -> float:
    times = []
    for _ in range(3):
        if before is not None:
            before()
        start = time.perf_counter()
        proc = subprocess.run(ROFL + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"bench/audit_bench.py: rofl {' '.join(args)} failed: {proc.stderr.decode()[:200]}")
    return statistics.median(times)


def main() -> list[dict]:
    from bench.corpora import ensure

    three = next(c for c in ensure() if c.name == "three")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(ROFL + ["keygen", "--out", str(work / "k")], check=True, stdout=subprocess.DEVNULL)
        env = {**os.environ, "ROFL_BENCH_KEY": (work / "k.key").read_text()}
        facts = work / "facts"

        def clean() -> None:
            shutil.rmtree(facts, ignore_errors=True)

        cold = _timed(["scan", str(three.src), "--out", str(facts), "--sign-key", "ROFL_BENCH_KEY"], env, clean)
        rows = [("cold scan (signed)", cold)]
        rows.append(("audit --facts", _timed(["audit", "--facts", str(facts)])))
        rows.append(
            (
                "audit --facts --public-key",
                _timed(["audit", "--facts", str(facts), "--public-key", str(work / "k.pub")]),
            )
        )
        rows.append(
            (
                "audit --facts --src --reextract",
                _timed(["audit", "--facts", str(facts), "--src", str(three.src), "--reextract"]),
            )
        )
    rows.append(("re-extraction alone (audit --reextract minus audit)", rows[3][1] - rows[1][1]))
    print("| three/src | wall time (median of 3) | vs cold scan |")
    print("|---|---:|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} s | {seconds / cold:.2f}x |")
    return [{"name": name, "cold_scan_ratio": seconds / cold} for name, seconds in rows[1:]]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
