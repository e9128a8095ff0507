"""Capability policy: granted = requested ∩ available ∩ policy, deny by default; a world whose required
capabilities are not granted does not start; what an adapter cannot serve fails locally with no call."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.policy import CLASSES, Policy, negotiate

from tests.adapters.conftest import calls, echo_book, rows, session

CAPS = st.sampled_from(["a", "b", "c", "d", "e"])


@given(
    st.sets(CAPS),
    st.dictionaries(CAPS, st.sampled_from(CLASSES)),
    st.sets(st.sampled_from(CLASSES)),
    st.sets(CAPS),
)
def test_granted_is_requested_and_available_and_allowed(requested, available, allowed, optional):
    result = negotiate(requested, available, {}, Policy(frozenset(allowed)), optional)
    expected = {c for c in requested if c in available and available[c] in allowed}
    assert result.granted == expected
    assert result.denied == {c for c in requested if c in available} - expected
    assert set(result.missing) == result.denied - optional
    assert not (result.granted & set(result.missing))


def test_the_command_lines_default_policy():
    assert Policy.command_line((), {}).classes == {"reads", "shows"}
    assert Policy.command_line((), {"CI": "true"}).classes == {"reads"}
    assert Policy.command_line(("shows",), {"CI": "true"}).classes == {"reads", "shows"}
    assert Policy.command_line(("does",), {}).classes == {"reads", "shows", "does"}


def does_world(tmp):
    return echo_book(tmp, klass="does") + 'item("ab").\nwant reverse(X) :- item(X).\n'


def test_a_denied_does_capability_refuses_to_start_and_starts_no_process(adapter_env, rofl):
    (adapter_env / "w.rofl").write_text(does_world(adapter_env))
    code, out, err = rofl("ask", "echo_answer[echo](W, X)", "w.rofl")
    assert code == 2
    assert err.strip().count("\n") == 0
    assert err.startswith("w.rofl:4: ADP_CAPABILITY_DENIED: the world needs reverse (does)")
    assert "--allow does" in err
    assert calls(adapter_env) == []  # the adapter never ran


def test_allow_does_grants_it(adapter_env, rofl):
    (adapter_env / "w.rofl").write_text(does_world(adapter_env))
    code, out, _ = rofl("ask", "echo_answer[echo](W, X)", "w.rofl", "--allow", "does", "--allow", "exec")
    assert code == 0 and '"ba"' in out
    assert len(calls(adapter_env)) == 1


def test_under_ci_only_reads_unless_allowed(adapter_env, rofl, monkeypatch):
    world = echo_book(adapter_env, klass="shows") + 'item("ab").\nwant reverse(X) :- item(X).\n'
    (adapter_env / "w.rofl").write_text(world)
    monkeypatch.setenv("CI", "true")
    code, _, err = rofl("ask", "echo_answer[echo](W, X)", "w.rofl")
    assert code == 2 and "reverse (shows)" in err
    code, out, _ = rofl("ask", "echo_answer[echo](W, X)", "w.rofl", "--allow", "shows", "--allow", "exec")
    assert code == 0 and '"ba"' in out


def test_an_optional_denied_capability_holds_its_wants_and_calls_nothing(adapter_env):
    s = session(does_world(adapter_env) + "optional(reverse).\n")
    report = s.run()
    assert not report.answered and len(report.held) == 1
    assert report.held[0][1].startswith("ADP_CAPABILITY_DENIED: reverse is a does capability")
    assert calls(adapter_env) == [] and s.processes == 0
    assert len(rows(s.kernel, "want_held(W, Why)")) == 1


def test_what_no_adapter_can_serve_fails_locally_with_no_call(adapter_env):
    world = echo_book(adapter_env) + (
        'imports(main, tracker).\nadapter(tracker, gopher, "gopher://tracker").\n'
        "capability(ticket, tracker, reads).\nanswers(ticket, ticket_state, 2).\n"
        'imports(main, team).\nadapter(team, rofl, "team.rofl").\n'
        "capability(page_owner, team, does).\nanswers(page_owner, paged, 2).\n"
        'adapter(stray, exec, "true").\ncapability(stray_cap, stray, reads).\nanswers(stray_cap, s, 2).\n'
        'item("ab").\nwant ticket(X) :- item(X).\nwant page_owner(X) :- item(X).\n'
        "want stray_cap(X) :- item(X).\nwant nobody_declares(X) :- item(X).\n"
    )
    s = session(world, allow=("does",))
    report = s.run()
    whys = {w.cap: why for w, why in report.failed}
    assert whys["ticket"].startswith("ADP_NO_MATCHING_ADAPTER: adapter tracker: kind gopher is not served here")
    assert whys["page_owner"].startswith("ADP_UNSUPPORTED_CAPABILITY: a rofl adapter cannot serve a does capability")
    assert whys["stray_cap"].startswith("ADP_NO_MATCHING_ADAPTER: the world does not import book stray")
    assert whys["nobody_declares"].startswith("ADP_UNSUPPORTED_CAPABILITY: no book declares capability nobody_declares")
    assert s.processes == 0 and calls(adapter_env) == []


def test_max_wants_holds_the_wants_past_the_limit(adapter_env):
    items = "".join(f'item("w{i:02}").\n' for i in range(12))
    s = session(echo_book(adapter_env) + "max_wants(reverse, 5).\n" + items + "want reverse(X) :- item(X).\n")
    report = s.run()
    assert len(report.answered) == 5 and len(report.held) == 7
    assert all(why == "ADP_CAPABILITY_DENIED: max_wants(reverse, 5) reached" for _, why in report.held)
    sent = [w["args"]["x"] for b in calls(adapter_env) for w in b["wants"]]
    assert sent == [f"w{i:02}" for i in range(5)]  # the first five in canonical order, nothing else


def test_wants_by_outcome_in_json(adapter_env, rofl):
    import json

    world = echo_book(adapter_env) + 'item("ab"). item(7).\nwant reverse(X) :- item(X).\n'
    (adapter_env / "w.rofl").write_text(world)
    code, out, err = rofl("ask", "echo_answer[echo](W, X)", "w.rofl", "--json", "--allow", "exec")
    data = json.loads(out)
    assert data["wants"]["answered"] == ['reverse("ab")']
    assert [f["want"] for f in data["wants"]["failed"]] == ["reverse(7)"]
    assert data["wants"]["held"] == [] and data["wants"]["rounds"] == 1
    assert "1 answered, 1 failed, 0 held" in err
    code, out, _ = rofl("why", 'echo_answer[echo]("reverse(\\"ab\\")", "ba")', "w.rofl", "--json", "--allow", "exec")
    assert json.loads(out)["wants"] == data["wants"], out  # why --json reports the same wants


@pytest.mark.slow
def test_a_round_budget_cut_short_is_a_partial_answer(adapter_env, rofl):
    world = echo_book(adapter_env) + 'item("ab").\nitem(X) :- echo_answer[echo](_, X).\nwant reverse(X) :- item(X).\n'
    (adapter_env / "w.rofl").write_text(world)
    code, out, err = rofl("ask", "item(X)", "w.rofl", "--rounds", "1", "--allow", "exec")
    assert code == 3 and "raise --rounds" in err
    assert out.split() == ["X", "=", '"ab"', "X", "=", '"ba"']
    code, _, _ = rofl("ask", "item(X)", "w.rofl", "--rounds", "2", "--allow", "exec")
    assert code == 0
    # every command that runs rounds says the same: a spent round budget is a partial answer (exit 3)
    for args in (["run", "w.rofl"], ["why", 'item("ab")', "w.rofl"], ["audit", "w.rofl"]):
        code, _, err = rofl(*args, "--rounds", "1", "--allow", "exec")
        assert code == 3 and "raise --rounds" in err, (args, code, err)
        assert rofl(*args, "--rounds", "2", "--allow", "exec")[0] == 0, args


def test_data_with_an_identity_cannot_declare_adapters_or_ask_them(adapter_env, rofl):
    world = echo_book(adapter_env) + 'item("ab").\nwant reverse(X) :- item(X).\n'
    (adapter_env / "w.rofl").write_text(world)
    code, _, err = rofl("ask", "item(X)", "--load-as", "sensor_net", "w.rofl")
    assert code == 2 and "adapter(echo, exec, " in err and "was asserted by sensor_net" in err
    (adapter_env / "book.rofl").write_text(echo_book(adapter_env))
    (adapter_env / "asks.rofl").write_text('item("ab").\nwant reverse(X) :- item(X).\n')
    code, _, err = rofl("ask", "item(X)", "book.rofl", "--load-as", "scanner", "asks.rofl")
    assert code == 2 and "was loaded by scanner" in err
    assert calls(adapter_env) == []  # nothing ran
    code, out, _ = rofl("ask", "echo_answer[echo](W, X)", "book.rofl", "--rules", "asks.rofl", "--allow", "exec")
    assert code == 0 and '"ba"' in out  # the user's own rule files may
