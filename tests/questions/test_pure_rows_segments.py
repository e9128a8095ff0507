"""The kept pure rows grow by segments and compact: every read gives the rows of exactly the wanted files."""

from __future__ import annotations

from rofl.loading import pure_rows


def text(name: str) -> str:
    return f'src_file[code]("{name}", "js").\nsrc_in_dir[code]("{name}", ".").\n'


def read(root, names, secret, parsed):
    def read_text(path, digest):
        parsed.append(path)
        return text(path)

    return pure_rows.rows_by_digest(root, [(n, "d-" + n) for n in names], read_text, secret)


def files_of(kept) -> list[str]:
    return sorted(rows[0][1] for rows in kept.parts("src_file"))


def test_appends_then_compacts_and_reads_only_wanted_files(tmp_path, monkeypatch):
    secret = b"k" * 32
    parsed: list[str] = []
    assert files_of(read(tmp_path, ["a", "b"], secret, parsed)) == ["a", "b"]
    assert parsed == ["a", "b"]
    parsed.clear()
    kept = read(tmp_path, ["b", "c"], secret, parsed)  # one new file: one segment appended
    assert parsed == ["c"] and files_of(kept) == ["b", "c"] and len(kept.segments) == 1
    parsed.clear()
    kept = read(tmp_path, ["b", "c"], secret, parsed)
    assert parsed == [] and len(kept.segments) == 2 and files_of(kept) == ["b", "c"]
    monkeypatch.setattr(pure_rows, "MAX_SEGMENTS", 2)  # the next read compacts to the wanted files alone
    read(tmp_path, ["b", "c"], secret, parsed)
    kept = read(tmp_path, ["b", "c"], secret, parsed)
    assert parsed == [] and len(kept.segments) == 1 and kept.segments[0].digests == ("d-b", "d-c")
    assert files_of(kept) == ["b", "c"] and kept.relations() == ["src_file", "src_in_dir"]


def test_without_a_secret_every_file_is_parsed_and_nothing_is_kept(tmp_path):
    parsed: list[str] = []
    read(tmp_path, ["a"], None, parsed)
    read(tmp_path, ["a"], None, parsed)
    assert parsed == ["a", "a"] and not (tmp_path / pure_rows.ROWS_NAME).exists()
