"""Builtins mean the same bottom-up and on demand: =, !=, is, integer arithmetic of any size, comparisons across kinds."""

from __future__ import annotations

import pytest
from rofl.engine.kernel import Kernel

from tests.engine.semantics import a, canon, load, rows


def test_eq_with_arithmetic_in_demand_and_bottom_up_rules():
    k = load(
        "v(1).\nr(X) :- v(Y), X = Y + 1.\nd(Y, X) :- X = Y + 1.\nt(X) :- v(Y), d(Y, X).\n"
        "g(X) :- v(X), X + 1 = 2.\nh(X) :- X + 1 = 2.\nu(X) :- v(X), h(X)."
    )
    assert rows(k, "r(X)") == [(2,)]
    assert rows(k, "t(X)") == [(2,)]
    assert rows(k, "g(X)") == rows(k, "u(X)") == [(1,)]


def test_neq_with_undefined_arithmetic_fails_the_firing():
    k = load("v(a). v(1). v(0).\nr(X) :- v(X), X + 1 != 5.\nr2(X) :- v(X), 1 / X != 7.")
    assert rows(k, "r(X)") == [(0,), (1,)]
    assert rows(k, "r2(X)") == [(1,)]


def test_eq_with_division_by_zero_fails_the_firing():
    k = load("v(0). v(2).\nr(X, Y) :- v(X), Y = 6 / X.")
    assert rows(k, "r(X, Y)") == [(2, 3)]


def test_is_with_a_non_integer_right_side():
    k = load("v(a). v(1).\nr(X) :- v(Y), X is Y.\nd(Y, X) :- X is Y.\nt(X) :- v(Y), d(Y, X).")
    assert rows(k, "t(X)") == [(1,)]
    assert rows(k, "r(X)") == rows(k, "t(X)")


@pytest.mark.parametrize(
    "expr, value",
    [
        ("-7 / 2", -3),
        ("7 / -2", -3),
        ("-7 / -2", 3),
        ("7 / 2", 3),
        ("-1 / 2", 0),
        ("-7 mod 2", 1),
        ("7 mod -2", -1),
        ("-7 mod -2", -1),
        ("7 mod 2", 1),
        ("2 * 3 mod 4", 2),
        ("10 - 4 - 3", 3),
        ("2 - -3", 5),
        ("-(2 + 3) * 2", -10),
        ("123456789012345678901234567890 * 1000000000000", 123456789012345678901234567890 * 10**12),
        ("-123456789012345678901234567891 / 2", -61728394506172839450617283945),
        ("-123456789012345678901234567891 mod 2", 1),
    ],
)
def test_arithmetic(expr, value):
    k = load(f"go(1).\nr(X) :- go(_), X is {expr}.\nd(G, X) :- X is {expr}, G = G.\nt(X) :- go(G), d(G, X).")
    assert rows(k, "r(X)") == [(value,)]
    assert rows(k, "t(X)") == [(value,)]


def test_big_integers_survive_save_and_restore(tmp_path):
    big = 2**100 + 7
    k = load(f"v({big}). v(-{big}). w(X) :- v(Y), X is Y * Y.")
    k.save(tmp_path / "s.store")
    r = Kernel.restore(tmp_path / "s.store")
    assert rows(r, "w(X)") == [(big * big,)]
    assert rows(r, "v(X)") == canon([(big,), (-big,)])
    assert rows(r, f"v({big})") == [()]


def test_comparisons_between_kinds_follow_the_canonical_order():
    # integers < strings < compounds
    k = load('v(3). v("a"). v(f(c)). v(-5). v("b").\nlt(X, Y) :- v(X), v(Y), X < Y.\nle(X, Y) :- v(X), v(Y), X <= Y.')
    order = [-5, 3, "a", "b", ("f", a("c"))]
    expected = canon(((x, y) for i, x in enumerate(order) for y in order[i + 1 :]))
    assert rows(k, "lt(X, Y)") == expected
    assert len(rows(k, "le(X, Y)")) == len(expected) + len(order)
    assert rows(k, 'lt(X, "a")') == canon([(-5,), (3,)])
