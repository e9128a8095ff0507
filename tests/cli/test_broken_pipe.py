"""A reader that stops early (`rofl ... | head`): the command ends quietly with 141, as a process that
SIGPIPE killed does in a shell, never with a traceback or click's exit 1 (which reads as 'no answer')."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_a_reader_that_stops_early_ends_the_command_quietly_with_141(tmp_path):
    program = tmp_path / "many.rofl"
    program.write_text("".join(f"p({i}).\n" for i in range(12_000)))
    proc = subprocess.Popen(
        [sys.executable, "-m", "rofl.cli", "ask", "p(X)", str(program)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    # the reader goes away before the answers come (as `head -1` does once it has its line; rofl
    # writes its rows in one write, which a pipe may take whole before a reader that reads first
    # closes, so the reader closes first: the process is still starting)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 141
    assert err == b""
