"""Dependencies point one way: engine imports nothing of ours, scanner and adapters only engine, rules nothing;
the command line (rofl) and the servers compose them.  Every import counts, lazy and TYPE_CHECKING ones too.
Inside rofl/, sub-rooms have rules of their own: loading imports only the engine, the scanner and the rules
(and ``rofl`` for ``__version__``); questions import only loading, the engine and the scanner (a question with
want rules has its adapter rounds run by its ``Source``); only the servers and the commands that start or call them import the
servers; no command imports another.

Everything installs under the one import name ``rofl``: the folder ``engine/`` is ``rofl.engine``, ``scanner/``
is ``rofl.scanner`` and so on, and ``rofl/`` itself holds the command line.  A room is one of those folders."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
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


def module_file(module: str, tree: Path = ROOT) -> Path | None:
    """The file of our module ``module`` under ``tree`` (``rofl.engine.terms`` -> engine/terms.py, ``rofl.loading``
    -> rofl/loading/__init__.py), or None when it names no module of ours (a name inside one)."""
    parts = module.split(".")
    if parts[0] != "rofl":
        return None
    rest = parts[1:]
    folder = tree / rest[0] if rest and rest[0] in ROOMS - {"rofl"} else tree / "rofl"
    if rest and rest[0] in ROOMS - {"rofl"}:
        rest = rest[1:]
    path = folder.joinpath(*rest)
    for found in (path / "__init__.py", path.with_suffix(".py")):
        if found.is_file():
            return found
    return None


def module_name(path: Path, room: str, tree: Path = ROOT) -> str:
    """The absolute name of the module in ``path`` of ``room`` (rofl/loading/kernel.py -> rofl.loading.kernel)."""
    parts = list(path.relative_to(tree / room).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["rofl"] + ([] if room == "rofl" else [room]) + parts)


def imported(path: Path, room: str, tree: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``.  Relative imports resolve to the module they name
    (``from ..exits import fail`` in rofl/commands/x.py is rofl.exits), and ``from P import m`` names P.m when
    m is a module of ours (``from . import scan`` in rofl/commands/x.py is rofl.commands.scan), else P."""
    found = []
    package = module_name(path, room, tree).split(".")
    if path.name != "__init__.py":
        package.pop()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if module_file(sub, tree) is not None else base))
    return list(dict.fromkeys(found))


def offences(room: str, tree: Path = ROOT) -> list[str]:
    allowed = ALLOWED[room] | {room}
    bad = []
    for path in sorted((tree / room).rglob("*.py")):
        for line, module in imported(path, room, tree):
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


def test_the_engines_base_package_imports_nothing_of_ours():
    """engine/base/ (safe writes, errors, events) is standard library only, below the rest of the engine."""
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "engine" / "base").rglob("*.py"))
        for line, module in imported(path, "engine")
        if room_of(module) is not None
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


# -- sub-rooms: folders and files inside a room -----------------------------------------------------------------


def our_imports(tree: Path = ROOT) -> list[tuple[str, int, str]]:
    """(file relative to ``tree``, line, absolute module) of every import of ours in every room."""
    return [
        (path.relative_to(tree).as_posix(), line, module)
        for room in sorted(ROOMS)
        if (tree / room).is_dir()
        for path in sorted((tree / room).rglob("*.py"))
        for line, module in imported(path, room, tree)
        if room_of(module) is not None
    ]


