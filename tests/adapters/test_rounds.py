"""Rounds: wants that depend on earlier answers, one batch per capability per round, each want sent once,
exactly one outcome per want, and the round budget ending in a hole."""

from __future__ import annotations

import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.adapters.conftest import calls, echo_book, rows, session

TREE = """
imports(main, shop).
adapter(shop, sql, "{db}").
capability(children_of, shop, reads).
arg(children_of, 1, tenant, text).
answers(children_of, child, 2).
query(children_of, "SELECT id FROM tenants WHERE parent = ?1").
reaches("t0").
reaches(T) :- want_arg(W, 1, _), child[shop](W, T).
want children_of(T) :- reaches(T).
"""


def write_tree(path, parents: list[int]) -> None:
    """Node i+1's parent is parents[i] (always an earlier node): a random tree rooted at t0."""
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE tenants (id TEXT, parent TEXT)")
        db.executemany("INSERT INTO tenants VALUES (?, ?)", [(f"t{i + 1}", f"t{p}") for i, p in enumerate(parents)])


def depth_of(parents: list[int]) -> int:
    depth = [0]
    for p in parents:
        depth.append(depth[p] + 1)
    return max(depth)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(min_value=0), max_size=25).map(lambda xs: [x % (i + 1) for i, x in enumerate(xs)]))
def test_the_tree_in_a_database_reaches_what_a_plain_walk_reaches(adapter_env, parents):
    db = adapter_env / "tree.db"
    write_tree(db, parents)
    s = session(TREE.format(db=db))
    report = s.run()
    reached = {r[0] for r in rows(s.kernel, "reaches(T)")}
    assert reached == {f"t{i}" for i in range(len(parents) + 1)}  # a tree: every node is reached
    assert report.rounds == depth_of(parents) + 1  # one round per level, the leaves' empty answers included
    assert len(report.answered) == len(parents) + 1 and not report.failed and not report.held


def test_one_batch_per_capability_per_round_and_a_want_is_never_sent_twice(adapter_env):
    world = (
        echo_book(adapter_env)
        + 'item("ab"). item("cd").\nitem(X) :- echo_answer[echo](_, X).\nwant reverse(X) :- item(X).\n'
    )
    s = session(world)
    report = s.run()
    batches = calls(adapter_env)
    sent = [w["args"]["x"] for b in batches for w in b["wants"]]
    assert len(batches) == 2  # round 1: ab, cd; round 2: ba, dc; round 3 asks nothing new (ab, cd again)
    assert sorted(sent) == ["ab", "ba", "cd", "dc"]
    assert len(set(sent)) == len(sent)
    assert report.rounds == 2
    s.run()  # the session goes on: nothing answered is sent again
    assert len(calls(adapter_env)) == 2


def test_every_want_ends_in_exactly_one_outcome(adapter_env):
    world = echo_book(adapter_env) + (
        'item("ok"). item(3).\n'  # 3 is no text: failed before anything is sent
        "want reverse(X) :- item(X).\n"
        "want unknown_cap(X) :- item(X).\n"
    )
    s = session(world)
    report = s.run()
    wants = [r[0] for r in rows(s.kernel, "want_of(W, C)")]
    assert len(wants) == 4
    answered = [r[0] for r in rows(s.kernel, "answered(W)")]
    failed = [r[0] for r in rows(s.kernel, "failed(W, Why)")]
    held = [r[0] for r in rows(s.kernel, "want_held(W, Why)")]
    for w in wants:
        assert answered.count(w) + failed.count(w) + held.count(w) == 1, w
    assert sorted(answered + failed + held, key=repr) == sorted(wants, key=repr)
    assert len(report.answered) == 1 and len(report.failed) == 3
    whys = dict((w.text, why) for w, why in report.failed)
    assert whys["reverse(3)"].startswith("ADP_UNSUPPORTED_CAPABILITY: argument 1 (x) is declared text")
    assert whys['unknown_cap("ok")'].startswith("ADP_UNSUPPORTED_CAPABILITY: no book declares capability unknown_cap")


