"""The kept pure rows: a rescan's files go to a journal, the rows file is written again only when the
journal or the garbage outgrow their bounds, and every read gives the rows of exactly the wanted files."""

from __future__ import annotations

import marshal
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from rofl.loading import cachemac, pure_rows

SECRET = b"k" * 32


def text(name: str, version: int = 0) -> str:
    return f'src_file[code]("{name}", "js").\nsrc_in_dir[code]("{name}", "v{version}").\n'


def read(root, names, secret, parsed, versions=None):
    versions = versions or {}

    def read_text(path, digest):
        parsed.append(path)
        return text(path, versions.get(path, 0))

    wanted = [(n, f"d-{n}-{versions.get(n, 0)}") for n in names]
    return pure_rows.rows_by_digest(root, wanted, read_text, secret)


def files_of(kept) -> list[str]:
    return sorted(rows[0][1] for rows in kept.parts("src_file"))


def dirs_of(kept) -> dict[str, str]:
    return {rows[0][1]: rows[0][2] for rows in kept.parts("src_in_dir")}


def test_a_rescan_journals_its_files_and_leaves_the_rows_file(tmp_path):
    parsed: list[str] = []
    names = [f"f{i}" for i in range(100)]
    assert files_of(read(tmp_path, names, SECRET, parsed)) == sorted(names)
    assert len(parsed) == 100 and not (tmp_path / pure_rows.JOURNAL_NAME).exists()
    rows_file = (tmp_path / pure_rows.ROWS_NAME).read_bytes()
    parsed.clear()
    kept = read(tmp_path, names, SECRET, parsed, {"f7": 1})  # one file changed: only it is parsed
    assert parsed == ["f7"] and dirs_of(kept)["f7"] == "v1"
    assert (tmp_path / pure_rows.ROWS_NAME).read_bytes() == rows_file  # not written again
    assert (tmp_path / pure_rows.JOURNAL_NAME).is_file()
    parsed.clear()
    kept = read(tmp_path, names, SECRET, parsed, {"f7": 1})  # read back from the journal
    assert parsed == [] and dirs_of(kept)["f7"] == "v1" and files_of(kept) == sorted(names)


def test_the_journal_of_another_rows_file_is_ignored(tmp_path):
    parsed: list[str] = []
    read(tmp_path, ["a", "b"], SECRET, parsed)
    read(tmp_path, ["a", "b"], SECRET, parsed, {"a": 1})
    # a journal tagged with this secret but naming another rows file (one written before a compaction)
    made = pure_rows.stamp()
    stale = {"d-a-1": (("src_file", (("code", "a", "js"),)), ("src_in_dir", (("code", "a", "stale"),)))}
    payload = marshal.dumps((pure_rows.FORMAT, made, "another", stale))
    cachemac.write_tagged(tmp_path / pure_rows.JOURNAL_NAME, pure_rows.JOURNAL_MAGIC, SECRET, payload)
    parsed.clear()
    kept = read(tmp_path, ["a", "b"], SECRET, parsed, {"a": 1})
    assert parsed == ["a"] and dirs_of(kept)["a"] == "v1"


def test_without_a_secret_every_file_is_parsed_and_nothing_is_kept(tmp_path):
    parsed: list[str] = []
    read(tmp_path, ["a"], None, parsed)
    read(tmp_path, ["a"], None, parsed)
    assert parsed == ["a", "a"] and not (tmp_path / pure_rows.ROWS_NAME).exists()


EDITS = st.lists(st.tuples(st.sampled_from(["edit", "add", "remove"]), st.integers(0, 99)), min_size=1, max_size=25)


@settings(max_examples=30, deadline=None)
@given(EDITS)
def test_any_sequence_of_rescans_reads_exactly_the_wanted_rows(edits: list[tuple[str, int]]) -> None:
    """Whatever the edits, each read holds exactly the current files at their current versions, and parses
    only the files whose digest neither the rows file nor the journal holds."""
    import tempfile
    from unittest import mock

    # bounds this small make the rows file compact every few steps, and the journal carry the rest
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(pure_rows, "GARBAGE_FLOOR", 2):
        root = __import__("pathlib").Path(folder)
        names = {f"f{i}" for i in range(70)}
        versions: dict[str, int] = {}
        parsed: list[str] = []
        read(root, sorted(names), SECRET, parsed)
        for kind, i in edits:
            name = f"f{i}"
            if kind == "remove":
                names.discard(name)
            else:
                names.add(name)
                versions[name] = versions.get(name, 0) + (kind == "edit")
            parsed.clear()
            kept = read(root, sorted(names), SECRET, parsed, versions)
            assert files_of(kept) == sorted(names)
            assert dirs_of(kept) == {n: f"v{versions.get(n, 0)}" for n in names}
            assert len(parsed) <= 1  # one file changed at most per step
            # the journal holds only what the rows file lacks, never more than its bound
            made = pure_rows.stamp()
            base = pure_rows._kept(root, SECRET, made).ident
            assert base is not None
            assert len(pure_rows._journal(root, SECRET, made, base)) <= max(2, len(names) // 8)
        assert os.path.getsize(root / pure_rows.ROWS_NAME) > 0
