"""Budgets: exactly at the limit, and partial answers are always subsets of the complete ones."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel

from tests.engine.program_gen import generate
from tests.engine.semantics import LEN, a, cons_list, load, rows

TC = "e(1, 2). e(2, 3). e(3, 4). e(4, 5).\np(X, Y) :- e(X, Y).\np(X, Z) :- e(X, Y), p(Y, Z).\nn(X) :- e(X, _), not p(X, 5).\n"


def test_budget_exactly_at_the_limit():
    steps = load(TC, budget=10**7).outcome.steps
    at = load(TC, budget=steps)
    assert not at.outcome.partial and rows(at, "hole(Q, R)") == []
    below = load(TC, budget=steps - 1)
    assert below.outcome.partial and rows(below, "hole(Q, R)") == [(("$load", 1), a("budget_exhausted"))]
    assert set(below.facts()) - set(at.facts()) <= {("hole", ("main", ("$load", 1), a("budget_exhausted")))}


def _domain_facts(k: Kernel) -> set:
    return {f for f in k.facts() if f[0] != "hole"}


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), fraction=st.floats(0.0, 1.0))
def test_partial_answers_are_subsets_of_the_complete_answer(seed, fraction):
    prog = generate(seed, premise_free=0.2).rofl()
    full = load(prog, budget=10**7)
    assert not full.outcome.partial
    steps = full.outcome.steps
    budget = max(1, int(steps * fraction))
    cut = load(prog, budget=budget)
    assert cut.outcome.partial == (budget < steps)
    assert _domain_facts(cut) <= _domain_facts(full)


@settings(max_examples=25, deadline=None)
@given(budget=st.integers(1, 120), length=st.integers(0, 12))
def test_partial_demand_answers_are_subsets_of_the_complete_answer(budget, length):
    q = f"len({cons_list(range(length))}, N)"
    ans = load(LEN).query(q, budget=budget)
    assert set(ans.rows) <= {(length,)}
    assert ans.partial or ans.rows == ((length,),)


def test_partial_results_under_random_budgets_with_negation_are_subsets():
    rng = random.Random(7)
    prog = TC + "far(X) :- e(X, _), not n(X).\n"
    full = load(prog, budget=10**7)
    steps = full.outcome.steps
    for budget in sorted({rng.randint(1, steps) for _ in range(12)}):
        cut = load(prog, budget=budget)
        assert _domain_facts(cut) <= _domain_facts(full), budget
