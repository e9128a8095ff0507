"""`rofl scan --dask local:N` against `--jobs N` on the 20,000-file synthetic monorepo: cold scans in fresh
processes, the outputs compared byte for byte, and a measured curve over the cores here with its projection.

Every scan is a whole `rofl scan` process into an empty output folder (a cold scan: what a CI runner or a new
clone pays), timed from outside, so the Dask figures include importing Dask and starting the local cluster.
The fixed cost of a cluster (``local:N`` up and down with no work) is measured on its own, so that the curve
can be split as Amdahl's law has it: ``T(N) = S + P / N``, with ``S`` the part no worker takes (listing,
deciding, the commit, the cluster) and ``P`` the extraction the workers share.  From ``T(1)`` and ``T(2)``:
``P = 2 (T(1) - T(2))`` and ``S = 2 T(2) - T(1)``; beyond the cores here the projection is that formula, a
bound (it ignores the scheduler's per-task cost, about a millisecond per chunk, and the shared storage's
bandwidth, which a real cluster adds).

``python bench/dask_bench.py [FILES [SRC]]`` runs it alone (FILES defaults to 20,000; SRC, a tree to scan
instead of the generated one); ``bench/run.py dask`` as a section.  Without ``distributed`` installed (``pip install 'rofl[dask]'``) the section says so and skips.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
THREE = CACHE / "corpora" / "three" / "src"
FILES = 20_000
CORES = os.cpu_count() or 1
_STARTUP = """
import sys, time
from rofl.scanner.dask_address import DaskAddress
from rofl.scanner.dask_pool import connect
if __name__ == "__main__":
    with connect(DaskAddress.parse(sys.argv[1])) as client:
        pass
"""


def monorepo(files: int) -> Path:
    """A synthetic monorepo of ``files`` files of its own (bench/synthetic_monorepo.py's generator, into a folder
    no other benchmark edits: the scale section changes a file of its trees), or, where that generator is
    missing, copies of three/src as workspace packages."""
    try:
        from bench.synthetic_monorepo import GENERATOR_VERSION, generate
    except ImportError:
        return copies(files)
    dest = CACHE / "synthetic" / f"dask-{files}"
    stamp = dest.with_name(dest.name + ".stamp")
    if not (stamp.exists() and stamp.read_text() == GENERATOR_VERSION and dest.is_dir()):
        generate(files, dest)
        stamp.write_text(GENERATOR_VERSION)
    return dest


def copies(files: int) -> Path:
    """Copies of three/src as workspace packages until there are ``files`` files."""
    dest = CACHE / "synthetic" / f"copies-{files}"
    if dest.is_dir():
        return dest
    sources = sorted(p for p in THREE.rglob("*.js"))
    if not sources:
        raise SystemExit(f"bench/dask_bench.py: {THREE} is missing; run `python bench/run.py scan` once")
    written = copy = 0
    while written < files:
        package = dest / "packages" / f"p{copy:04d}"
        (package).mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": f"@copies/p{copy:04d}", "main": "src/Three.js"}))
        for source in sources[: files - written]:
            target = package / "src" / source.relative_to(THREE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            written += 1
        copy += 1
    (dest / "package.json").write_text(json.dumps({"name": "copies", "private": True, "workspaces": ["packages/*"]}))
    return dest


def timed_scan(src: Path, out: Path, *flags: str) -> tuple[float, dict[str, Any]]:
    """Wall seconds of one cold `rofl scan` process into the empty folder ``out``, and its JSON summary."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "rofl.cli", "scan", str(src), "--out", str(out), "--json", *flags],
        capture_output=True,
        text=True,
        env={**os.environ, "CI": "true"},
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bench/dask_bench.py: rofl scan {' '.join(flags)} failed: {done.stderr.strip()}")
    return seconds, json.loads(done.stdout)


def cluster_seconds(address: str) -> float:
    """Wall seconds of a process that imports Dask, starts the cluster at ``address`` and stops it."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "startup.py"
        script.write_text(_STARTUP)
        start = time.perf_counter()
        subprocess.run([sys.executable, str(script), address], check=True, capture_output=True)
        return time.perf_counter() - start


def folder_bytes(out: Path) -> dict[str, bytes]:
    """What two scans must agree on: every fact file, the manifest, preamble and entries."""
    found = {f"code/{p.name}": p.read_bytes() for p in (out / "code").iterdir()}
    for name in ("manifest.json", "preamble.rofl", "entries.rofl"):
        found[name] = (out / name).read_bytes()
    return found


def differences(a: Path, b: Path) -> list[str]:
    """The names whose bytes differ between two scans' folders (or that only one has)."""
    left, right = folder_bytes(a), folder_bytes(b)
    return sorted((set(left) ^ set(right)) | {k for k in set(left) & set(right) if left[k] != right[k]})


