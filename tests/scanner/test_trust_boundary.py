"""The trust boundary (issue 19, the scanner's half): a scanned repository cannot make rofl run a
program through git, nor make it read files outside the tree through links, workspace globs or configs.

Each planted program would create a file in a sentinel folder; each outside file holds a dependency
or package name that must not reach the facts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rofl.scanner import files

from tests.scanner.conftest import parse_fact_file, read_facts, rel, run_scan, scan_json
from tests.scanner.hostile import make_tree, no_hang

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", *args], check=True, capture_output=True
    )


def _program(path: Path, sentinel: Path) -> str:
    """A script that leaves ``sentinel`` behind when anything runs it."""
    path.write_text(f"#!/bin/sh\ntouch '{sentinel}'\ncat\n")
    path.chmod(0o755)
    return str(path)


def _entries(out: Path) -> set[tuple]:
    return {(f[0], *f[2:]) for f in parse_fact_file(out / "entries.rofl")}


def _impact(facts: Path, *args: str) -> tuple[int, str, str]:
    from tests.cli.impact_fixtures import run

    return run("impact", "--facts", facts, *args)


@pytest.fixture
def sentinel(tmp_path: Path) -> Path:
    return tmp_path / "ran"


@pytest.fixture
def evil_repo(tmp_path: Path, sentinel: Path) -> Path:
    """A committed repository whose own .git/config names programs git would run: fsmonitor, a clean
    filter for every file (.gitattributes), an external diff, a pager, hooks."""
    program = _program(tmp_path / "evil.sh", sentinel)
    src = make_tree(
        tmp_path / "repo",
        {
            "a.ts": 'import { b } from "./b";\nexport const a = b;\n',
            "b.ts": "export const b = 1;\n",
            ".gitattributes": "* filter=evil diff=evil\n",
        },
    )
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "base")
    for key, value in (
        ("core.fsmonitor", program),
        ("filter.evil.clean", program),
        ("filter.evil.process", program),
        ("diff.evil.command", program),
        ("diff.evil.textconv", program),
        ("diff.external", program),
        ("core.pager", program),
    ):
        _git(src, "config", key, value)
    hooks = src / ".git" / "hooks"
    for hook in ("post-index-change", "reference-transaction", "post-checkout"):
        _program(hooks / hook, sentinel)
    assert not sentinel.exists()
    return src


# -- item 3: git runs no program SRC's configuration names -------------------------------------------


def test_scan_of_a_repository_whose_git_config_runs_programs_runs_none(evil_repo, tmp_path, sentinel):
    summary = scan_json(evil_repo, tmp_path / "facts")
    assert not sentinel.exists(), "git ran a program the scanned repository's .git/config names"
    assert summary["parsed"] == 2
    assert files.list_files(str(evil_repo), files.PathFilter()).from_git  # still git's listing, only hardened
    facts = read_facts(tmp_path / "facts")
    assert ("a.ts", "./b", "b.ts") in rel(facts, "src_resolves")


def test_impact_git_base_runs_no_program_of_the_repository(evil_repo, tmp_path, sentinel):
    facts = tmp_path / "facts"
    scan_json(evil_repo, facts)
    (evil_repo / "b.ts").write_text("export const b = 2;\n")
    os.utime(evil_repo / "a.ts")  # stat-dirty: git would hash it through the clean filter
    code, out, err = _impact(facts, "--git-base", "HEAD", "--json")
    assert code in (0, 1), err
    assert not sentinel.exists(), "git ran a program the scanned repository's configuration names"
    assert "b.ts" in out and "a.ts" in out  # b changed, a imports it


def test_a_folder_shaped_like_a_bare_repository_is_walked_not_given_to_git(tmp_path, sentinel):
    """A bare repository committed under vendor/, scanned as a folder of its own: git would take it
    for a repository (with a work tree of its ``core.worktree``) and run its fsmonitor."""
    program = _program(tmp_path / "evil.sh", sentinel)
    other = make_tree(tmp_path / "elsewhere", {"secret.ts": "export const s = 1;\n"})
    _git(other, "init", "-q")
    _git(other, "add", "-A")
    bare = tmp_path / "project" / "vendor" / "lib.git"
    bare.parent.mkdir(parents=True)
    _git(tmp_path, "init", "-q", "--bare", str(bare))
    _git(bare, "config", "core.fsmonitor", program)
    _git(bare, "config", "core.bare", "false")
    _git(bare, "config", "core.worktree", str(other))
    (bare / "index.ts").write_text("export const v = 1;\n")
    summary = scan_json(bare, tmp_path / "facts")
    assert not sentinel.exists(), "git ran the fsmonitor of a bare repository under vendor/"
    assert summary["parsed"] == 1
    assert set(read_facts(tmp_path / "facts")) >= {("src_export", "index.ts", "v")}
    assert not any(f[1] == "secret.ts" for f in read_facts(tmp_path / "facts") if len(f) > 1)


def test_a_work_tree_git_reports_elsewhere_is_not_believed(tmp_path, sentinel):
    """``core.worktree`` in SRC's own .git points at another folder: git would list that folder's
    files as SRC's.  The scan walks SRC instead."""
    other = make_tree(tmp_path / "elsewhere", {"secret.ts": "export const s = 1;\n"})
    src = make_tree(tmp_path / "repo", {"a.ts": "export const a = 1;\n"})
    _git(src, "init", "-q")
    _git(src, "config", "core.worktree", str(other))
    _git(src, "add", "-A")  # stages elsewhere/secret.ts into SRC's index
    listing = files.list_files(str(src), files.PathFilter())
    assert not listing.from_git
    assert listing.sources == ("a.ts",)


