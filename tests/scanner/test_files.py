"""Which files are scanned: git's list in a work tree, the filtered walk elsewhere, and the globs."""

from __future__ import annotations

import shutil

import pytest
from rofl.scanner.files import PathFilter, glob_to_regex, list_files

from tests.scanner.conftest import git, load_manifest, scan_json, write_tree

TREE = {
    "src/a.ts": "",
    "src/b.test.ts": "",
    "src/styles.css": "",
    "node_modules/dep/index.js": "",
    "dist/bundle.js": "",
    "build/out.js": "",
    "coverage/lcov.js": "",
    ".hidden/secret.js": "",
    "lib/.cache/x.js": "",
    "lib/util.mjs": "",
    "lib/package.json": '{"name": "lib"}',
}


def test_walk_skips_generated_and_hidden_folders(tmp_path):
    write_tree(tmp_path, TREE)
    listing = list_files(str(tmp_path), PathFilter())
    assert not listing.from_git
    assert listing.sources == ("lib/util.mjs", "src/a.ts", "src/b.test.ts")
    assert listing.packages == ("lib/package.json",)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_lists_tracked_and_untracked_but_not_ignored(tmp_path):
    write_tree(tmp_path, {**TREE, ".gitignore": "ignored.ts\nnode_modules/\n", "ignored.ts": "", "gone.ts": ""})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "src/a.ts", "dist/bundle.js", "gone.ts")
    (tmp_path / "gone.ts").unlink()  # tracked, deleted in the work tree
    (tmp_path / "untracked.ts").write_text("")
    listing = list_files(str(tmp_path), PathFilter())
    assert listing.from_git
    assert "ignored.ts" not in listing.sources and "node_modules/dep/index.js" not in listing.sources
    assert {"src/a.ts", "untracked.ts", "dist/bundle.js", ".hidden/secret.js"} <= set(listing.sources)
    summary = scan_json(tmp_path, tmp_path / "out")
    assert "gone.ts" not in load_manifest(tmp_path / "out")["files"]
    assert summary["errors"] == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_folder_ignored_by_its_repository_is_walked(tmp_path):
    write_tree(tmp_path, {".gitignore": "vendor/\n", "vendor/lib/x.js": "", "vendor/lib/node_modules/y.js": ""})
    git(tmp_path, "init", "-q")
    listing = list_files(str(tmp_path / "vendor"), PathFilter())
    assert listing.sources == ("lib/x.js",)


def test_include_and_exclude_globs(tmp_path):
    write_tree(tmp_path, TREE)
    listing = list_files(str(tmp_path), PathFilter(("src/**",), ("*.test.ts",)))
    assert listing.sources == ("src/a.ts",)
    summary = scan_json(
        tmp_path, tmp_path / "out", "--include", "lib/**", "--include", "src/*.ts", "--exclude", "**/b.*"
    )
    assert summary["files"] == 2


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("*.ts", "a/b/c.ts", True),
        ("src/*.ts", "src/a/b.ts", False),
        ("src/**/*.ts", "src/b.ts", True),
        ("src/**/*.ts", "src/a/b.ts", True),
        ("**/test/**", "x/test/y.js", True),
        ("a?.js", "ab.js", True),
        ("[ab].js", "c.js", False),
    ],
)
def test_glob_semantics(glob, path, matches):
    assert bool(glob_to_regex(glob).match(path)) is matches
