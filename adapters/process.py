"""Adapter processes: each runs under the supervisor ``reaper.py`` (so nothing it starts, setsid or not,
outlives it), in a session of its own, with exactly the environment it is given; and stopping them."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REAPER = str(Path(__file__).with_name("reaper.py"))
GRACE_S = 2.0  # how long the supervisor may take to kill and reap the adapter's processes when asked


def resolve(program: str, environ: Mapping[str, str]) -> str | None:
    """The file ``program`` (argv[0]) runs, found on the adapter's own PATH; None when there is none."""
    return shutil.which(program, path=environ.get("PATH", os.defpath))


def spawn(argv: list[str], environ: Mapping[str, str], stderr: int = subprocess.PIPE) -> subprocess.Popen:
    """Start ``argv`` under the supervisor, with pipes on stdin and stdout, in a new session, with exactly
    ``environ``; FileNotFoundError when argv[0] is not a program on that PATH."""
    program = resolve(argv[0], environ)
    if program is None:
        raise FileNotFoundError(2, "No such file or directory", argv[0])
    return subprocess.Popen(
        [sys.executable, "-I", "-S", REAPER, str(os.getpid()), program, *argv[1:]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=dict(environ),
        start_new_session=True,
    )


def stop(proc: subprocess.Popen) -> None:
    """Stop the process and every process it started: the supervisor kills and reaps them all (any
    session); should it not end within GRACE_S, its process group is killed."""
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=GRACE_S)
        return
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()
