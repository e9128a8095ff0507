"""Lean relations: facts that keep no provenance record still answer every provenance question alike.

A relation whose rules all find their witness again through indexes keeps, for a loading evaluation,
once it has more than ``LEAN_FROM`` facts (here from its first), no record per fact (``engine.evaluate.LeanRecords``): its rules, witness and history are found when
asked.  Naive evaluation keeps every record, so it is the oracle: the same derived facts with the same
rules, the same frozen history across ticks (the first tick takes the loading evaluation over), and
a well-founded proof of each fact.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine import evaluate
from rofl.engine.evaluate import LeanRecords
from rofl.engine.explain import why
from rofl.engine.kernel import Kernel

from tests.engine.proofs import assert_valid_proof

EDGES = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=14, unique=True)

# two rules conclude each of reach and hop (a fact may have both), tick/1 runs in ticks
PROGRAM = """
reach(X, Y) :- edge(X, Y).
reach(X, Z) :- edge(X, Y), reach(Y, Z).
reach(X, Y) :- back(Y, X).
hop(X) :- reach(X, _).
hop(Y) :- reach(_, Y), not edge(Y, Y).
tick(0)@init.
tick(N)@next :- tick(M), N is M + 1, N < 3.
"""


def _kernel(edges: list[tuple[int, int]], naive: bool) -> Kernel:
    k = Kernel(budget=10**8, naive=naive)
    facts = "".join(f"edge({a}, {b}).\n" for a, b in edges)
    facts += "".join(f"back({b}, {a}).\n" for a, b in edges[::3])
    k.load_text(PROGRAM + facts)
    return k


def _derivations(k: Kernel) -> dict:
    return {(rel, row): (p.support, tuple(sorted(p.rules))) for rel, row, p in k.outcome.derived()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=EDGES)
def test_lean_relations_answer_as_the_records_of_naive_evaluation(
    edges: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(evaluate, "LEAN_FROM", 0)  # lean from the first fact: these relations are small
    lean, naive = _kernel(edges, naive=False), _kernel(edges, naive=True)
    full = lean.outcome
    assert isinstance(full._ctx.provs["reach"], LeanRecords)  # what this test is about
    assert _derivations(lean) == _derivations(naive)
    for rel, row, record in full.derived():
        node = why(full._ctx, lean.store, rel, row)
        assert node is not None and record.rule == node.rule
        assert_valid_proof(lean, full, node)
    for k in (lean, naive):
        k.run()
    assert sorted(lean.store.history.entries()) == sorted(naive.store.history.entries())
