"""Budgets bound cost, not only firings: integers and terms that grow without end, and programs whose
stratification alone would not fit, end partial with a hole, never a traceback, a hang or a MemoryError."""

from __future__ import annotations

import time

import pytest

from engine import builtins as B
from engine.kernel import Kernel
from engine.result import Hole
from tests.conftest import BOOT

HOLE = (Hole(("$load", 1), "budget_exhausted"),)


def test_an_integer_squared_without_end_ends_partial():
    k = Kernel(BOOT)
    result = k.load_text("s(3).\nt(Y) :- s(X), Y is X * X.\ns(Y) :- t(X), Y is X * X.\nu(Y) :- s(X), Y is X * X * X.")
    assert result.partial and result.holes == HOLE
    assert max(r[1].bit_length() for r in result.rows("s")) <= B.MAX_INT_BITS


def test_a_term_grown_by_every_firing_pays_for_its_size():
    k = Kernel(BOOT)
    start = time.perf_counter()
    result = k.load_text("n(0, nil).\nn(M, cons(x, T)) :- n(N, T), N < 100000, M is N + 1.")
    assert result.partial and result.holes == HOLE
    assert time.perf_counter() - start < 20
    deepest = max(r[1] for r in result.rows("n"))
    assert 1000 < deepest < 10_000  # one step per firing would have reached 100,000


def test_term_cost_counts_compound_nodes():
    t = ("nil",)
    for _ in range(640):
        t = ("cons", ("x",), t)
    assert B.term_cost(t) == 10 and B.term_cost(("f", 1, 2)) == 0


@pytest.mark.parametrize("n", [2_000, pytest.param(10_000, marks=pytest.mark.slow)])
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