def test_git_dir_in_the_environment_does_not_redirect_git(tmp_path, monkeypatch):
    other = make_tree(tmp_path / "elsewhere", {"secret.ts": "export const s = 1;\n"})
    _git(other, "init", "-q")
    _git(other, "add", "-A")
    src = make_tree(tmp_path / "repo", {"a.ts": "export const a = 1;\n"})
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert files.list_files(str(src), files.PathFilter()).sources == ("a.ts",)


def test_a_subfolder_scan_still_uses_its_repository(tmp_path):
    root = make_tree(
        tmp_path / "repo", {"pkg/a.ts": "export const a = 1;\n", "pkg/ignored.ts": "", ".gitignore": "ignored.ts\n"}
    )
    _git(root, "init", "-q")
    listing = files.list_files(str(root / "pkg"), files.PathFilter())
    assert listing.from_git and listing.sources == ("a.ts",)


# -- item 5: workspace globs stay inside SRC ------------------------------------------------------


def test_workspace_globs_that_loop_or_leave_src_end_that_branch_not_the_scan(tmp_path):
    outside = make_tree(tmp_path / "outside", {"package.json": '{"name": "stolen-name"}', "x.ts": ""})
    src = make_tree(
        tmp_path / "src",
        {
            "package.json": '{"name": "root", "workspaces": ["pkgs/**", "../../../**", "/etc/**"]}',
            "pnpm-workspace.yaml": "packages:\n  - 'pkgs/*'\n  - '../outside'\n",
            "pkgs/p1/package.json": '{"name": "p1"}',
            "pkgs/p1/index.ts": "export const p = 1;\n",
            "app.ts": 'import "p1";\nimport "stolen-name";\n',
        },
    )
    (src / "pkgs" / "loop").mkdir()
    (src / "pkgs" / "loop" / "again").symlink_to(src / "pkgs")
    (src / "pkgs" / "self").symlink_to("self")  # a link to itself
    (src / "pkgs" / "out").symlink_to(outside)
    out = tmp_path / "facts"
    with no_hang():
        run = run_scan(src, out, "--json")
    assert run.exit_code == 0, run.stderr
    facts = read_facts(out)
    assert ("app.ts", "p1", "pkgs/p1/index.ts") in rel(facts, "src_resolves")
    assert ("app.ts", "stolen-name", "stolen-name") in rel(facts, "src_external")  # not pkgs/out
    errors = dict(rel(_entries(out), "src_config_error"))
    assert "'../../../**' climbs out" in errors["package.json"]
    assert "'/etc/**' absolute" in errors["package.json"]
    assert "'../outside' climbs out" in errors["pnpm-workspace.yaml"]


# -- item 6: configs linked out of SRC are refused -----------------------------------------------


