"""Differential test on real code: rofl's resolution against TypeScript's ``ts.resolveModuleName`` per
(file, specifier), on the corpora ``make bench`` installs (rxjs/src, lodash-es: bench/corpora.py).

Runs where the corpus is installed and node finds TypeScript (bench/.cache), and skips, saying which,
where not.  It uses the same oracle as ``bench/ts_resolution_check.py`` (which covers the monorepos of
bench/SCAN_RESULTS.md): every pair where TypeScript finds a file of the repository that rofl does not
name is a disagreement, and there must be none.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from bench import monorepos, ts_resolution_check
from bench.corpora import CACHE

CORPORA = ("rxjs", "lodash-es")


def _node_and_typescript() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (ts_resolution_check.TYPESCRIPT / "package.json").exists():
        return f"TypeScript is not installed in {ts_resolution_check.TYPESCRIPT} (make test installs it with npm)"
    return None


@pytest.mark.parametrize("name", CORPORA)
def test_every_file_typescript_resolves_is_one_of_rofls_targets(name, tmp_path):
    missing = _node_and_typescript()
    if missing:
        pytest.skip(missing)
    root = CACHE / "corpora" / name
    if not (root / ".git").exists():
        pytest.skip(f"the {name} corpus is not installed ({root}; `make bench` installs it)")
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    repo = monorepos.Repo(name, root.resolve(), f"npm:{name}", commit.stdout.strip())
    result = ts_resolution_check.check(ts_resolution_check.prepare(repo, tmp_path))
    assert result["pairs"] > 100, result["rows"]  # the corpus was read: hundreds of imports
    differ = {cause: n for cause, n in result["causes"].items() if cause.startswith("DIFFER")}
    examples = {cause: result["examples"][cause][:3] for cause in differ}
    assert not differ, examples
