"""`rofl impact` user errors: unknown paths, bad git refs, and git refs that try to be options.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.cli.user_errors import (
    assert_user_error,
)


def test_impact_user_errors(rofl, tiny):
    facts = tiny[1]
    assert_user_error(
        rofl("impact", "--facts", facts, "--git-base", "HEAD"), "git"
    )  # the scan is not in a git work tree
    assert_user_error(rofl("impact", "--changed", "b.ts"), "--facts DIR is required")
    assert_user_error(rofl("impact", "--facts", facts), "--changed", "--git-base")
    assert_user_error(rofl("impact", "--facts", facts, "--changed", "b.ts", "--git-base", "HEAD"), "either")
    assert_user_error(rofl("impact", "--facts", facts, "--git-base", ""), "either")


def test_impact_paths_outside_the_scan_are_summarised_and_unknown_ones_refused(rofl, tiny):
    # exist, outside the scan (absolute, and relative to SRC whatever the working folder): one summary line
    for path in ("/", "../facts/manifest.json"):
        code, out, err = rofl("impact", "--facts", tiny[1], "--changed", path)
        assert code == 0 and "0 file(s) affected" in out and "outside the scan" in err
    for path in ("B.TS", "src/../b.ts.orig"):  # exist nowhere: a silent zero would be a lie
        code, out, err = rofl("impact", "--facts", tiny[1], "--changed", path)
        assert code == 2 and path in err and "exists nowhere" in err and "Traceback" not in err


@pytest.fixture
def git_scan(rofl, tmp_path):
    src = tmp_path / "repo"
    src.mkdir()
    (src / "a.ts").write_text('import { x } from "./b";\nexport const y = x;\n')
    (src / "b.ts").write_text("export const x = 2;\n")
    git = lambda *a: subprocess.run(["git", "-C", str(src), *a], check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    assert rofl("scan", src, "--out", tmp_path / "facts")[0] == 0
    return src, tmp_path / "facts"


def test_impact_bad_git_ref(rofl, git_scan):
    assert_user_error(rofl("impact", "--facts", git_scan[1], "--git-base", "no-such-ref"), "no-such-ref")
    assert_user_error(rofl("impact", "--facts", git_scan[1], "--git-base", "HEAD~5"), "HEAD~5")


@pytest.mark.parametrize("ref", ["--output={pwned}", "-p"])
def test_impact_git_base_is_not_an_option(rofl, git_scan, tmp_path, ref):
    pwned = tmp_path / "pwned"
    result = rofl("impact", "--facts", git_scan[1], "--git-base", ref.format(pwned=pwned))
    assert not pwned.exists()
    assert_user_error(result, "--git-base")


def test_impact_git_base_without_git_on_path_is_one_line(rofl, git_scan, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    assert_user_error(rofl("impact", "--facts", git_scan[1], "--git-base", "HEAD"), "needs git on PATH")


def test_impact_git_base_names_the_changed_file(rofl, git_scan):
    src, facts = git_scan
    (src / "b.ts").write_text("export const x = 3;\n")
    code, out, err = rofl("impact", "--facts", facts, "--git-base", "HEAD")
    assert code == 0, err
    assert "b.ts" in out and "a.ts" in out  # the change and the file that imports it
