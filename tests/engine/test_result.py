"""The one evaluation result: immutable, typed provenance records, goals as a parameter, and budgets that
cut a reused evaluation exactly where they cut a fresh one."""

from __future__ import annotations

import dataclasses

import pytest
from rofl.engine.kernel import Kernel
from rofl.engine.result import Hole, Provenance

from tests.conftest import BOOT, EXAMPLES

TC = (EXAMPLES / "tc.rofl").read_text()


def test_result_is_immutable_and_answers_rows_and_records():
    k = Kernel(BOOT)
    result = k.load_text(TC)
    assert result is k.evaluate()  # nothing changed: the same result
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.partial = True
    rows = result.rows("path", "main")
    assert isinstance(rows, tuple) and ("main", ("a",), ("d",)) in rows
    record = result.provenance("path", ("main", ("a",), ("d",)))
    assert isinstance(record, Provenance) and record.support == 1
    assert record.witness == (("edge", ("main", ("a",), ("b",))), ("path", ("main", ("b",), ("d",))))
    assert result.defines("path") and result.defines("path", "main", 2) and not result.defines("path", "code")
    assert not result.defines("nothing")
    k.assert_fact("edge", "main", (("d",), ("e",)))
    assert k.evaluate() is not result and ("main", ("a",), ("e",)) not in result.rows(
        "path"
    )  # the old result stays as it was


def test_goals_are_a_parameter_and_evaluate_only_their_cone():
    k2 = Kernel(BOOT)
    k2.load_sources([(EXAMPLES / "tc.rofl", None)], evaluate_now=False)
    part = k2.evaluate(goals={"edge"})
    assert part.goals == frozenset({"edge"}) and part.rows("path") == ()
    assert k2.evaluate(goals={"edge"}) is part
    full = k2.evaluate(goals={"path"})
    assert len(full.rows("path")) == 7


def test_holes_are_typed():
    k = Kernel(BOOT, budget=200)
    result = k.load_text("nat(0).\nnat(Y) :- nat(X), Y is X + 1.")
    assert result.partial and result.holes == (Hole(("$load", 1), "budget_exhausted"),)


def test_a_budget_cuts_a_reused_evaluation_where_it_cuts_a_fresh_one():
    from rofl.repl import Repl

    repl = Repl(Kernel(BOOT))
    repl.execute("load " + str(EXAMPLES / "tc.rofl"))
    assert repl.execute("? path(a, X)") == "X = b\nX = c\nX = d"
    first = repl.execute("budget 0 { ? path(a, X) }")
    second = repl.execute("budget 0 { ? path(a, X) }")
    assert first == second == "no\n-- partial: the budget ran out"
    assert repl.execute("? path(a, X)") == "X = b\nX = c\nX = d"
    # the same cut, fresh and reused, at every budget
    fresh_steps = Kernel(BOOT).load_text(TC).steps
    for budget in (1, fresh_steps // 2, fresh_steps - 1, fresh_steps):
        k = Kernel(BOOT)
        k.load_text(TC)
        k.budget = budget
        k.invalidate()
        reused = k.evaluate()
        fresh = Kernel(BOOT, budget=budget)
        fresh.load_sources([(EXAMPLES / "tc.rofl", None)], evaluate_now=False)
        cut = fresh.evaluate()
        assert (reused.partial, reused.steps, reused.rows("path")) == (cut.partial, cut.steps, cut.rows("path")), budget
