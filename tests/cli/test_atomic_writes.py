"""Atomic writes have one home (engine.safe_write.write_atomic): a failed write leaves the old file whole and no
temporary file behind, for every writer that goes through it (store, signature, keys, adapter answer cache)."""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.base import safe_write


def _names(folder) -> set[str]:
    return set(os.listdir(folder))


@settings(max_examples=25, deadline=None)
@given(old=st.binary(max_size=200), new=st.binary(max_size=5000))
def test_a_write_replaces_the_whole_file_and_leaves_nothing_else(tmp_path_factory, old, new):
    folder = tmp_path_factory.mktemp("w")
    target = folder / "f.bin"
    target.write_bytes(old)
    safe_write.write_atomic(str(target), new)
    assert target.read_bytes() == new
    assert _names(folder) == {"f.bin"}


def test_a_write_that_fails_while_writing_keeps_the_old_file_and_removes_its_temporary(tmp_path):
    target = tmp_path / "manifest.json"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        safe_write.write_atomic(str(target), object())  # type: ignore[arg-type]  # not bytes: the write fails
    assert target.read_bytes() == b"old"
    assert _names(tmp_path) == {"manifest.json"}


def test_a_write_that_fails_at_the_rename_removes_its_temporary(tmp_path):
    (tmp_path / "taken").mkdir()  # a folder where the file should go: the rename fails
    with pytest.raises(OSError):
        safe_write.write_atomic(str(tmp_path / "taken"), b"data")
    assert _names(tmp_path) == {"taken"}
    assert (tmp_path / "taken").is_dir()


def test_mode_is_the_new_files_permissions(tmp_path):
    safe_write.write_atomic(str(tmp_path / "k"), b"secret", 0o600)
    assert stat.S_IMODE(os.stat(tmp_path / "k").st_mode) == 0o600


@pytest.mark.parametrize("failing_key", ["ci.key", "ci.pub"])
def test_keygen_that_cannot_write_is_one_line_and_leaves_no_key_and_no_temporary(
    rofl, tmp_path, monkeypatch, failing_key
):
    """A write that fails (a full disk, a read-only folder) is exit 2 with one line; neither half of the pair stays."""
    real = safe_write.write_atomic

    def failing(path: str, data: bytes, mode: int = 0o644) -> None:
        if path.endswith(failing_key):
            os.mkdir(path)  # the rename over a folder fails like a full disk would
        real(path, data, mode)

    monkeypatch.setattr("rofl.loading.signing.write_atomic", failing)
    code, out, err = rofl("keygen", "--out", tmp_path / "ci")
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and "cannot write" in err and "--out" in err, err
    assert _names(tmp_path) == {failing_key}  # only the folder the test planted: no key, no temporary


def test_the_adapter_answer_cache_leaves_no_temporary_when_its_entry_cannot_be_written(tmp_path):
    from rofl.adapters.answer_cache import AnswerCache

    cache = AnswerCache(tmp_path / "cache")
    source = tmp_path / "read.txt"
    source.write_text("x")
    book, want = _book_and_want()
    target = cache._path("scope", book, want)
    target.parent.mkdir(parents=True)
    target.mkdir()  # a folder where the entry should go: the write fails, silently (a cache only)
    cache.put("scope", book, want, [str(source)], ["fact(a)."])
    assert _names(target.parent) == {target.name}


def _book_and_want():
    from rofl.adapters.books import Book
    from rofl.adapters.wants import Want

    return Book("files", "exec", "./answer.sh", "v1", 5.0, False), Want("lines", ("a.txt",))
