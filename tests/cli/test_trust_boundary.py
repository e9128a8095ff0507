"""The trust boundary of the command line (issue 19): rofl runs in CI over repositories it does not trust.

What it writes for a user never goes through a link the repository planted; what it reads is a
regular file within a bound (a FIFO never hangs it, a link to /dev/zero never exhausts memory); one
damaged fact file neither makes every command unusable nor survives impact's rescan; a baseline entry
the audit could not have written is refused; a second Ctrl-C is an interruption (130), not findings;
and impact's "did you mean" never lists names through a link out of SRC.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_baseline import (
    audit,
    project,  # noqa: F401 - the fixture
)

HANG = 20  # seconds: a command that takes longer than this over a FIFO is hanging on it
MEMORY = 3 << 30  # address space of a command process: reading /dev/zero ends in MemoryError, not the machine's OOM


def _bounded() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*args: object, timeout: float = HANG) -> tuple[int, str, str]:
    """``rofl ARGS`` as a process with bounded memory; a hang is a failure, never a stuck suite."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "rofl.cli", *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            preexec_fn=_bounded,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"rofl {' '.join(map(str, args))} hangs")
    return proc.returncode, proc.stdout, proc.stderr


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- 4: a file a user names for output is never written through a planted link -------------------------


def test_report_out_replaces_a_planted_symlink_and_leaves_its_target(rofl, tiny, tmp_path):
    _, facts = tiny
    victim = tmp_path / "victim.txt"
    victim.write_text("the CI user's file\n")
    planted = tmp_path / "rofl-report.html"
    planted.symlink_to(victim)  # what a pull request can commit
    code, out, err = rofl("report", "--facts", facts, "--out", planted)
    assert code == 0, err
    assert victim.read_text() == "the CI user's file\n"
    assert not planted.is_symlink() and planted.read_text().lstrip().lower().startswith("<!doctype html")


# -- 7: every file a user names is read only when it is a regular file within a bound ---------------------


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "planted.rofl"
    os.mkfifo(path)
    return path


def test_a_fifo_as_rules_is_refused_in_one_line(tiny, fifo):
    code, _, err = run("ask", "--facts", tiny[1], "--rules", fifo, "dependency[code](A, B)")
    assert code == 2 and str(fifo) in one_line(err) and "not a regular file" in err


@pytest.mark.parametrize("command", ["run", "ask"])
def test_a_fifo_as_a_program_file_is_refused_in_one_line(fifo, command):
    args = ["run", fifo] if command == "run" else ["ask", "p(X)", fifo]
    code, _, err = run(*args)
    assert code == 2 and str(fifo) in one_line(err) and "not a regular file" in err


def test_a_link_to_dev_zero_as_a_program_file_is_refused_without_reading_it(tmp_path):
    link = tmp_path / "zero.rofl"
    link.symlink_to("/dev/zero")
    code, _, err = run("run", link)
    assert code == 2 and str(link) in one_line(err) and "not a regular file" in err


def test_a_fifo_as_the_public_key_is_refused_in_one_line(tiny, tmp_path):
    key = tmp_path / "ci.pub"
    os.mkfifo(key)
    code, _, err = run("ask", "--facts", tiny[1], "--public-key", key, "dependency[code](A, B)")
    assert code == 2 and str(key) in one_line(err) and "not a regular file" in err


def test_a_fifo_as_the_baseline_is_refused_in_one_line(tiny, tmp_path):
    baseline = tmp_path / "baseline.json"
    os.mkfifo(baseline)
    code, _, err = run("audit", "--facts", tiny[1], "--baseline", baseline)
    assert code == 2 and str(baseline) in one_line(err) and "not a regular file" in err


def test_a_fifo_as_a_store_is_refused_in_one_line(tmp_path):
    store = tmp_path / "world.store"
    os.mkfifo(store)
    code, _, err = run("run", "--store", store)
    assert code == 2 and str(store) in one_line(err) and "not a regular file" in err


def test_a_fifo_as_a_rofl_md_world_is_refused(tmp_path):
    from rofl.engine.base.errors import RoflError

    from rofl.rounds import load_world

    world = tmp_path / "world.rofl.md"
    os.mkfifo(world)
    with pytest.raises(RoflError, match="not a regular file"):  # an open that blocked would never return
        _in_thread(lambda: load_world([world]))


def _in_thread(fn):
    """Run ``fn`` with a bound on its time (a blocked open would otherwise hang the suite)."""
    import threading

    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(HANG)
    if worker.is_alive():
        pytest.fail("blocked on a FIFO")
    if "error" in box:
        raise box["error"]
    return box.get("value")


# -- 16: one damaged fact file neither breaks every command nor survives impact's rescan -----------------


