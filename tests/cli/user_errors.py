"""The user-error contract of every command, and the helpers its tests share.

The contract (README, "Commands"): every error a user can cause (bad syntax, a missing file, a bad flag,
unreadable input, the wrong kind of file) prints ONE line on stderr naming the problem and exits 2, never a
Python traceback.  Exit 1 is only for findings (audit rows, `why` of a fact that does not hold, `whynot` of
one that holds).

In-process calls go through the ``rofl`` fixture (click's CliRunner with ``catch_exceptions=False``), so a
traceback surfaces as an exception in the test.  The REPL and anything that depends on real process streams
run as ``python -m rofl.cli`` subprocesses (``cli`` below).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES, ROOT

TC = EXAMPLES / "tc.rofl"
COUNTER = EXAMPLES / "counter.rofl"
BIG = "9" * 5000  # over CPython's 4300-digit int/str conversion limit
SENSORS = (EXAMPLES / "sensors.rofl", "--load-as", "sensor_net", EXAMPLES / "sensor_readings.rofl")


def assert_user_error(result, *needles: str) -> str:
    """Exit 2, exactly one line on stderr, no traceback, and every needle in that line."""
    code, out, err = result
    assert "Traceback" not in out + err
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def cli(*args, input: str | bytes | None = None, env: dict | None = None, cwd: Path = ROOT, timeout: float = 60):
    """Run ``python -m rofl.cli ARGS`` as a real process (text mode unless ``input`` is bytes)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    text = not isinstance(input, bytes)
    return subprocess.run(
        [sys.executable, "-m", "rofl.cli", *[os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]],
        input=input,
        capture_output=True,
        text=text,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        errors="surrogateescape" if text else None,  # file names that are not UTF-8 come back as their bytes
    )


def repl(lines: list[str], *args, env: dict | None = None):
    return cli("repl", *args, input="\n".join(lines) + "\n", env=env)


def write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return path


def first_fact_file(facts: Path) -> Path:
    return sorted((facts / "code").glob("*.rofl"))[0]


def edit_manifest(facts: Path, change) -> None:
    path = facts / "manifest.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
