"""`-v`/`--verbose` on every command (rofl/logs.py): log lines on stderr, standard output unchanged, quiet without it."""

from __future__ import annotations

import shutil

import pytest

from rofl.cli import COMMANDS
from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"
LOG_LINE = "rofl: "  # every log line starts so (rofl.logs.FORMAT), then the milliseconds and the logger's name


def _log_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(LOG_LINE) and " ms " in line]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_takes_verbose(rofl, name):
    code, out, err = rofl(name, "--help")
    assert code == 0, err
    assert "-v, --verbose" in out


def test_scan_logs_its_steps_on_stderr_and_prints_the_same_summary(rofl, tmp_path):
    out_dir = tmp_path / "facts"
    quiet = rofl("scan", SHOP, "--out", out_dir)
    shutil.rmtree(out_dir)
    loud = rofl("scan", SHOP, "--out", out_dir, "-v")
    assert quiet[0] == loud[0] == 0
    assert _log_lines(quiet[2]) == []
    logged = _log_lines(loud[2])
    assert any("scanner.api" in line and "listed" in line for line in logged), loud[2]
    assert any("worklist" in line for line in logged), loud[2]
    # the summary names the time the scan took; everything else of standard output is the same
    strip = lambda text: text.split(" in ")[0]  # noqa: E731
    assert strip(loud[1]) == strip(quiet[1])


@pytest.mark.parametrize("where", ["group", "command"])
def test_ask_logs_on_stderr_and_answers_the_same(rofl, tmp_path, where):
    facts = tmp_path / "facts"
    assert rofl("scan", SHOP, "--out", facts)[0] == 0
    query = "dependency[code](A, B)"
    quiet = rofl("ask", query, "--facts", facts)
    args = ("-v", "ask", query, "--facts", facts) if where == "group" else ("ask", query, "--facts", facts, "-v")
    loud = rofl(*args)
    assert quiet[:2] == loud[:2] and quiet[0] == 0 and quiet[1].count("\n") > 10
    assert _log_lines(quiet[2]) == []
    logged = _log_lines(loud[2])
    assert any("rofl.loading.kernel" in line and str(facts) in line for line in logged), loud[2]
    assert any("rofl ask:" in line for line in logged), loud[2]


def test_verbosity_does_not_leak_into_the_next_command(rofl, tmp_path):
    rofl("-v", "relations", EXAMPLES / "tc.rofl")
    code, _, err = rofl("relations", EXAMPLES / "tc.rofl")
    assert code == 0 and _log_lines(err) == []


def test_double_v_logs_more(rofl):
    _, _, once = rofl("ask", "path(a, X)", EXAMPLES / "tc.rofl", "-v")
    _, _, twice = rofl("ask", "path(a, X)", EXAMPLES / "tc.rofl", "-vv")
    assert len(_log_lines(twice)) > len(_log_lines(once)) >= 1
    assert any("tc.rofl asserted by" in line for line in _log_lines(twice))
    assert any("engine.kernel" in line and "steps" in line for line in _log_lines(twice))  # what it cost


def test_a_command_run_directly_keeps_the_servers_level(capsys):
    """A server runs commands without the group (servers/executions.py): they log at the level it started with."""
    import click

    from rofl import logs
    from rofl.cli import main

    command = main.get_command(click.Context(main), "relations")
    logs.setup(1)  # as `rofl server -v` does once
    try:
        with pytest.raises(SystemExit) as done:  # the command exits with its answer's status
            command.main([str(EXAMPLES / "tc.rofl")], prog_name="rofl relations", standalone_mode=False)
        assert done.value.code == 0
        logged = _log_lines(capsys.readouterr().err)
    finally:
        logs.setup(0)
    assert any("rofl.loading.kernel" in line for line in logged), logged


def test_twice_verbose_logs_each_evaluations_cost(rofl):
    """`-vv` adds the kernel's line per evaluation (what it evaluated, its steps); `-v` does not."""
    once = rofl("-v", "ask", "path(X, Y)", EXAMPLES / "tc.rofl")
    twice = rofl("-vv", "ask", "path(X, Y)", EXAMPLES / "tc.rofl")
    assert once[:2] == twice[:2] and once[0] == 0
    costs = [line for line in _log_lines(twice[2]) if "rofl.engine.kernel" in line]
    assert costs and all("evaluation of" in line and "steps" in line for line in costs), twice[2]
    assert not [line for line in _log_lines(once[2]) if "rofl.engine.kernel" in line]
