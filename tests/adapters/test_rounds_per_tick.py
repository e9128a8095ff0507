"""Rounds at every tick of `rofl run`: a want that appears at tick N is sent at tick N, its answers are facts
of tick N, and a want repeated at later ticks is answered from the session, never sent again."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.adapters.conftest import calls, echo_book, quote

# A world whose phase advances one tick at a time; ready(7) is derived at tick 1 only, and an @next rule
# turns it into ask_for(7) at tick 2: the want exists from tick 2 on, never before.
PHASES = """
phase(0)@init.
phase(T)@next :- phase(S), S < 4, T is S + 1.
ready(7) :- phase(1).
ask_for(N)@next :- ready(N).
"""

TEAM = "".join(f'value({n}, "v{n}").\n' for n in range(10))


def team_book(address: str = "team.rofl") -> str:
    return f"""
imports(main, team).
adapter(team, rofl, {quote(address)}).
capability(value_at, team, reads).
arg(value_at, 1, n, number).
answers(value_at, value, 3).
answers_from(value_at, value).
"""


def collected(out: str, rel: str) -> dict[int, list[str]]:
    data = json.loads(out)
    return {c["tick"]: [f for f in c["facts"] if f.startswith(rel + "[")] for c in data["collected"]}


def test_a_want_derived_from_tick_1_is_answered_at_tick_2_and_not_before(adapter_env, rofl):
    (adapter_env / "team.rofl").write_text(TEAM)
    world = team_book() + PHASES + "want value_at(N) :- ask_for(N).\nseen(N, V) :- value[team](_, N, V).\n"
    (adapter_env / "main.rofl").write_text(world)
    code, out, err = rofl("run", "main.rofl", "--collect", "seen", "--collect", "answered", "--json")
    assert code == 0, err
    seen = collected(out, "seen")
    assert seen[0] == seen[1] == [] and seen[2] == ['seen[main](7, "v7")'], seen
    assert seen[3] == []  # ask_for(7) is not carried to tick 3: neither is the want, nor its answer
    answered = collected(out, "answered")
    assert [t for t, facts in answered.items() if facts] == [2]
    wants = json.loads(out)["wants"]
    assert wants["answered"] == ["value_at(7)"] and wants["rounds"] == 1
    assert wants["arrived"] == [{"want": "value_at(7)", "tick": 2}]  # the tick the answer arrived at


def test_a_want_repeated_across_ticks_is_sent_once_and_answered_at_each(adapter_env, rofl):
    world = (
        echo_book(adapter_env)
        + PHASES
        + "ask_for(N)@next :- ask_for(N), phase(P), P < 3.\n"  # ask_for(7) at ticks 2 and 3
        + 'want reverse("ab") :- ask_for(_).\n'
        + "got(W, V) :- echo_answer[echo](W, V).\n"
    )
    (adapter_env / "main.rofl").write_text(world)
    code, out, err = rofl("run", "main.rofl", "--collect", "got", "--json", "--allow", "exec")
    assert code == 0, err
    got = collected(out, "got")
    answer = 'got[main]($want(reverse, "ab"), "ba")'
    assert {t: facts for t, facts in got.items() if facts} == {2: [answer], 3: [answer]}, got
    assert len(calls(adapter_env)) == 1  # sent once, at tick 2; tick 3 reads it from the session
    wants = json.loads(out)["wants"]
    assert wants["rounds"] == 1 and wants["arrived"] == [{"want": 'reverse("ab")', "tick": 2}]


# Two rounds at each tick: the want for 2T, then, from its answer, the want for 2T + 1.
CHAINED = """
phase(0)@init.
phase(T)@next :- phase(S), S < 3, T is S + 1.
first(N) :- phase(T), N is T * 2.
want value_at(N) :- first(N).
want value_at(M) :- first(N), value[team](_, N, _), M is N + 1.
seen(N) :- value[team](_, N, _).
"""


def test_the_round_budget_is_per_tick(adapter_env, rofl):
    (adapter_env / "team.rofl").write_text(TEAM)
    (adapter_env / "main.rofl").write_text(team_book() + CHAINED)
    code, out, err = rofl("run", "main.rofl", "--collect", "seen", "--json", "--rounds", "2")
    assert code == 0, err  # two rounds at each of four ticks: --rounds 2 is enough
    seen = collected(out, "seen")
    assert seen == {**{t: [f"seen[main]({2 * t})", f"seen[main]({2 * t + 1})"] for t in range(4)}, 4: []}, seen
    assert json.loads(out)["wants"]["rounds"] == 8
    code, out, err = rofl("run", "main.rofl", "--collect", "seen", "--json", "--rounds", "1")
    assert code == 3 and "raise --rounds" in err  # every tick's second want is held
    seen = collected(out, "seen")
    assert seen == {**{t: [f"seen[main]({2 * t})"] for t in range(4)}, 4: []}, seen
    data = json.loads(out)["wants"]
    assert data["partial"] and len(data["held"]) == 4


def test_a_world_quiet_but_for_its_answers_stops_instead_of_running_to_the_budget(adapter_env, rofl):
    (adapter_env / "team.rofl").write_text(TEAM)
    world = team_book() + "keep(3)@init.\nkeep(N)@next :- keep(N).\nwant value_at(N) :- keep(N).\n"
    world += "seen(N, V) :- value[team](_, N, V).\n"
    (adapter_env / "main.rofl").write_text(world)
    code, out, err = rofl("run", "main.rofl", "--collect", "seen", "--json")
    data = json.loads(out)
    # tick 0 also holds the book's declarations (not carried); tick 1 has keep(3) and the answer again,
    # and tick 2 would repeat it: the run is quiet after two ticks, the want sent once
    assert code == 0 and data["quiescent"] and data["ticks"] == 2, (out, err)
    assert collected(out, "seen") == {0: ['seen[main](3, "v3")'], 1: ['seen[main](3, "v3")']}
    assert data["wants"]["rounds"] == 1


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.tuples(st.integers(0, 4), st.integers(0, 9)), max_size=8))
def test_each_want_is_answered_at_exactly_the_ticks_it_is_wanted(adapter_env, asks):
    """An independent oracle: the answers present at tick T are those wanted at T; each want is sent
    once, at the first tick it is wanted, whatever ticks repeat it."""
    from tests.adapters.conftest import session

    (adapter_env / "team.rofl").write_text(TEAM)
    world = team_book() + "clock(0)@init.\nclock(T)@next :- clock(S), S < 5, T is S + 1.\n"
    world += "ask_at(T, N)@next :- ask_at(T, N).\nwant value_at(N) :- clock(T), ask_at(T, N).\n"
    world += "seen(N) :- value[team](_, N, _).\n"
    world += "".join(f"ask_at({t}, {n}).\n" for t, n in sorted(asks))
    s = session(world)
    s.start()
    run = s.run_ticks(None, None, ("seen",))
    got = {tick: sorted(int(f[len("seen[main](") : -1]) for f in facts) for tick, facts in run.collected}
    assert got == {t: sorted(n for u, n in asks if u == t) for t in range(run.ticks)}
    first = {n: min(t for t, m in asks if m == n) for _, n in asks}
    report = s.report()
    assert sorted((w.args[0], tick) for w, tick in report.ticks) == sorted(first.items())
    assert len(report.answered) == len(first) and report.rounds == len(set(first.values()))
