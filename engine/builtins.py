"""The builtins: one table (name, modes, kind, function) and the arithmetic they evaluate.

Safety and scheduling (``ready``/``binds``), code generation (``engine.plan``), top-down evaluation
(``engine.demand``) and the ``mode`` facts the kernel emits all derive from ``TABLE``.  A mode names,
for the left and the right side, ``i`` (an input: every variable bound) or ``o`` (an output: a pattern
whose unbound variables the builtin binds; arithmetic cannot be solved, so it is never an output).
Every arithmetic operation fails (None) on non-integers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import text_builtins as T
from .base.errors import BudgetExhausted
from .costs import MAX_INT_BITS
from .terms import Term, compound, sort_key

# An integer that arithmetic would take or make larger than MAX_INT_BITS ends the evaluation partial
# (a hole); what a step builds is charged by the code that runs the step (engine.costs).


def add(a: Term, b: Term):
    if type(a) is int and type(b) is int:
        if max(a.bit_length(), b.bit_length()) >= MAX_INT_BITS:
            raise BudgetExhausted()
        return a + b
    return None


def sub(a: Term, b: Term):
    if type(a) is int and type(b) is int:
        if max(a.bit_length(), b.bit_length()) >= MAX_INT_BITS:
            raise BudgetExhausted()
        return a - b
    return None


def mul(a: Term, b: Term):
    if type(a) is int and type(b) is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise BudgetExhausted()
        return a * b
    return None


def div(a: Term, b: Term):
    """Integer division truncating toward zero; None on division by zero."""
    if type(a) is int and type(b) is int and b != 0:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return None


def mod(a: Term, b: Term):
    """Remainder with the sign of the divisor (floored), None on zero."""
    if type(a) is int and type(b) is int and b != 0:
        return a % b
    return None


ARITH_FUNCS = {"+": add, "-": sub, "*": mul, "/": div, "mod": mod}


def lt(a: Term, b: Term) -> bool:
    if type(a) is int and type(b) is int:
        return a < b
    if a is None or b is None:
        return False
    return sort_key(a) < sort_key(b)


def le(a: Term, b: Term) -> bool:
    if type(a) is int and type(b) is int:
        return a <= b
    if a is None or b is None:
        return False
    return sort_key(a) <= sort_key(b)


def gt(a: Term, b: Term) -> bool:
    return lt(b, a)


def ge(a: Term, b: Term) -> bool:
    return le(b, a)


def ne(a: Term, b: Term) -> bool:
    return a != b


COMPARE_FUNCS = {"<": lt, "<=": le, ">": gt, ">=": ge, "!=": ne}

# kinds: "test" holds when ``test(left, right)``; "unify" makes the two sides equal (either may be the
# output pattern); "assign" evaluates the right side to an integer and matches the left side to it
TEST, UNIFY, ASSIGN = "test", "unify", "assign"


@dataclass(frozen=True, slots=True)
class Builtin:
    op: str
    modes: tuple[str, ...]
    kind: str
    test: Callable | None = None  # for "test" builtins
    code: str = ""  # the name generated code calls ``test`` by


TABLE: tuple[Builtin, ...] = (
    Builtin("=", ("io", "oi", "ii"), UNIFY),
    Builtin("!=", ("ii",), TEST, ne, "_ne"),
    Builtin("<", ("ii",), TEST, lt, "_lt"),
    Builtin("<=", ("ii",), TEST, le, "_le"),
    Builtin(">", ("ii",), TEST, gt, "_gt"),
    Builtin(">=", ("ii",), TEST, ge, "_ge"),
    Builtin("is", ("oi", "ii"), ASSIGN),
    # written as calls, ``matches(Text, Regex)``; ``not glob(...)`` is the row "not glob" (engine.text_builtins)
    Builtin("matches", ("ii",), TEST, T.matches, "_matches"),
    Builtin("glob", ("ii",), TEST, T.glob, "_glob"),
    Builtin("not matches", ("ii",), TEST, T.not_matches, "_not_matches"),
    Builtin("not glob", ("ii",), TEST, T.not_glob, "_not_glob"),
)
BY_OP = {b.op: b for b in TABLE}
MODES: tuple[tuple[str, str], ...] = tuple((b.op, "|".join(b.modes)) for b in TABLE)
ARITH_CODE = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "mod": "_mod"}
CODE_GLOBALS = {**{b.code: b.test for b in TABLE if b.code}, **{ARITH_CODE[op]: fn for op, fn in ARITH_FUNCS.items()}}


def has_arith(term: Term) -> bool:
    return isinstance(term, tuple) and len(term) > 1 and (term[0] == "$arith" or any(has_arith(a) for a in term[1:]))


def binds(op: str, left, right, left_vars: set, right_vars: set, bound: set) -> set | None:
    """The variables a builtin binds when run with ``bound`` known (empty when it only tests), or None
    when no mode of it applies yet (some input is unbound)."""
    spec = BY_OP[op]
    for mode in spec.modes:
        out: set = set()
        ok = True
        for side, term, names in ((mode[0], left, left_vars), (mode[1], right, right_vars)):
            if names <= bound:
                continue
            if side == "o" and not has_arith(term):
                out |= names - bound
            else:
                ok = False
                break
        if ok:
            return out
    return None


def evaluate(expr: Term, binding: dict, arith: bool = True) -> Term | None:
    """The value of a term under ``binding`` (name -> term), arithmetic evaluated at any depth (left a
    compound when not ``arith``: ``substitute``); None when a variable is unbound or the arithmetic is
    undefined."""
    if isinstance(expr, tuple):
        if arith and expr[0] == "$arith":
            return ARITH_FUNCS[expr[1]](evaluate(expr[2], binding), evaluate(expr[3], binding))
        if len(expr) == 2 and expr[0] == "$var":
            return binding.get(expr[1])
        if len(expr) == 1:
            return expr
        args = []
        for a in expr[1:]:
            v = evaluate(a, binding, arith)
            if v is None:
                return None
            args.append(v)
        return compound(expr[0], *args)
    return expr


def substitute(term: Term, binding: dict) -> Term | None:
    """The term with its variables replaced; None when a variable is unbound."""
    return evaluate(term, binding, False)


def match(pattern: Term, value: Term, binding: dict) -> bool:
    """One-way unification of a pattern against a ground value, extending ``binding`` in place."""
    if isinstance(pattern, tuple):
        if len(pattern) == 2 and pattern[0] == "$var":
            name = pattern[1]
            bound = binding.get(name)
            if bound is None:
                binding[name] = value
                return True
            return bound == value
        if not isinstance(value, tuple) or len(value) != len(pattern) or value[0] != pattern[0]:
            return False
        for p, v in zip(pattern[1:], value[1:]):
            if not match(p, v, binding):
                return False
        return True
    return type(pattern) is type(value) and pattern == value
