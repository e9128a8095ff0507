"""Dependencies point one way: engine imports nothing of ours, scanner and adapters only engine, rules nothing;
the command line (rofl) and the servers compose them.  Every import counts, lazy and TYPE_CHECKING ones too."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
NOT_OURS = {"tests", "bench", "examples", "facts", "build"}


def our_packages() -> set[str]:
    return {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and p.name not in NOT_OURS and not p.name.startswith(".") and (p / "__init__.py").is_file()
    }


OURS = our_packages()
# package -> the packages of ours it may import (itself always)
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "rules": set(),
    "scanner": {"engine"},
    "adapters": {"engine"},
    "rofl": OURS,
    "servers": OURS,
}


def imported_roots(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, top-level module) of every import in ``path``; relative imports resolve to ``package``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            root = package if node.level else (node.module or "").split(".")[0]
            found.append((node.lineno, root))
    return found


def offences(package: str, tree: Path = ROOT) -> list[str]:
    allowed = ALLOWED[package] | {package}
    bad = []
    for path in sorted((tree / package).rglob("*.py")):
        for line, root in imported_roots(path, package):
            if root in OURS and root not in allowed:
                bad.append(f"{path.relative_to(tree)}:{line} imports {root}")
    return bad


def test_every_package_has_a_rule():
    assert OURS <= set(ALLOWED), f"packages without an import rule: {OURS - set(ALLOWED)}"
    assert {"engine", "scanner", "rofl", "rules"} <= OURS


@pytest.mark.parametrize("package", sorted(OURS))
def test_imports_point_one_way(package):
    assert offences(package) == []


def test_engine_imports_only_the_standard_library():
    stdlib = set(sys.stdlib_module_names) | {"__future__", "engine"}
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {root}"
        for path in sorted((ROOT / "engine").rglob("*.py"))
        for line, root in imported_roots(path, "engine")
        if root not in stdlib
    ]
    assert bad == []


def test_the_check_catches_a_planted_import(tmp_path):
    (tmp_path / "scanner").mkdir()
    (tmp_path / "scanner" / "version.py").write_text("def f():\n    from rofl import __version__\n    return 1\n")
    (tmp_path / "scanner" / "ok.py").write_text("from engine import terms\nfrom . import version\n")
    assert offences("scanner", tmp_path) == ["scanner/version.py:2 imports rofl"]
