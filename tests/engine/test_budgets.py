"""Budgets bound cost, not only firings: integers and terms that grow without end, and programs whose
stratification alone would not fit, end partial with a hole, never a traceback, a hang or a MemoryError."""

from __future__ import annotations

import time

import pytest
from rofl.engine import builtins as B
from rofl.engine.kernel import Kernel
from rofl.engine.result import Hole

from tests.conftest import BOOT

HOLE = (Hole(("$load", 1), "budget_exhausted"),)


def test_an_integer_squared_without_end_ends_partial():
    k = Kernel(BOOT)
    result = k.load_text("s(3).\nt(Y) :- s(X), Y is X * X.\ns(Y) :- t(X), Y is X * X.\nu(Y) :- s(X), Y is X * X * X.")
    assert result.partial and result.holes == HOLE
    assert max(r[1].bit_length() for r in result.rows("s")) <= B.MAX_INT_BITS


@pytest.mark.slow
def test_a_term_grown_by_every_firing_ends_partial_with_its_cells_shared():
    k = Kernel(BOOT)
    start = time.perf_counter()
    result = k.load_text("n(0, nil).\nn(M, cons(x, T)) :- n(N, T), N < 100000, M is N + 1.")
    assert result.partial and result.holes == HOLE
    assert time.perf_counter() - start < 20  # a firing costs O(1) however deep its term: no quadratic walk
    rows = {r[1]: r[2] for r in result.rows("n")}
    deepest = max(rows)
    assert 90_000 < deepest < 100_000  # the step budget ends it, one step per firing
    assert rows[deepest][2] is rows[deepest - 1]  # each new cell shares the list it extends


@pytest.mark.slow
def test_a_head_pays_one_step_per_64_nodes_it_builds():
    def steps(depth: int) -> int:
        head = "s(" * depth + "X" + ")" * depth
        k = Kernel(BOOT, budget=10**7)
        facts = "".join(f"q({i}).\n" for i in range(1000))
        base = k.load_text(facts).steps
        return k.load_text(f"p({head}) :- q(X).").steps - base

    assert steps(128) - steps(1) == 2 * 1000  # 128 built nodes per firing: two more steps each, 1,000 firings


@pytest.mark.parametrize("n", [500, pytest.param(10_000, marks=pytest.mark.slow)])
def test_a_chain_of_rules_ends_partial_in_bounded_memory(n):
    import tracemalloc

    text = "r0(1).\n" + "".join(f"r{i + 1}(X) :- r{i}(X).\n" for i in range(n))
    tracemalloc.start()
    try:
        k = Kernel(BOOT)
        result = k.load_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.partial and result.holes == HOLE
    assert peak < 400 * 2**20