def test_package_json_linked_out_of_src_is_a_config_error_not_read(tmp_path):
    outside = make_tree(
        tmp_path / "outside",
        {"package.json": '{"name": "stolen", "main": "x.ts", "dependencies": {"left-pad": "1"}}'},
    )
    src = make_tree(tmp_path / "src", {"pkgs/p2/index.ts": "export const p = 1;\n", "app.ts": 'import "stolen";\n'})
    (src / "pkgs" / "p2" / "package.json").symlink_to(outside / "package.json")
    _git(src, "init", "-q")  # git lists the link (a walk skips it)
    out = tmp_path / "facts"
    scan_json(src, out)
    facts = read_facts(out)
    assert ("app.ts", "stolen", "stolen") in rel(facts, "src_external")  # not the workspace package pkgs/p2
    errors = rel(_entries(out), "src_config_error") | rel(facts, "src_config_error")
    assert ("pkgs/p2/package.json", "its real location is outside SRC, not read") in errors

    from rofl.loading.packagefacts import package_facts

    found = package_facts(src, ["pkgs/p2/index.ts", "app.ts"], {})
    assert "left-pad" not in found.text  # rofl audit's pkg_dependency facts do not come from it either


def test_tsconfig_linked_out_of_src_is_a_config_error_not_read(tmp_path):
    outside = make_tree(tmp_path / "outside", {"tsconfig.json": '{"compilerOptions": {"baseUrl": "."}}'})
    src = make_tree(tmp_path / "src", {"a.ts": 'import "b";\n', "b.ts": ""})
    (src / "tsconfig.json").symlink_to(outside / "tsconfig.json")
    out = tmp_path / "facts"
    scan_json(src, out)
    facts = read_facts(out)
    assert ("a.ts", "b", "b") in rel(facts, "src_external")  # the outside baseUrl did not apply
    assert ("tsconfig.json", "its real location is outside SRC, not read") in rel(facts, "src_config_error")
    assert scan_json(src, out)["resolved"] == 0  # refused the same way on a rescan: nothing re-resolves


def test_tsconfig_extends_out_of_the_work_tree_is_refused(tmp_path):
    make_tree(tmp_path / "outside", {"base.json": '{"compilerOptions": {"baseUrl": "."}}'})
    src = make_tree(
        tmp_path / "repo", {"tsconfig.json": '{"extends": "../outside/base.json"}', "a.ts": 'import "b";\n', "b.ts": ""}
    )
    _git(src, "init", "-q")
    out = tmp_path / "facts"
    scan_json(src, out)
    facts = read_facts(out)
    assert ("a.ts", "b", "b") in rel(facts, "src_external")
    assert ("../outside/base.json", "its real location is outside SRC, not read") in rel(facts, "src_config_error")


def test_impact_does_not_read_a_package_json_linked_out_of_src(tmp_path):
    outside = make_tree(
        tmp_path / "outside", {"package.json": '{"name": "x", "dependencies": {"left-pad": "1", "stolen-dep": "9"}}'}
    )
    src = make_tree(
        tmp_path / "src",
        {"package.json": '{"name": "x", "dependencies": {"left-pad": "1"}}', "a.ts": 'import "left-pad";\n'},
    )
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "base")
    facts = tmp_path / "facts"
    scan_json(src, facts)
    (src / "package.json").unlink()
    (src / "package.json").symlink_to(outside / "package.json")
    code, out, err = _impact(facts, "--git-base", "HEAD", "--json")
    assert code in (0, 1), err
    assert "stolen-dep" not in out  # the outside file's declarations were not read


# -- item 7: every source read is a regular file inside SRC ---------------------------------------


def test_a_source_git_lists_in_a_folder_linked_out_of_src_is_not_read(tmp_path):
    """git lists its index: ``lib/secret.ts`` stays listed when the work tree's ``lib`` became a link out."""
    outside = make_tree(tmp_path / "outside", {"secret.ts": "export const stolen = 1;\n"})
    src = make_tree(tmp_path / "repo", {"a.ts": "export const a = 1;\n", "lib/secret.ts": "export const mine = 1;\n"})
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    shutil.rmtree(src / "lib")
    (src / "lib").symlink_to(outside)
    out = tmp_path / "facts"
    scan_json(src, out)
    facts = read_facts(out)
    assert ("lib/secret.ts", "stolen") not in rel(facts, "src_export")
    assert ("lib/secret.ts", "line 1: cannot read: in a folder linked outside SRC, not followed") in rel(
        _entries(out), "src_parse_error"
    )
