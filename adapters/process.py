"""Adapter processes: started in a session of their own (so a whole process group can be stopped) and killed as a group."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping


def spawn(argv: list[str], environ: Mapping[str, str], stderr: int = subprocess.PIPE) -> subprocess.Popen:
    """Start ``argv`` with pipes on stdin and stdout, in a new session, with exactly ``environ``."""
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=dict(environ),
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the process and every process it started (its group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
