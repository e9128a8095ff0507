"""Dependencies point one way: engine imports nothing of ours, scanner and adapters only engine, rules nothing;
the command line (rofl) and the servers compose them.  Every import counts, lazy and TYPE_CHECKING ones too.

Everything installs under the one import name ``rofl``: the folder ``engine/`` is ``rofl.engine``, ``scanner/``
is ``rofl.scanner`` and so on, and ``rofl/`` itself holds the command line.  A room is one of those folders."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
NOT_OURS = {"tests", "bench", "examples", "facts", "build"}


def our_rooms() -> set[str]:
    return {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and p.name not in NOT_OURS and not p.name.startswith(".") and (p / "__init__.py").is_file()
    }


ROOMS = our_rooms()
# room -> the rooms of ours it may import (itself always)
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "rules": set(),
    "scanner": {"engine"},
    "adapters": {"engine"},
    "rofl": ROOMS,
    "servers": ROOMS,
}


def room_of(module: str) -> str | None:
    """The room an absolute import names (``rofl.engine.terms`` -> engine, ``rofl.loading.kernel`` -> rofl), or None
    for a module that is not ours.  A bare ``engine`` is not ours any more: it names another distribution."""
    parts = module.split(".")
    if parts[0] != "rofl":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS - {"rofl"} else "rofl"


def imported(path: Path, room: str) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``; relative imports resolve inside ``room``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            own = "rofl" if room == "rofl" else f"rofl.{room}"
            found.append((node.lineno, own if node.level else node.module or ""))
    return found


def offences(room: str, tree: Path = ROOT) -> list[str]:
    allowed = ALLOWED[room] | {room}
    bad = []
    for path in sorted((tree / room).rglob("*.py")):
        for line, module in imported(path, room):
            target = room_of(module)
            if target is not None and target not in allowed:
                bad.append(f"{path.relative_to(tree)}:{line} imports {module}")
            elif module.split(".")[0] in ROOMS - {"rofl"}:
                bad.append(f"{path.relative_to(tree)}:{line} imports {module} (write rofl.{module})")
    return bad


def test_every_room_has_a_rule():
    assert ROOMS <= set(ALLOWED), f"rooms without an import rule: {ROOMS - set(ALLOWED)}"
    assert {"engine", "scanner", "rofl", "rules"} <= ROOMS


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_imports_point_one_way(room):
    assert offences(room) == []


def test_engine_imports_only_the_standard_library():
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "engine").rglob("*.py"))
        for line, module in imported(path, "engine")
        if module.split(".")[0] not in stdlib and room_of(module) != "engine"
    ]
    assert bad == []


def test_the_check_catches_a_planted_import(tmp_path):
    (tmp_path / "scanner").mkdir()
    (tmp_path / "scanner" / "version.py").write_text("def f():\n    from rofl import __version__\n    return 1\n")
    (tmp_path / "scanner" / "ok.py").write_text("from rofl.engine import terms\nfrom . import version\n")
    (tmp_path / "scanner" / "old.py").write_text("from engine import terms\n")
    assert offences("scanner", tmp_path) == [
        "scanner/old.py:1 imports engine (write rofl.engine)",
        "scanner/version.py:2 imports rofl",
    ]
