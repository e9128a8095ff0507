"""One table of builtins: the mode facts, safety, generated code, top-down evaluation and questions all
follow engine.builtins.TABLE, so every builtin means the same everywhere."""

from __future__ import annotations

import pytest
from rofl.engine import builtins as B
from rofl.engine.kernel import Kernel

from tests.conftest import BOOT

VALUES = 'v(1). v(2). v(-3). v("a"). v("b"). v(f(1)). v(g).'


def test_mode_facts_are_the_table():
    k = Kernel(BOOT)
    assert sorted(r[1:] for r in k.rows("mode")) == sorted(B.MODES)
    assert {op for op, _ in B.MODES} == {b.op for b in B.TABLE}


def written(op: str) -> str:
    """The builtin as source writes it over X and Y: infix (X < Y), or a call (matches(X, Y), not glob(X, Y))."""
    if not op[-1].isalpha() or op == "is":
        return f"X {op} Y"
    negated, _, name = op.rpartition(" ")
    return f"{negated + ' ' if negated else ''}{name}(X, Y)"


@pytest.mark.parametrize("op", [b.op for b in B.TABLE if b.kind == B.TEST])
def test_a_test_builtin_means_the_same_bottom_up_top_down_and_asked(op):
    k = Kernel(BOOT)
    test = written(op)
    k.load_text(f"{VALUES}\nup(X, Y) :- v(X), v(Y), {test}.\nd(X, Y) :- {test}.\ncall(X, Y) :- v(X), v(Y), d(X, Y).")
    up = set(k.query("up(X, Y)").rows)
    assert up == set(k.query("call(X, Y)").rows) == set(k.query(f"v(X), v(Y), {test}").rows)
    values = [r[1] for r in k.rows("v")]
    spec = B.BY_OP[op]
    assert up == {(x, y) for x in values for y in values if spec.test(x, y)}


def test_modes_decide_safety():
    from rofl.engine.clauses import var

    X, Y = var("X"), var("Y")
    assert B.binds("=", X, ("f", Y), {"X"}, {"Y"}, {"X"}) == {"Y"}  # io: the right pattern is bound
    assert B.binds("=", X, ("$arith", "+", Y, 1), {"X"}, {"Y"}, {"X"}) is None  # arithmetic is never an output
    assert B.binds("is", X, ("$arith", "+", Y, 1), {"X"}, {"Y"}, {"Y"}) == {"X"}
    assert B.binds("<", X, Y, {"X"}, {"Y"}, {"X"}) is None
