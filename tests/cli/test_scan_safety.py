"""Scan safety: globs that match nothing remove nothing; a fact folder inside SRC is never scanned."""

from __future__ import annotations

import json
import shutil
import subprocess

from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"


def fact_files(out) -> set[str]:
    return {p.name for p in (out / "code").iterdir()}


def test_include_matching_nothing_is_an_error_and_removes_nothing(rofl, tmp_path):
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    out = tmp_path / "facts"
    assert rofl("scan", src, "--out", out)[0] == 0
    before = fact_files(out)
    manifest = (out / "manifest.json").read_bytes()
    code, stdout, err = rofl("scan", src, "--out", out, "--include", "*.nonsense")
    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1
    assert "--include '*.nonsense'" in err and "none of the 38 source files" in err and "fix the globs" in err
    assert fact_files(out) == before and (out / "manifest.json").read_bytes() == manifest


def test_exclude_everything_is_an_error_too(rofl, tmp_path):
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    out = tmp_path / "facts"
    assert rofl("scan", src, "--out", out)[0] == 0
    before = fact_files(out)
    code, _, err = rofl("scan", src, "--out", out, "--include", "src/**", "--exclude", "**/*.[jt]s*")
    assert code == 2 and "--include 'src/**' --exclude '**/*.[jt]s*'" in err
    assert fact_files(out) == before
    # a glob set that keeps some files is fine and narrows the scan
    code, out_text, _ = rofl("scan", src, "--out", out, "--include", "src/domain/**", "--json")
    assert code == 0 and json.loads(out_text)["files"] == len(list((src / "src" / "domain").glob("*.ts")))


def test_scanning_dot_into_a_folder_inside_it(rofl, tmp_path, monkeypatch):
    """`rofl scan . --out facts/generated` inside a git work tree: the fact folder's own files (even a
    stray .ts there) are never sources, a rescan reuses everything, and impact reports none of them."""
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    subprocess.run(["git", "init", "-q", str(src)], check=True)
    subprocess.run(["git", "-C", str(src), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(src), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base"], check=True
    )
    monkeypatch.chdir(src)
    assert rofl("scan", ".", "--out", "facts/generated")[0] == 0
    (src / "facts" / "generated" / "stray.ts").write_text("export const x = 1;\n")
    code, stdout, _ = rofl("scan", ".", "--out", "facts/generated", "--json")
    summary = json.loads(stdout)
    assert code == 0 and summary["files"] == 38 and summary["parsed"] == 0
    manifest = json.loads((src / "facts" / "generated" / "manifest.json").read_text())
    assert not any(p.startswith("facts/") for p in manifest["files"])
    code, stdout, err = rofl("impact", "--facts", "facts/generated", "--git-base", "HEAD", "--json")
    assert code == 0, err
    data = json.loads(stdout)
    assert data["changed"] == [] and data["affected"] == []
    assert "facts/" not in err


def test_no_fact_file_name_starts_with_a_dash(rofl, tmp_path):
    """Sources named like options (``-rf.ts``, ``--help.ts``, ``._-x.ts``) get fact files a shell
    command cannot take for an option."""
    from tests.conftest import write_tree

    src = tmp_path / "src"
    names = ["-rf.ts", "--help.ts", "-.ts", "._-x.ts", "-/-a.ts", "a/-b.js"]
    write_tree(src, {name: "export const x = 1;\n" for name in names})
    out = tmp_path / "facts"
    code, stdout, err = rofl("scan", src, "--out", out, "--json")
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["files"]) == sorted(names)
    written = fact_files(out)
    assert len(written) == len(names) and not any(name.startswith("-") for name in written), written
    assert {entry["facts"].split("/", 1)[1] for entry in manifest["files"].values()} == written


def test_a_glob_that_matches_no_file_is_a_warning_when_others_select_some(rofl, tmp_path):
    """`--exclude '**/*.tset.ts'` (a typo) leaves the tests in: the scan runs, and says which glob
    matched nothing, one line each."""
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    out = tmp_path / "facts"
    code, stdout, err = rofl(
        "scan", src, "--out", out, "--include", "src/**", "--include", "lib/**", "--exclude", "**/*.tset.ts", "--json"
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert code == 0 and json.loads(stdout)["files"] == len(manifest["files"]) == 38
    assert all(path.startswith("src/") for path in manifest["files"])
    lines = err.strip().splitlines()
    assert len(lines) == 2 and all("warning" in line and "matches none" in line for line in lines)
    assert "--include 'lib/**'" in lines[0] and "--exclude '**/*.tset.ts'" in lines[1]
    code, _, err = rofl("scan", src, "--out", out, "--include", "src/**", "--exclude", "**/cart.ts")
    assert code == 0 and "warning" not in err
