"""`rofl server` on three/src: requests per second and median latency of `impact`, beside a fresh `rofl impact` process.

The same question (`impact --changed FILE`, the command line's defaults: rescan first) is asked of a
fresh `rofl impact` process (warm compiled cache, the best case of the command line) and of a running
`rofl server` over the same fact folder (warm: its store loaded), in the same run; the answers must be
equal.  Reported: median seconds per question each way and their ratio, and requests per second for
sequential and for 8 concurrent clients.  Without three/src under bench/.cache/corpora the section says
so and measures nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scan_compare import rofl_argv

THREE = Path(__file__).resolve().parent / ".cache" / "corpora" / "three" / "src"
CHANGED = ("math/Vector3.js", "core/Object3D.js", "renderers/WebGLRenderer.js", "constants.js", "math/MathUtils.js")
SEQUENTIAL = 60
CONCURRENT = 200
CLIENTS = 8


def _fresh(facts: Path, changed: str, extra: tuple[str, ...]) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run(
        [*rofl_argv(), "impact", "--facts", str(facts), "--changed", changed, "--json", *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started, json.loads(done.stdout)


def start_server(facts: Path, src: Path) -> tuple[subprocess.Popen, str]:
    """A `rofl server` over ``facts`` on a free port, and its URL once it listens."""
    process = subprocess.Popen(
        [*rofl_argv(), "server", "--facts", str(facts), "--src", str(src), "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            return process, found.group(1)
    raise RuntimeError("rofl server did not start")


def _row(name: str, fresh: list[float], served: list[float], rps: float, rps_parallel: float) -> dict:
    f, s = statistics.median(fresh), statistics.median(served)
    return {"question": name, "fresh_s": f, "server_s": s, "speedup": f / s, "rps": rps, "rps_8": rps_parallel}


def main() -> list[dict]:
    import httpx

    if not THREE.is_dir():
        print(f"three/src is absent ({THREE}): the server benchmark needs it; run `make bench` once to fetch it")
        return []
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        facts = Path(tmp) / "facts"
        subprocess.run([*rofl_argv(), "scan", str(THREE), "--out", str(facts)], check=True, capture_output=True)
        _fresh(facts, CHANGED[0], ())  # the compiled cache, written once
        process, url = start_server(facts, THREE)
        try:
            with httpx.Client(base_url=url, timeout=120) as client:
                for extra, label in (((), "impact"), (("--no-rescan",), "impact --no-rescan")):
                    args_extra = {"no_rescan": True} if extra else {}
                    fresh: list[float] = []
                    served: list[float] = []
                    for changed in CHANGED:
                        seconds, expected = _fresh(facts, changed, extra)
                        fresh.append(seconds)
                        body = {"changed": [changed], **args_extra}
                        answer = client.post("/commands/impact", json=body).json()  # warm-up
                        if answer["result"]["output"]["affected"] != expected["affected"]:
                            raise RuntimeError(f"the server's answer for {changed} differs from the command line's")
                    started = time.perf_counter()
                    for i in range(SEQUENTIAL):
                        t = time.perf_counter()
                        response = client.post(
                            "/commands/impact", json={"changed": [CHANGED[i % len(CHANGED)]], **args_extra}
                        )
                        response.raise_for_status()
                        served.append(time.perf_counter() - t)
                    rps = SEQUENTIAL / (time.perf_counter() - started)
                    rps_parallel = asyncio.run(_parallel(url, args_extra))
                    rows.append(_row(label, fresh, served, rps, rps_parallel))
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"three/src, {len(CHANGED)} changed files; a fresh process per question vs one warm `rofl server`\n")
    print(
        "| question | fresh `rofl impact` (median s) | through the server (median s) | faster | req/s (1 client) | req/s (8 clients) |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['question']} | {r['fresh_s']:.3f} | {r['server_s']:.4f} | {r['speedup']:.1f}x | {r['rps']:.1f} | {r['rps_8']:.1f} |"
        )
    return rows


async def _parallel(url: str, extra: dict) -> float:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=300) as client:
        queue = list(range(CONCURRENT))

        async def worker() -> None:
            while queue:
                i = queue.pop()
                response = await client.post("/commands/impact", json={"changed": [CHANGED[i % len(CHANGED)]], **extra})
                response.raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CLIENTS)))
        return CONCURRENT / (time.perf_counter() - started)


if __name__ == "__main__":
    os.environ.setdefault("CI", "1")
    main()
