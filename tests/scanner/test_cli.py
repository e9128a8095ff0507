"""The `rofl scan` command line: output forms, user errors as one line with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.scanner.conftest import run_scan

REQUIRED_KEYS = {"files", "parsed", "reused", "removed", "errors", "seconds", "out"}


def test_text_summary_is_one_line(repo, out):
    src = repo({"a.ts": "export {};\n"})
    run = run_scan(src, out)
    assert run.exit_code == 0
    (line,) = run.stdout.strip().splitlines()
    for word in ("1 files seen", "1 parsed", "0 reused", "0 removed", "0 errors"):
        assert word in line
    assert line.rstrip().endswith(str(out)) and "s ->" in line


def test_json_is_exactly_one_object_with_the_keys(repo, out):
    src = repo({"a.ts": "export {};\n"})
    run = run_scan(src, out, "--json")
    data = json.loads(run.stdout)
    assert REQUIRED_KEYS <= set(data)
    assert data["out"] == str(out) and isinstance(data["seconds"], float)


def test_user_errors_are_one_line_and_exit_2(repo, out, tmp_path):
    src = repo({"a.ts": ""})
    cases = [
        [str(tmp_path / "nope"), "--out", str(out)],
        [str(src / "a.ts"), "--out", str(out)],
        [str(src), "--out", str(out), "--jobs", "0"],
        [str(src), "--out", str(out), "--max-bytes", "0"],
        [str(src), "--out", str(out), "--bogus"],
        [str(src), "--out", str(out), "--jobs", "many"],
        [],
        [str(src), "--out", str(src / "a.ts")],
    ]
    from click.testing import CliRunner

    from rofl.commands.scan import command

    for args in cases:
        result = CliRunner().invoke(command, args)
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2, (args, result.stderr, result.exception)
        assert len(lines) == 1 and lines[0].startswith("rofl scan: ") and ", " in lines[0], (args, lines)
        assert "Traceback" not in result.stderr


def test_real_process_has_no_progress_bar_when_piped(repo, out):
    src = repo({f"f{i}.ts": f"export const v{i} = 1;\n" for i in range(5)})
    env = dict(os.environ)
    env.pop("CI", None)
    proc = subprocess.run(
        [sys.executable, "-c", "from rofl.cli import main; main()", "scan", str(src), "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert json.loads(proc.stdout)["parsed"] == 5
    missing = subprocess.run(
        [sys.executable, "-c", "from rofl.cli import main; main()", "scan", str(src / "missing")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr


def test_progress_bar_only_on_a_terminal_without_ci(monkeypatch):
    import io

    from rofl.scanner import progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("CI", raising=False)
    assert progress.wanted(Tty()) and not progress.wanted(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not progress.wanted(Tty())
    stream = Tty()
    bar = progress.ProgressBar("scanning", 4, stream)
    bar.advance(4)
    bar.close()
    assert "4/4" in stream.getvalue()


def test_full_disk_is_one_line_and_keeps_the_previous_manifest(repo, out, monkeypatch):
    import errno

    from rofl.scanner import factfile

    src = repo({"a.ts": "export const a = 1;\n"})
    assert run_scan(src, out).exit_code == 0
    before = (out / "manifest.json").read_bytes()
    (src / "a.ts").write_text("export const a = 2;\n")

    def full(out_dir: str, name: str, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", os.path.join(out_dir, name))

    monkeypatch.setattr(factfile, "write_fact_file", full)
    run = run_scan(src, out)
    assert run.exit_code == 2
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("rofl scan: cannot write ") and "No space left" in line
    assert (out / "manifest.json").read_bytes() == before
