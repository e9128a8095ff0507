"""The no-change rescan's saved state: what it skips (the manifest) and what it must still notice."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.scanner.conftest import git, scan_json

IMPORTS = {"src/d.ts": 'import "./missing";\nimport "./gone/deep";\nexport {};\n', "src/e.ts": "export {};\n"}


def _no_manifest_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from rofl.scanner import manifest

    reads: list[str] = []
    real = manifest.load

    def counted(out_dir: str):
        reads.append(out_dir)
        return real(out_dir)

    monkeypatch.setattr(manifest, "load", counted)
    return reads


@pytest.mark.parametrize("in_git", [False, True], ids=["walked", "git"])
@pytest.mark.parametrize(
    "created", ["src/gone/deep", "src/missing", "src/missing/package.json", "src/gone/package.json"]
)
def test_a_file_appearing_where_a_resolution_probed_re_resolves_its_importer(repo, out, in_git, created):
    src = repo(IMPORTS)
    if in_git:
        git(src, "init", "-q")
    scan_json(src, out)
    assert scan_json(src, out)["resolved"] == 0
    (src / created).parent.mkdir(parents=True, exist_ok=True)
    (src / created).write_text("{}\n")  # no source suffix: the listing of sources does not change
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"]) == (0, 1)
    assert scan_json(src, out)["resolved"] == 0


def test_no_change_rescan_of_probed_absent_paths_reads_no_manifest(repo, out, monkeypatch):
    src = repo(IMPORTS)
    scan_json(src, out)
    reads = _no_manifest_read(monkeypatch)
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["reused"], reads) == (0, 2, [])


def test_a_scan_state_of_another_format_is_not_trusted(repo, out, monkeypatch):
    src = repo(IMPORTS)
    scan_json(src, out)
    state_path = out / ".scan-state.json"
    state = json.loads(state_path.read_text())
    state["format"] = 1  # as an earlier rofl wrote it (or a later one): read the manifest instead
    state_path.write_text(json.dumps(state))
    reads = _no_manifest_read(monkeypatch)
    assert scan_json(src, out)["parsed"] == 0
    assert len(reads) == 1  # the full path, which writes the state anew
    assert scan_json(src, out)["parsed"] == 0
    assert len(reads) == 1


def test_a_stray_file_in_the_fact_folder_keeps_the_fast_path_and_stays(repo, out, monkeypatch):
    src = repo(IMPORTS)
    scan_json(src, out)
    (out / "code" / "notes.txt").write_text("mine\n")
    reads = _no_manifest_read(monkeypatch)
    assert scan_json(src, out)["parsed"] == 0
    assert reads == [] and (out / "code" / "notes.txt").exists()


NAMES = st.sampled_from(["a", "A", "b", "x.js", "X.JS", "pkg", "package.json", "é", "e\u0301"])
TREES = st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=3), st.booleans()), max_size=8)
PATHS = st.lists(st.lists(NAMES, min_size=1, max_size=4).map("/".join), min_size=1, max_size=12)


@given(tree=TREES, paths=PATHS)
def test_the_walk_says_absent_only_where_nothing_is(tree, paths):
    from rofl.scanner.files import PathFilter, list_files

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for parts, is_folder in tree:
            path = root.joinpath(*parts)
            try:
                if is_folder:
                    path.mkdir(parents=True, exist_ok=True)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text("x")
            except OSError:  # a file where the tree wants a folder, or the reverse
                continue
        listing = list_files(tmp, PathFilter())
        for rel in paths:
            if listing.surely_absent(rel):
                assert not os.path.lexists(os.path.join(tmp, rel)), rel
        assert listing.surely_absent("zz/" + paths[0])  # a name the walked SRC does not hold: nothing under it


def test_a_damaged_scan_state_is_rewritten_by_the_next_scan(repo, out, monkeypatch):
    src = repo(IMPORTS)
    scan_json(src, out)
    state_path = out / ".scan-state.json"
    state = json.loads(state_path.read_text())
    del state["sizes"]  # of this format, but not whole: the next scan reads the manifest and writes it anew
    state_path.write_text(json.dumps(state))
    reads = _no_manifest_read(monkeypatch)
    assert scan_json(src, out)["parsed"] == 0 and len(reads) == 1
    assert scan_json(src, out)["parsed"] == 0 and len(reads) == 1


def _settle(folder: Path) -> None:
    """Make ``folder`` look changed three seconds ago (settled: its stamp may be recorded)."""
    past = os.stat(folder).st_mtime_ns - 3_000_000_000
    os.utime(folder, ns=(past, past))


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from rofl.scanner import api

    seen: list[str] = []
    real = api._fact_folder_names

    def counted(out_dir: str) -> list[str]:
        seen.append(out_dir)
        return real(out_dir)

    monkeypatch.setattr(api, "_fact_folder_names", counted)
    return seen


def test_a_settled_fact_folder_is_vouched_for_by_its_stamp_and_listed_again_once_it_changes(repo, out, monkeypatch):
    src = repo(IMPORTS)
    scan_json(src, out)
    state_path = out / ".scan-state.json"
    assert json.loads(state_path.read_text())["fact_folder"] is None  # just written: not settled
    listed = _listings(monkeypatch)
    assert scan_json(src, out)["parsed"] == 0 and len(listed) == 1
    assert json.loads(state_path.read_text())["fact_folder"] is None  # still too fresh to record
    _settle(out / "code")
    assert scan_json(src, out)["parsed"] == 0 and len(listed) == 2  # listed, matched: the stamp is recorded
    assert json.loads(state_path.read_text())["fact_folder"] is not None
    assert scan_json(src, out)["parsed"] == 0 and len(listed) == 2  # vouched for: not listed
    from rofl.scanner.api import sources_unchanged

    assert sources_unchanged(str(out)) and len(listed) == 2  # the stale check trusts it the same way
    # a name added to the folder moves its stamp: listed again, and the fact-shaped stray is seen
    stray = out / "code" / ("x" * 4 + ".0123456789ab-0123456789abcdef.rofl")
    stray.write_text('src_file[code]("planted.ts", "0").\n')
    assert not sources_unchanged(str(out)) and len(listed) == 3
    summary = scan_json(src, out)
    assert summary["parsed"] == 0 and len(listed) == 4 and not stray.exists()  # the scan removes what it did not write


def test_a_stamp_in_the_state_that_is_not_the_folders_vouches_for_nothing(repo, out, monkeypatch):
    src = repo(IMPORTS)
    scan_json(src, out)
    state_path = out / ".scan-state.json"
    state = json.loads(state_path.read_text())
    for planted in ([1, 2, 3], "garbage", [1, 2], [True, 2, 3]):
        state["fact_folder"] = planted
        state_path.write_text(json.dumps(state))
        listed = _listings(monkeypatch)
        assert scan_json(src, out)["parsed"] == 0 and listed, planted  # listed, never skipped
