"""`rofl scan` on folders of the wrong kind, hostile source files, FIFOs, locks and corrupt manifests.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.user_errors import (
    assert_user_error,
    cli,
    edit_manifest,
    write,
)


def test_scan_src_and_out_of_the_wrong_kind(rofl, tiny, tmp_path):
    src = tiny[0]
    assert_user_error(rofl("scan", src / "a.ts", "--out", tmp_path / "o1"), "rofl scan:", "not a folder")
    assert_user_error(rofl("scan", tmp_path / "missing", "--out", tmp_path / "o2"), "rofl scan:", "does not exist")
    assert_user_error(rofl("scan", "/dev/null", "--out", tmp_path / "o3"), "rofl scan:", "not a folder")
    assert_user_error(rofl("scan"), "rofl scan:", "missing SRC")
    a_file = write(tmp_path / "file", "x")
    assert_user_error(rofl("scan", src, "--out", a_file), "rofl scan:", "--out")
    assert_user_error(rofl("scan", src, "--out", a_file / "sub"), "rofl scan:", "--out")
    assert_user_error(rofl("scan", src, "--out", "/dev/null"), "rofl scan:", "--out")


def test_scan_globs_that_match_nothing(rofl, tiny, tmp_path):
    for i, flags in enumerate([("--include", "*.nothing"), ("--exclude", "**"), ("--include", "["), ("--include", "")]):
        result = rofl("scan", tiny[0], "--out", tmp_path / f"o{i}", *flags)
        assert_user_error(result, "rofl scan:", "leave none", "nothing was scanned or removed")
        assert not (tmp_path / f"o{i}" / "manifest.json").exists()


def test_scan_out_inside_src_is_stable(rofl, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    for _ in range(2):
        code, out, _ = rofl("scan", src, "--out", src / "facts", "--json")
        assert code == 0 and json.loads(out)["files"] == 1
    assert rofl("ask", "src_file[code](F, _)", "--facts", src / "facts") == (0, 'F = "a.ts"\n', "")


@pytest.mark.slow
def test_scan_hostile_source_files(rofl, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.ts").write_text("export const ok = 1;\n")
    (src / "binary.ts").write_bytes(b"\xff\xfe\x00garbage")
    (src / "bom.ts").write_bytes(b"\xef\xbb\xbfexport const bom = 1;\r\n")
    (src / "huge.ts").write_text("x" * 200_000 + "\n")
    (src / "nest.js").write_text("const a = " + "[" * 20000 + "]" * 20000 + ";\n")
    (src / "new\nline.ts").write_text("export const n = 1;\n")
    os.symlink("nowhere.ts", src / "broken.ts")
    os.symlink(".", src / "loop")
    code, out, err = rofl("scan", src, "--out", tmp_path / "out", "--max-bytes", "100000", "--json")
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["errors"] == 2  # binary and huge become src_parse_error facts
    code, out, _ = rofl("ask", "src_parse_error[code](F, _)", "--facts", tmp_path / "out")
    assert code == 0 and out == 'F = "binary.ts"\nF = "huge.ts"\n'


def test_scan_skips_a_fifo_without_hanging(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    os.mkfifo(src / "fifo.ts")
    proc = cli("scan", src, "--out", tmp_path / "out", timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_scan_lock_and_state_that_are_directories(rofl, tiny, tmp_path):
    out = tmp_path / "out"
    assert rofl("scan", tiny[0], "--out", out)[0] == 0
    (out / ".lock").unlink()
    (out / ".lock").mkdir()
    assert_user_error(rofl("scan", tiny[0], "--out", out), "rofl scan:", "lock")
    (out / ".lock").rmdir()
    write(out / ".scan-state.json", "{{{")
    assert rofl("scan", tiny[0], "--out", out)[0] == 0


def test_scan_empty_out(rofl, tiny, tmp_path, monkeypatch):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    result = rofl("scan", tiny[0], "--out", "")
    assert list(cwd.iterdir()) == []
    assert_user_error(result, "--out")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda m: m.update(files={k: None for k in m["files"]}), id="file_entry_null"),
        pytest.param(lambda m: m.update(files={k: "x" for k in m["files"]}), id="file_entry_string"),
        pytest.param(lambda m: [e.update(facts=5) for e in m["files"].values()], id="file_facts_int"),
        pytest.param(lambda m: m.update(configs=[1]), id="configs_list"),
        pytest.param(lambda m: m.update(packages=[1]), id="packages_list"),
    ],
)
def test_scan_over_a_corrupt_manifest(rofl, tiny, tmp_path, change):
    out = tmp_path / "out"
    assert rofl("scan", tiny[0], "--out", out)[0] == 0
    edit_manifest(out, change)
    code, summary, err = rofl("scan", tiny[0], "--out", out, "--verify")
    assert (code, err) == (0, "") and "2 files seen, 2 parsed" in summary  # the manifest is rebuilt
    assert rofl("ask", "dependency[code](A, B)", "--facts", out) == (0, 'A = "a.ts", B = "b.ts"\n', "")


def test_scan_over_an_unparsable_manifest_rescans(rofl, tiny, tmp_path):
    out = tmp_path / "out"
    assert rofl("scan", tiny[0], "--out", out)[0] == 0
    for content in ("[1]", "{{{", ""):
        write(out / "manifest.json", content)
        code, text, _ = rofl("scan", tiny[0], "--out", out)
        assert code == 0 and "2 files seen" in text
