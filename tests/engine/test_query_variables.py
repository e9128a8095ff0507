"""Variables in rules and in ? queries: named underscore variables, repeated variables, wildcards, constants, compounds."""

from __future__ import annotations

import pytest
from rofl.engine.base.errors import UnknownRelation

from tests.engine.semantics import a, canon, load, rows


def test_a_variable_named_underscore_digit_is_an_ordinary_named_variable():
    k = load("q(a, b). s(c).\np(X, _1) :- q(X, _), s(_1).")
    assert rows(k, "p(X, Y)") == [(a("a"), a("c"))]


def test_query_repeated_variables_wildcards_constants_and_compounds():
    k = load('p(1, 1). p(1, 2). p(f(a), f(a)). p(f(a), f(b)). p("s", 1).\nq[s1](1, 2). q[s2](3, s2).')
    assert rows(k, "p(X, X)") == canon([(1,), (("f", a("a")),)])
    assert k.query("p(_, _)").rows == ((),) and k.query("p(_, _)").variables == ()
    assert rows(k, "p(_, X)") == canon([(1,), (2,), (("f", a("a")),), (("f", a("b")),)])
    assert rows(k, "p(f(X), f(Y))") == canon([(a("a"), a("a")), (a("a"), a("b"))])
    assert rows(k, "p(f(X), f(X))") == [(a("a"),)]
    assert rows(k, 'p("s", X)') == [(1,)]
    assert rows(k, "p(1, 3)") == []
    with pytest.raises(UnknownRelation, match=r"q exists in \[s1\], \[s2\]"):  # [main] only
        k.query("q(X, Y)")
    assert rows(k, "q[S](X, Y)") == canon([(a("s1"), 1, 2), (a("s2"), 3, a("s2"))])
    assert rows(k, "q[S](X, S)") == [(a("s2"), 3)]
