"""Stratified negation: wildcards, partly ground compounds, perspectives, and negative cycles that are refused and rolled back."""

from __future__ import annotations

import pytest

from tests.engine.semantics import a, canon, load, rows


def test_stratified_negation_with_wildcards_mixed_and_undefined_relations():
    k = load(
        "node(a). node(b). node(c). node(d).\n"
        "edge(a, b). edge(b, c).\n"
        "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"
        "source(X) :- node(X), not path(_, X).\n"
        "sink(X) :- node(X), not path(X, _).\n"
        "mark(d).\nmark(X) :- edge(X, _).\n"  # facts and rules
        "unmarked(X) :- node(X), not mark(X).\n"
        "free(X) :- node(X), not never_defined(X).\n"
    )
    assert rows(k, "source(X)") == [(a("a"),), (a("d"),)]
    assert rows(k, "sink(X)") == [(a("c"),), (a("d"),)]
    assert rows(k, "unmarked(X)") == [(a("c"),)]
    assert len(rows(k, "free(X)")) == 4


def test_negation_with_a_partly_ground_compound_argument():
    k = load("q(a, g(1)). s(a).\np(X) :- s(X), not q(X, f(_)).")
    assert rows(k, "p(X)") == [(a("a"),)]


def test_negation_of_a_demand_literal_with_a_partly_ground_compound():
    k = load("s(a).\nd(X, Y) :- X = X, Y = g(1).\np(X) :- s(X), not d(X, f(_)).")
    assert rows(k, "p(X)") == [(a("a"),)]


def test_negation_with_a_wildcard_perspective():
    k = load("q[s1](a). s(a). s(b).\np(X) :- s(X), not q[_](X).")
    assert rows(k, "p(X)") == [(a("b"),)]


def test_negation_with_a_perspective_variable_bound_to_a_non_atom():
    k = load('src(s1, 5). src("s2", 6). src(3, 7).\nq[s1](5).\nu(S) :- src(S, X), not q[S](X).')
    # q["s2"](6) and q[3](7) cannot hold, so their negations succeed
    assert rows(k, "u(S)") == canon([("s2",), (3,)])


def test_a_negative_cycle_through_a_demand_relation_is_rejected_and_rolled_back():
    from rofl.engine.base.errors import LoadRejected

    k = load("s(1).")
    before = k.facts()
    with pytest.raises(LoadRejected, match="unstratified"):
        k.load_text("p(X) :- s(X), not d(X).\nd(X) :- X > 0, p(X).")
    assert k.facts() == before