def amdahl(t1: float, t2: float) -> tuple[float, float]:
    """(S, P) of ``T(N) = S + P / N`` through the two measured points (S never below 0)."""
    parallel = max(0.0, 2 * (t1 - t2))
    return max(0.0, t1 - parallel), parallel


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = argv if argv is not None else []
    files = int(args[0]) if args and args[0].isdigit() else FILES
    if importlib.util.find_spec("distributed") is None:
        print("distributed is not installed (pip install 'rofl[dask]'): the Dask section is skipped\n")
        return []
    src = Path(args[1]) if len(args) > 1 else monorepo(files)
    rows: list[dict[str, Any]] = []
    label = f"{files:,} files"
    with tempfile.TemporaryDirectory(prefix="rofl-dask-bench-") as tmp:
        outs = {name: Path(tmp) / name for name in ("jobs1", "jobs2", "dask1", "dask2")}
        # each pair side by side in time, so that a change in the machine's load touches both alike
        jobs2, summary = timed_scan(src, outs["jobs2"], "--jobs", "2")
        dask2, _ = timed_scan(src, outs["dask2"], "--dask", "local:2")
        dask1, _ = timed_scan(src, outs["dask1"], "--dask", "local:1")
        jobs1, _ = timed_scan(src, outs["jobs1"], "--jobs", "1")
        start1, start2 = cluster_seconds("local:1"), cluster_seconds("local:2")
        differ = differences(outs["jobs2"], outs["dask2"]) + differences(outs["jobs1"], outs["dask1"])
    scanned = summary["files"]
    rows.append(
        {
            "workload": f"{label}: --dask local:2 against --jobs 2",
            "dask_s": round(dask2, 2),
            "jobs_s": round(jobs2, 2),
            "ratio": round(dask2 / jobs2, 3),
            "identical": not differ,
        }
    )
    rows.append(
        {
            "workload": f"{label}: --dask local:1 against --jobs 1",
            "dask_s": round(dask1, 2),
            "jobs_s": round(jobs1, 2),
            "ratio": round(dask1 / jobs1, 3),
            "identical": not differ,
        }
    )
    rows.append(
        {
            "workload": f"{label}: --dask local:2 against local:1",
            "local1_s": round(dask1, 2),
            "local2_s": round(dask2, 2),
            "speedup": round(dask1 / dask2, 3),
            "cluster_start_s": f"{start1:.2f} / {start2:.2f}",
        }
    )
    serial, parallel = amdahl(dask1, dask2)
    print(f"{scanned} files scanned; outputs of --dask and --jobs: {len(differ)} file(s) differ {differ[:6]}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {CORES} cores\n")
    print("| workload | Dask | local | ratio | identical |\n|---|---|---|---|---|")
    for row in rows[:2]:
        print(f"| {row['workload']} | {row['dask_s']} s | {row['jobs_s']} s | {row['ratio']} | {row['identical']} |")
    print(
        f"\nMeasured curve: local:1 {dask1:.1f} s, local:2 {dask2:.1f} s (speed-up {dask1 / dask2:.2f}); a cluster "
        f"alone (import, start, stop) {start1:.1f} s with one worker, {start2:.1f} s with two."
    )
    if dask2 >= dask1:
        print(
            f"local:2 was no faster than local:1 in this run: the cores were busy (load average "
            f"{os.getloadavg()[0]:.1f} on {CORES}), so no curve can be read from it; the projection below is void."
        )
    print(f"Amdahl through both points: S = {serial:.1f} s no worker takes, P = {parallel:.1f} s of extraction.")
    print("| workers | projected | speed-up over local:1 |\n|---|---|---|")
    for workers in (1, 2, 4, 8, 16, 32, 64):
        projected = serial + parallel / workers
        kind = "measured" if workers <= min(2, CORES) else "projected"
        print(f"| {workers} | {projected:.1f} s ({kind}) | {dask1 / projected:.2f} |")
    print(
        f"\nThe limit, however many workers: S = {serial:.1f} s ({dask1 / serial if serial else float('inf'):.1f}x).\n"
    )
    return rows


if __name__ == "__main__":
    for line in main(sys.argv[1:]):
        print(line)
