"""Writes never escape --out (issue 9): symlinks planted where the scan writes are refused or replaced, never followed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from rofl.engine.base import safe_write

from rofl.loading.factdir import open_folder
from tests.scanner.conftest import run_scan, scan_json
from tests.scanner.hostile import CLEAN, make_tree, snapshot

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="needs O_NOFOLLOW")


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    target = tmp_path / "victim.txt"
    target.write_text("precious\n")
    return target


def test_symlink_at_the_lock_is_refused_in_one_line(tmp_path, victim):
    src = make_tree(tmp_path / "src", CLEAN)
    out = tmp_path / "out"
    (out / "code").mkdir(parents=True)
    (out / ".lock").symlink_to(victim)
    run = run_scan(src, out)
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and ".lock" in run.stderr and "symlink" in run.stderr
    assert victim.read_text() == "precious\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFO semantics as on Linux")
def test_fifo_at_the_lock_is_refused(tmp_path):
    src = make_tree(tmp_path / "src", CLEAN)
    out = tmp_path / "out"
    (out / "code").mkdir(parents=True)
    os.mkfifo(out / ".lock")
    run = run_scan(src, out)
    assert run.exit_code == 2 and "not a regular file" in run.stderr


def test_symlinked_code_folder_is_refused(tmp_path):
    src = make_tree(tmp_path / "src", CLEAN)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "code").symlink_to(elsewhere)
    run = run_scan(src, out)
    assert run.exit_code == 2 and "symlink" in run.stderr
    assert list(elsewhere.iterdir()) == []


def test_symlink_at_a_fact_file_name_is_replaced_not_followed(tmp_path, victim):
    src = make_tree(tmp_path / "src", CLEAN)
    clean = tmp_path / "clean"
    scan_json(src, clean)
    names = [e["facts"] for e in json.loads((clean / "manifest.json").read_text())["files"].values()]
    out = tmp_path / "out"
    (out / "code").mkdir(parents=True)
    for name in names:  # the names are predictable: plant a link at each
        (out / name).symlink_to(victim)
    for fixed in ("manifest.json", ".scan-state.json", "preamble.rofl", "entries.rofl"):
        (out / fixed).symlink_to(victim)
    scan_json(src, out)
    assert victim.read_text() == "precious\n"
    for name in [*names, "manifest.json", ".scan-state.json", "preamble.rofl", "entries.rofl"]:
        assert not (out / name).is_symlink(), name
    assert snapshot(out) == snapshot(clean)


def test_planted_temporary_names_are_not_followed(tmp_path, victim):
    target = tmp_path / "f.json"
    for attempt in range(3):
        Path(f"{target}.{os.getpid()}.{attempt}.tmp").symlink_to(victim)
    safe_write.write_atomic(str(target), b"data")
    assert target.read_bytes() == b"data" and victim.read_text() == "precious\n"


def test_write_in_place_replaces_a_link(tmp_path, victim):
    link = tmp_path / "x.rofl"
    link.symlink_to(victim)
    safe_write.write_in_place(str(link), b"facts")
    assert not link.is_symlink() and link.read_bytes() == b"facts" and victim.read_text() == "precious\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_write_in_place_replaces_a_fifo(tmp_path):
    fifo = tmp_path / "x.rofl"
    os.mkfifo(fifo)
    safe_write.write_in_place(str(fifo), b"facts")
    assert fifo.read_bytes() == b"facts"


def test_read_nofollow_refuses_links_and_devices(tmp_path, victim):
    link = tmp_path / "l"
    link.symlink_to(victim)
    with pytest.raises(safe_write.UnsafePath):
        safe_write.read_nofollow(str(link), 100)
    if os.path.exists("/dev/zero"):
        assert safe_write.read_nofollow("/dev/zero", 100) is None


# -- leftovers of an interrupted scan ------------------------------------------------------------------


def test_leftover_fact_files_are_not_loaded_and_foreign_ones_are(tmp_path):
    src = make_tree(tmp_path / "src", CLEAN)
    out = tmp_path / "out"
    scan_json(src, out)
    leftover = out / "code" / "src_a.ts.0123456789ab-0123456789abcdef.rofl"
    leftover.write_text('src_file[code]("src/a.ts", "unterminated')  # half written
    foreign = out / "code" / "mine.rofl"
    foreign.write_text('src_file[code]("src/evil.ts", "000000000000").\n')
    folder = open_folder(out)
    loaded = {str(p) for p, _, _ in folder.sources}
    assert str(leftover) not in loaded and folder.leftovers == (str(leftover),)
    assert str(foreign) in loaded and folder.foreign == (str(foreign),)
    (warning,) = [w for w in folder.warnings if "interrupted" in w]
    assert "run `rofl scan`" in warning
    scan_json(src, out)  # the next scan removes the leftover, keeps nothing it did not write in code/
    assert not leftover.exists()
    assert open_folder(out).leftovers == ()


def test_ask_works_beside_a_half_written_leftover(tmp_path):
    from click.testing import CliRunner

    from rofl.commands.ask import command

    src = make_tree(tmp_path / "src", CLEAN)
    out = tmp_path / "out"
    scan_json(src, out)
    (out / "code" / "src_b.ts.0123456789ab-0123456789abcdef.rofl").write_text('src_func[code]("src/b.ts", "unterm')
    result = CliRunner().invoke(command, ["src_func[code](F, N, L)", "--facts", str(out)])
    assert result.exit_code == 0, result.output
    assert "interrupted scan" in result.output or "interrupted scan" in (result.stderr or "")


def test_a_live_holder_is_named_by_its_live_pid(tmp_path):
    from rofl.scanner import lock

    out = tmp_path / "out"
    out.mkdir()
    held = lock.acquire(str(out))
    try:
        with pytest.raises(lock.LockHeld) as refused:
            lock.acquire(str(out))
        assert refused.value.pid == str(os.getpid())
    finally:
        held.release()
    (out / ".lock").write_text("999999999\n")  # a dead scan's pid, no flock: taken over at once
    lock.acquire(str(out)).release()


def test_store_and_cache_writes_never_follow_a_planted_link(tmp_path, victim):
    from rofl.engine import persist
    from rofl.engine.store import Store

    from rofl.loading import cache

    (tmp_path / cache.CACHE_NAME).symlink_to(victim)
    cache.write(tmp_path, "key", Store(), ())
    assert victim.read_text() == "precious\n" and not (tmp_path / cache.CACHE_NAME).is_symlink()
    assert cache.read(tmp_path, "key") is not None
    (tmp_path / cache.CACHE_NAME).unlink()
    (tmp_path / cache.CACHE_NAME).symlink_to("/dev/zero" if os.path.exists("/dev/zero") else victim)
    assert cache.read(tmp_path, "key") is None  # a link is not read through
    store = tmp_path / "store.json"
    for attempt in range(3):  # the temporary names are predictable: plant links at them
        Path(f"{store}.{os.getpid()}.{attempt}.tmp").symlink_to(victim)
    persist.save(store, Store())
    assert victim.read_text() == "precious\n" and store.stat().st_size > 0


def test_audit_reports_leftovers_not_forged(tmp_path):
    from click.testing import CliRunner

    from rofl.commands.audit import command

    src = make_tree(tmp_path / "src", CLEAN)
    out = tmp_path / "out"
    scan_json(src, out)
    leftover = out / "code" / "src_c.ts.0123456789ab-0123456789abcdef.rofl"
    leftover.write_text('src_func[code]("src/c.ts", "x", 1).\nsrc_func[code]("src/c.ts", "unterm')
    result = CliRunner().invoke(command, ["--facts", str(out)])
    assert result.exit_code == 0, result.output
    assert "interrupted scan" in result.output and "run `rofl scan`" in result.output
    assert "forged" not in result.output.replace("forged-fact", "")
