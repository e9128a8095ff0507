"""The rofl kind: another world answers from one of its relations, in this process or through `rofl serve`."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from tests.adapters.conftest import quote, rows, session

SERVE = f"{shlex.quote(sys.executable)} -m rofl.cli serve team.rofl"


def team_world(value: str) -> str:
    return "".join(f'value({n}, "{value}").\n' for n in (1, 2, 3)) + 'lead("core", "alice").\n'


def world(address: str) -> str:
    return f"""
imports(main, team).
adapter(team, rofl, {quote(address)}).
capability(value_at, team, reads).
arg(value_at, 1, n, number).
answers(value_at, value, 3).
answers_from(value_at, value).
step(1).
step(M) :- value[team](_, N, _), M is N + 1, N < 3.
want value_at(N) :- step(N).
"""


def values(kernel) -> dict:
    return {n: v for _w, n, v in rows(kernel, "value[team](W, N, V)")}


def rewrite_after_first_round(tmp):
    def on_round(n: int) -> None:
        if n == 1:
            (tmp / "team.rofl").write_text(team_world("new") + "-- changed\n")

    return on_round


def test_a_served_world_answers_as_it_is_now(adapter_env):
    (adapter_env / "team.rofl").write_text(team_world("old"))
    s = session(world(SERVE), on_round=rewrite_after_first_round(adapter_env))
    report = s.run()
    assert report.rounds == 3 and not report.failed, report.failed
    assert values(s.kernel) == {1: "old", 2: "new", 3: "new"}
    assert s.processes == 1  # one server for every round


def test_files_are_evaluated_once_in_this_process(adapter_env):
    (adapter_env / "team.rofl").write_text(team_world("old"))
    s = session(world("team.rofl"), on_round=rewrite_after_first_round(adapter_env))
    report = s.run()
    assert report.rounds == 3 and s.processes == 0
    assert values(s.kernel) == {1: "old", 2: "old", 3: "old"}


def test_the_served_process_is_started_once_and_ends_with_the_session(adapter_env):
    (adapter_env / "team.rofl").write_text(team_world("old"))
    s = session(world(SERVE))
    s.run()
    server = s.kinds["rofl"]
    assert server._servers == {}  # closed with the session


def test_why_of_an_answer_stops_at_the_boundary_and_names_the_world(adapter_env, rofl):
    (adapter_env / "team.rofl").write_text(team_world("old"))
    text = world("team.rofl") + "late(N) :- value[team](_, N, _), N > 2.\n"
    (adapter_env / "main.rofl").write_text(text)
    code, out, _ = rofl("why", "late(3)", "main.rofl")
    assert code == 0
    leaf = [line for line in out.splitlines() if line.lstrip().startswith("value[team]")]
    assert leaf and "answered by the world team.rofl" in leaf[0] and "book team" in leaf[0]
    code, out, _ = rofl("why", "late(3)", "main.rofl", "--json")
    assert "answered by the world team.rofl" in out


def test_serve_answers_line_by_line_and_reports_errors(adapter_env):
    (adapter_env / "team.rofl").write_text(team_world("old"))
    requests = [
        {"ask": "lead", "args": ['"core"'], "arity": 2},
        {"ask": "nope", "args": [], "arity": 1},
        {"ask": "value", "args": ["2"], "arity": 2},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "rofl.cli", "serve", "team.rofl"],
        input="\n".join(json.dumps(r) for r in requests) + "\nnot json\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0] == {"rows": [['"core"', '"alice"']]}
    assert "no relation nope" in lines[1]["error"]
    assert lines[2] == {"rows": [["2", '"old"']]}
    assert "error" in lines[3] and proc.returncode == 0


def test_serve_refuses_a_world_that_does_not_load(adapter_env, rofl):
    (adapter_env / "bad.rofl").write_text("p(X) :- .\n")
    code, _, err = rofl("serve", "bad.rofl")
    assert code == 2 and err.startswith("bad.rofl:1:")


def test_a_literate_world_contributes_its_rofl_blocks(adapter_env):
    text = (
        "# The team\n\nValues, as the team keeps them:\n\n```rofl\n" + team_world("md") + '```\n\nvalue(9, "prose").\n'
    )
    (adapter_env / "team.rofl.md").write_text(text)
    s = session(world("team.rofl.md"))
    s.run()
    assert values(s.kernel) == {1: "md", 2: "md", 3: "md"}


def test_audit_and_run_run_the_rounds_too(adapter_env, rofl):
    (adapter_env / "team.rofl").write_text(team_world("old"))
    (adapter_env / "main.rofl").write_text(world("team.rofl"))
    code, out, _ = rofl("audit", "main.rofl", "--json")
    data = json.loads(out)
    assert code == 0 and data["clean"] and len(data["wants"]["answered"]) == 3  # answers are not forged
    code, out, _ = rofl("run", "main.rofl", "--collect", "step", "--json")
    assert json.loads(out)["collected"][0]["facts"] == ["step[main](1)", "step[main](2)", "step[main](3)"]


def hostile_server_world(adapter_env, body: str, timeout_ms: int = 20_000) -> str:
    from tests.adapters.conftest import python_adapter

    cmd = python_adapter(adapter_env / "server.py", body)
    return world(cmd) + f"adapter_timeout(team, {timeout_ms}).\n"


@pytest.mark.slow
def test_a_server_that_answers_garbage_or_nothing_fails_its_wants(adapter_env):
    garbage = """
        import sys
        for line in sys.stdin:
            print("<html>oops</html>", flush=True)
    """
    report = session(hostile_server_world(adapter_env, garbage)).run()
    assert [w for _, w in report.failed] == ["ADP_HOST_CALL_FAILED: world server team: an answer line is not JSON"]
    silent = """
        import sys, time
        for line in sys.stdin:
            time.sleep(30)
    """
    report = session(hostile_server_world(adapter_env, silent, 1000)).run()
    assert [w for _, w in report.failed] == ["ADP_HOST_CALL_FAILED: world server team: no answer before the timeout"]
    gone = "import sys; sys.exit(0)"
    report = session(hostile_server_world(adapter_env, gone)).run()
    assert report.failed and "world server team: the server" in report.failed[0][1]


def test_a_server_answering_in_pieces_and_in_one_burst_is_read_line_by_line(adapter_env):
    chunky = """
        import json, sys, time
        for line in sys.stdin:
            n = json.loads(line)["args"][0]
            text = json.dumps({"rows": [[n, '"v"']]}) + "\\n"
            for ch in text:
                sys.stdout.write(ch); sys.stdout.flush()
    """
    s = session(hostile_server_world(adapter_env, chunky))
    report = s.run()
    assert not report.failed and values(s.kernel) == {1: "v", 2: "v", 3: "v"}
