"""`rofl CMD --help` loads only click and what the help text says: no engine, loader, scanner, question or server.

A command imports what it runs inside its function; the option families (rofl.options) read their defaults
from standard-library-only modules.  So `--help`, and any command that has nothing to do, returns in the
time of the interpreter and click.  Each case runs the real entry point in a fresh interpreter and lists
the modules it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rofl.cli import COMMANDS
from rofl.commands.adapter import SUBCOMMANDS
from tests.once_per_run import once_per_run

# the rooms whose code the help of a command must not load ...
HEAVY = ("rofl.engine", "rofl.loading", "rofl.scanner", "rofl.questions", "rofl.servers", "rofl.adapters", "rofl.rules")
# ... but for these modules (and their packages): standard library only, holding what the help text says
# (defaults, choices) or what every command ends with (the error types, the exit statuses)
LEAVES = {
    "rofl.adapters.policy",  # --allow's capability classes
    "rofl.engine.base.errors",
    "rofl.engine.base.events",  # `executions list --state`'s states
    "rofl.engine.costs",  # --budget's default
    "rofl.engine.terms",  # (imported by rofl.engine.costs)
    "rofl.loading.budgets",  # --budget's default with --facts, `relations --budget`'s
    "rofl.questions.graph_documents",  # `export --format`'s names
    "rofl.questions.status",
    "rofl.scanner.errors",
    "rofl.servers.cli_options",  # the servers' --facts, --src and --read-timeout
}
# `--format`'s CI formats are named by the renderers' registry, which loads them all
FORMATS_HELP = {"audit", "cycles"}

# one interpreter imports the entry point, then forks a child per help (so each case costs a fork, not a start):
# the child runs `rofl WORDS --help` with its output thrown away and writes the modules it then has
LIST_MODULES = """
import json, os, sys
from rofl.cli import main
found = {}
for words in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        sys.argv = ["rofl", *words, "--help"]
        try:
            main()
        except SystemExit:
            pass
        with os.fdopen(write, "wb") as out:
            out.write("\\n".join(sorted(sys.modules)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        found[" ".join(words)] = pipe.read().decode().split()
    os.waitpid(pid, 0)
import rofl.formats
found["import rofl.formats"] = sorted(sys.modules)
print(json.dumps(found))
"""


def heavy(modules: set[str], allowed: set[str]) -> list[str]:
    """The modules of ``HEAVY``'s rooms in ``modules`` that are not ``allowed`` (nor a package of one)."""
    packages = {".".join(m.split(".")[:i]) for m in allowed for i in range(2, m.count(".") + 1)}
    return sorted(
        m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY) and m not in allowed | packages
    )


HELPS = [
    (),
    *((name,) for name in sorted(COMMANDS)),
    *(("adapter", name) for name in sorted(SUBCOMMANDS)),
    *(("executions", name) for name in ("list", "get", "start", "cancel", "events", "protocol")),
]


@pytest.fixture(scope="module")
def modules_after_help(request: pytest.FixtureRequest) -> dict[str, set[str]]:
    """``"WORDS"`` -> the modules a process has imported after `rofl WORDS --help` (and after `import rofl.formats`)."""
    return once_per_run(request, "help-imports", _modules_after_help)


def _modules_after_help() -> dict[str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", LIST_MODULES, json.dumps(HELPS)], capture_output=True, text=True, timeout=120, check=True
    )
    return {words: set(modules) for words, modules in json.loads(done.stdout).items()}


@pytest.mark.parametrize("words", HELPS, ids=lambda words: " ".join(words) or "rofl")
def test_help_loads_no_engine_loader_scanner_or_question(words, modules_after_help):
    modules = modules_after_help[" ".join(words)]
    if words:
        assert f"rofl.commands.{COMMANDS[words[0]][0]}" in modules  # the help did run
    allowed = set(LEAVES)
    if words[:1] and words[0] in FORMATS_HELP:
        allowed |= modules_after_help["import rofl.formats"]
    assert heavy(modules, allowed) == []


def test_the_check_sees_a_heavy_import():
    """The rule above catches the kernel: a process that imported it is reported."""
    import rofl.engine.kernel  # noqa: F401 - what the pytest process has imported anyway

    assert "rofl.engine.kernel" in heavy(set(sys.modules), set(LEAVES))