def _damage(facts: Path, how: str) -> Path:
    path = next((facts / "code").glob("a.ts.*.rofl"))
    if how == "syntax":
        path.write_text(path.read_text() + "src_import(\n")
    else:
        path.write_bytes(path.read_bytes() + b"-- \xff\xfe\n")
    return path


@pytest.mark.parametrize("how", ["syntax", "encoding"])
def test_a_damaged_fact_file_is_named_with_its_fix_and_the_rest_still_answers(rofl, facts_copy, how):
    damaged = _damage(facts_copy, how)
    code, out, err = rofl("ask", "--facts", facts_copy, "src_file[code](F, H)")
    assert code == 0, err
    assert '"b.ts"' in out  # the undamaged file's facts answer
    line = next(x for x in err.splitlines() if str(damaged) in x and "damaged" in x)
    assert f"--out {facts_copy} --verify" in line  # the exact command that re-extracts it


def test_impact_rescan_repairs_a_damaged_fact_file(rofl, facts_copy):
    _damage(facts_copy, "syntax")
    code, out, err = rofl("impact", "--facts", facts_copy, "--changed", "b.ts", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert [a["file"] for a in report["affected"]] == ["a.ts"] and report["incomplete"] == []
    code, out, err = rofl("ask", "--facts", facts_copy, "dependency[code](A, B)")
    assert code == 0 and "damaged" not in err and '"a.ts"' in out  # the fact file was re-extracted


def test_scan_verify_re_extracts_and_names_the_damaged_fact_files(rofl, tiny, facts_copy):
    damaged = _damage(facts_copy, "syntax")
    code, out, err = rofl("scan", tiny[0], "--out", facts_copy, "--verify")
    assert code == 0, err
    assert "re-extracted 1 damaged fact file" in err and '"a.ts"' in err
    assert not damaged.exists() or "src_import(\n" not in damaged.read_text()
    assert rofl("ask", "--facts", facts_copy, "dependency[code](A, B)")[0] == 0


# -- 17: a baseline entry the audit could never have written is refused ----------------------------------


def test_a_baseline_entry_without_its_fact_is_refused_in_one_line(rofl, project, tmp_path):  # noqa: F811
    baseline = tmp_path / "baseline.json"
    code, _, err = audit(rofl, project, "--write-baseline", baseline)
    assert code == 0, err
    doc = json.loads(baseline.read_text())
    assert doc["findings"] and audit(rofl, project, "--baseline", baseline)[0] == 0  # what it wrote is accepted
    plain = doc["findings"][0]
    del plain["fact"]  # every finding's entry has its fact
    baseline.write_text(json.dumps(doc))
    code, out, err = audit(rofl, project, "--baseline", baseline)
    line = one_line(err)
    assert code == 2 and str(baseline) in line and repr(plain["key"]) in line and "--write-baseline" in line


# -- 18: a second Ctrl-C in `scan --watch` is an interruption ----------------------------------------------

WATCH = """
import sys, time, watchfiles
def watching(*args, **kwargs):  # the watcher, busy (as in a scan) when the Ctrl-Cs arrive
    print("watching", file=sys.stderr, flush=True)
    while True:
        time.sleep(0.05)
        yield from ()
watchfiles.watch = watching
from rofl.cli import main
main(["scan", sys.argv[1], "--out", sys.argv[2], "--watch"])
"""


def test_a_double_ctrl_c_in_scan_watch_exits_130(tmp_path):
    src, out = tmp_path / "src", tmp_path / "facts"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", WATCH, str(src), str(out)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + HANG
        while "watching" not in proc.stderr.readline():  # the signal handlers are in place
            assert time.monotonic() < deadline and proc.poll() is None
        proc.send_signal(signal.SIGINT)  # stop after the running scan
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)  # stop now
        code = proc.wait(timeout=HANG)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 130, proc.stderr.read()


# -- 20: impact's suggestions come from inside SRC only -------------------------------------------------------


def test_impact_suggests_no_name_through_a_link_out_of_src(rofl, tmp_path):
    src, facts, outside = tmp_path / "src", tmp_path / "facts", tmp_path / "private"
    src.mkdir()
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0\n")
    (src / "a.ts").write_text("export const a = 1;\n")
    (src / "etc").symlink_to(outside, target_is_directory=True)  # what a repository can commit
    assert rofl("scan", src, "--out", facts)[0] == 0
    code, _, err = rofl("impact", "--facts", facts, "--changed", "etc/passwdd")
    assert code == 2 and "etc/passwdd" in err
    suggested = err.partition("did you mean")[2].partition("?")[0]
    assert "passwd" not in suggested, err  # a name in the folder outside SRC, listed through the link
    shutil.rmtree(outside)