def test_the_round_budget_ends_in_a_hole_and_holds_what_it_did_not_send(adapter_env):
    db = adapter_env / "chain.db"
    write_tree(db, [0, 1, 2, 3, 4, 5])  # a chain t0 - t6: seven rounds
    s = session(TREE.format(db=db), rounds=3)
    report = s.run()
    assert report.partial and report.rounds == 3
    assert rows(s.kernel, "hole(Q, R)") == [(("$round", 4), ("budget_exhausted",))]
    held = [(w.text, why) for w, why in report.held]
    assert held == [('children_of("t3")', held[0][1])]
    assert held[0][1].startswith("ADP_CAPABILITY_DENIED: the round budget (3) ended")
    assert {r[0] for r in rows(s.kernel, "reaches(T)")} == {"t0", "t1", "t2", "t3"}


def test_answers_land_in_the_book_with_its_authority_and_no_audit_finds_them_forged(adapter_env):
    world = echo_book(adapter_env) + 'item("ab").\nwant reverse(X) :- item(X).\n'
    s = session(world)
    s.run()
    assert rows(s.kernel, "echo_answer[echo](W, X)")[0][1] == "ba"
    assert rows(s.kernel, "asserted_by(F, W)") and ("echo",) in {r[1] for r in rows(s.kernel, "asserted_by(F, W)")}
    assert not rows(s.kernel, "forged[audit](F)")
    assert not rows(s.kernel, "leak[audit](A, B)")


def test_rounds_report_progress_and_stop_between_rounds_when_cancelled(adapter_env):
    import pytest
    from rofl.engine.base import events

    db = adapter_env / "chain.db"
    write_tree(db, [0, 1, 2, 3])
    token = events.CancelToken()
    recorder = events.Recorder()
    s = session(TREE.format(db=db), on_round=lambda n: token.cancel("stop") if n == 2 else None)
    with events.reporting(events.Reporter("x", (recorder,), token)), pytest.raises(events.ExecutionCancelled):
        s.run()
    progress = [e.payload for e in recorder.events if e.type == "progress"]
    assert [(p.done, p.label) for p in progress] == [(1, "rounds"), (2, "rounds")]
    assert s.rounds == 2  # nothing was sent after the cancellation


BEHAVING = """
    import json, sys
    for w in json.load(sys.stdin)["wants"]:
        how, _, n = w["args"]["x"].partition(":")
        if how == "rows":
            for i in range(int(n)):
                print(f'echo_answer({w["key"]}, "r{i}").')
        elif how == "empty":
            print(f'answered({w["key"]}).')
        elif how == "fail":
            print(f'failed({w["key"]}, "asked to fail").')
"""


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.one_of(
            st.integers(0, 3).map(lambda n: f"rows:{n}"),
            st.sampled_from(["empty", "fail", "silent", 7]),
        ),
        min_size=1,
        max_size=8,
    ),
    st.integers(1, 8),
)
def test_whatever_the_adapter_does_each_want_ends_once_and_only_answers_have_rows(adapter_env, asks, limit):
    from rofl.engine.terms import quote as q

    from tests.adapters.conftest import python_adapter

    cmd = python_adapter(adapter_env / "behaving.py", BEHAVING)
    book = echo_book(adapter_env, cmd=cmd)
    items = "".join(f"item({q(a) if isinstance(a, str) else a}, {i}).\n" for i, a in enumerate(asks))
    s = session(book + f"max_wants(reverse, {limit}).\n" + items + "want reverse(X) :- item(X, _).\n")
    report = s.run()
    wants = {r[0] for r in rows(s.kernel, "want_of(W, C)")}
    ends = [r[0] for q_ in ("answered(W)", "failed(W, Y)", "want_held(W, Y)") for r in rows(s.kernel, q_)]
    assert sorted(ends, key=repr) == sorted(wants, key=repr)  # each want exactly once
    answered = {r[0] for r in rows(s.kernel, "answered(W)")}
    assert {r[0] for r in rows(s.kernel, "echo_answer[echo](W, V)")} <= answered
    for want in report.answered:
        arg = want.args[0]
        assert isinstance(arg, str) and arg.split(":")[0] in ("rows", "empty")
        n = int(arg.split(":")[1]) if arg.startswith("rows:") else 0
        assert len(rows(s.kernel, f"echo_answer[echo](W, V), want_arg(W, 1, {q(arg)})")) == n
    assert len(report.held) == max(0, len({a for a in asks if isinstance(a, str)}) - limit)