def within(module: str, *packages: str) -> bool:
    """Whether ``module`` is one of ``packages`` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)


LOADING_MAY_IMPORT = ("rofl.engine", "rofl.scanner", "rofl.rules", "rofl.loading")
# a question loads through rofl.loading and asks the engine and the scanner's vocabulary; the adapter rounds of a
# world with want rules are run by its Source (rofl.rounds gives the command line's and the servers'); it never
# reads the command line (rofl.commands, rofl.options, click), the adapters or the servers
QUESTIONS_MAY_IMPORT = ("rofl.engine", "rofl.scanner", "rofl.loading", "rofl.questions", "rofl.rules")
# the commands that start a server, or call a running one over its protocol (executions)
SERVER_COMMANDS = ("rofl/commands/server.py", "rofl/commands/mcp.py", "rofl/commands/executions.py")


def loading_offences(imports: list[tuple[str, int, str]]) -> list[str]:
    """Imports of rofl/loading/ beyond the engine, the scanner, the rules and ``rofl`` itself (its __version__)."""
    return [
        f"{path}:{line} imports {module}"
        for path, line, module in imports
        if path.startswith("rofl/loading/") and module != "rofl" and not within(module, *LOADING_MAY_IMPORT)
    ]


def question_offences(imports: list[tuple[str, int, str]]) -> list[str]:
    """Imports of rofl/questions/ beyond loading, the engine, the scanner, the rules and ``rofl`` itself."""
    return [
        f"{path}:{line} imports {module}"
        for path, line, module in imports
        if path.startswith("rofl/questions/") and module != "rofl" and not within(module, *QUESTIONS_MAY_IMPORT)
    ]


def server_offences(imports: list[tuple[str, int, str]]) -> list[str]:
    """Imports of rofl.servers from outside servers/ and the commands that start or call a server."""
    return [
        f"{path}:{line} imports {module}"
        for path, line, module in imports
        if within(module, "rofl.servers") and not path.startswith("servers/") and path not in SERVER_COMMANDS
    ]


def command_offences(imports: list[tuple[str, int, str]]) -> list[str]:
    """Imports of one command module by another (the package's __init__ is no command)."""
    bad = []
    for path, line, module in imports:
        if not path.startswith("rofl/commands/") or path.endswith("__init__.py"):
            continue
        own = "rofl.commands." + Path(path).stem
        if within(module, "rofl.commands") and module != "rofl.commands" and not within(module, own):
            bad.append(f"{path}:{line} imports {module}")
    return bad


@pytest.fixture(scope="module")
def imports() -> list[tuple[str, int, str]]:
    return our_imports()


def test_loading_imports_only_the_engine_the_scanner_and_the_rules(imports):
    assert loading_offences(imports) == []


def test_questions_import_only_loading_the_engine_and_the_scanner(imports):
    assert question_offences(imports) == []


def test_only_the_servers_and_their_commands_import_the_servers(imports):
    assert server_offences(imports) == []


def test_commands_never_import_each_other(imports):
    assert command_offences(imports) == []


def _plant(tree: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tree


PLANTED: dict[str, tuple[Callable[[list[tuple[str, int, str]]], list[str]], dict[str, str], list[str]]] = {
    "loading": (
        loading_offences,
        {
            "rofl/__init__.py": "__version__ = '1'\n",
            "rofl/findings.py": "",
            "rofl/loading/__init__.py": "",
            "rofl/loading/ok.py": "from rofl import __version__\nfrom rofl.engine import terms\nfrom . import ok\n",
            "rofl/loading/bad.py": "import os\n\n\ndef f():\n    from ..findings import code_rows\n",
            "rofl/loading/worse.py": "from rofl import findings\n",
            "engine/__init__.py": "",
            "engine/terms.py": "",
        },
        [
            "rofl/loading/bad.py:5 imports rofl.findings",
            "rofl/loading/worse.py:1 imports rofl.findings",
        ],
    ),
    "questions": (
        question_offences,
        {
            "rofl/__init__.py": "__version__ = '1'\n",
            "rofl/exits.py": "",
            "rofl/loading/__init__.py": "",
            "rofl/loading/source.py": "",
            "rofl/questions/__init__.py": "",
            "rofl/questions/ok.py": "from rofl import __version__\nfrom ..loading.source import Source\nfrom . import ok\n",
            "rofl/questions/bad.py": "def f():\n    from ..exits import fail\n",
            "rofl/questions/worse.py": "from rofl.servers import http\n",
            "rofl/questions/asks_out.py": "def f():\n    from rofl.adapters.rounds import Session\n",
            "servers/__init__.py": "",
            "servers/http.py": "",
            "adapters/__init__.py": "",
            "adapters/rounds.py": "",
        },
        [
            "rofl/questions/asks_out.py:2 imports rofl.adapters.rounds",
            "rofl/questions/bad.py:2 imports rofl.exits",
            "rofl/questions/worse.py:1 imports rofl.servers.http",
        ],
    ),
    "servers": (
        server_offences,
        {
            "rofl/__init__.py": "",
            "rofl/commands/__init__.py": "",
            "rofl/commands/server.py": "from rofl.servers import http\n",
            "rofl/commands/audit.py": "from ..servers.http import serve\n",
            "rofl/session.py": "from rofl.servers.http import serve\n",
            "servers/__init__.py": "",
            "servers/http.py": "from . import http\n",
            "adapters/__init__.py": "",
            "adapters/x.py": "from rofl.servers import http\n",
        },
        [
            "adapters/x.py:1 imports rofl.servers.http",
            "rofl/commands/audit.py:1 imports rofl.servers.http",
            "rofl/session.py:1 imports rofl.servers.http",
        ],
    ),
    "commands": (
        command_offences,
        {
            "rofl/__init__.py": "",
            "rofl/exits.py": "",
            "rofl/commands/__init__.py": "from . import scan\n",
            "rofl/commands/scan.py": "from ..exits import fail\nfrom . import scan\n",
            "rofl/commands/ask.py": "def f():\n    from .audit import audit\n",
            "rofl/commands/audit.py": "from rofl.commands import scan\nfrom rofl import commands\n",
        },
        ["rofl/commands/ask.py:2 imports rofl.commands.audit", "rofl/commands/audit.py:1 imports rofl.commands.scan"],
    ),
}


@pytest.mark.parametrize("rule", sorted(PLANTED))
def test_each_sub_room_rule_catches_a_planted_import(tmp_path, rule):
    check, files, expected = PLANTED[rule]
    assert check(our_imports(_plant(tmp_path, files))) == expected


def test_relative_imports_resolve_to_the_module_they_name(tmp_path):
    tree = _plant(
        tmp_path,
        {
            "rofl/__init__.py": "",
            "rofl/exits.py": "",
            "rofl/commands/__init__.py": "",
            "rofl/commands/scan.py": "from .. import exits\nfrom ..exits import fail\nfrom . import scan\nfrom .. import x\n",
            "scanner/__init__.py": "",
            "scanner/sub/__init__.py": "from .. import api\nfrom . import deep\n",
            "scanner/sub/deep.py": "",
            "scanner/api.py": "",
        },
    )
    assert imported(tree / "rofl/commands/scan.py", "rofl", tree) == [
        (1, "rofl.exits"),
        (2, "rofl.exits"),
        (3, "rofl.commands.scan"),
        (4, "rofl"),
    ]
    assert imported(tree / "scanner/sub/__init__.py", "scanner", tree) == [
        (1, "rofl.scanner.api"),
        (2, "rofl.scanner.sub.deep"),
    ]
