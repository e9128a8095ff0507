"""`rofl scan SRC --watch` as a user runs it: a real process, files changed under it, Ctrl-C (SIGINT)."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rofl.watch import relevant

WAIT = 30.0  # seconds: bound on every wait (a loaded CI machine), never a timing assertion


class Watcher:
    """``rofl scan SRC --out OUT --watch --json`` in a subprocess, its stdout lines read on a thread."""

    def __init__(self, src: Path, out: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rofl.cli", "scan", str(src), "--out", str(out), "--watch", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def summary(self, timeout: float = WAIT) -> dict:
        return json.loads(self.lines.get(timeout=timeout))

    def quiet_for(self, seconds: float) -> bool:
        try:
            self.lines.get(timeout=seconds)
        except queue.Empty:
            return True
        return False

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()


def manifest_files(out: Path) -> set[str]:
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["files"].values():  # every fact file it names is there
        assert (out / entry["facts"]).is_file()
    return set(manifest["files"])


def edit_until_seen(watcher: Watcher, change, wanted) -> dict:
    """Make ``change``, then read summaries until one satisfies ``wanted`` (bounded)."""
    change()
    deadline = time.monotonic() + WAIT
    while True:
        summary = watcher.summary(timeout=max(0.1, deadline - time.monotonic()))
        if wanted(summary):
            return summary


def test_watch_keeps_the_manifest_current_and_ctrl_c_leaves_it_valid(tmp_path):
    src, out = tmp_path / "src", tmp_path / "facts"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    watcher = Watcher(src, out)
    try:
        first = watcher.summary()
        assert first["files"] == 1 and manifest_files(out) == {"a.ts"}
        added = edit_until_seen(
            watcher,
            lambda: (src / "b.ts").write_text('import { a } from "./a";\nexport const b = a;\n'),
            lambda s: s["files"] == 2,
        )
        assert added["parsed"] == 1 and added["reused"] == 1  # incremental: a.ts is not parsed again
        assert manifest_files(out) == {"a.ts", "b.ts"}
        edit_until_seen(watcher, lambda: (src / "a.ts").unlink(), lambda s: s["removed"] == 1)
        assert manifest_files(out) == {"b.ts"}
    finally:
        code, err = watcher.stop()
    assert code == 0, err
    assert "stopped" in err and "Traceback" not in err
    assert manifest_files(out) == {"b.ts"}
    from tests.cli.impact_fixtures import run

    code, text, _ = run("ask", "src_unresolved[code](F, S)", "--facts", out)
    assert code == 0 and '"./a"' in text  # the facts load and say b.ts's import is gone


@pytest.mark.slow
def test_a_fact_folder_inside_src_does_not_retrigger_scans(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    out = src / "facts"
    watcher = Watcher(src, out)
    try:
        watcher.summary()
        edit_until_seen(watcher, lambda: (src / "a.ts").write_text("export const a = 2;\n"), lambda s: s["parsed"] == 1)
        assert watcher.quiet_for(1.0)  # the scan's own writes into src/facts are no change of the sources
        (src / "notes.md").write_text("not a source\n")
        assert watcher.quiet_for(1.0)  # a batch that changes no source prints no summary
    finally:
        code, err = watcher.stop()
    assert code == 0, err
    assert "notes.md: no source changed" in err


@pytest.mark.parametrize(
    ("changed", "expected"),
    [("/r/src/a.ts", "a.ts"), ("/r/src/facts/code/x.rofl", None), ("/r/other/a.ts", None), ("/r/src/d/e.ts", "d/e.ts")],
)
def test_which_changes_count(changed, expected):
    assert relevant(changed, Path("/r/src"), Path("/r/src/facts")) == expected


@pytest.mark.slow
def test_ctrl_c_while_a_batch_is_being_scanned_leaves_a_complete_scan(tmp_path):
    src, out = tmp_path / "src", tmp_path / "facts"
    src.mkdir()
    for i in range(150):
        (src / f"m{i}.ts").write_text(f'import {{ x }} from "./m{(i + 1) % 150}";\nexport const v{i} = x;\n')
    watcher = Watcher(src, out)
    try:
        watcher.summary()
        for i in range(150):  # every file changes: the batch takes a while to scan
            (src / f"m{i}.ts").write_text(f"export const x = {i};\n")
        time.sleep(0.45)  # the batch closes after 300 ms of quiet; Ctrl-C lands before, during or after its scan
    finally:
        code, err = watcher.stop()
    assert code == 0, err
    assert "Traceback" not in err
    files = manifest_files(out)  # names only fact files that are there
    assert files == {f"m{i}.ts" for i in range(150)}
    from tests.cli.impact_fixtures import run

    code, text, err = run("audit", "--facts", out)
    assert code == 0, text + err  # every fact file matches the digest the manifest recorded
