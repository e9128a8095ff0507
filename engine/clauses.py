"""Clause values: literals, negations, builtins, aggregates and clauses, as the parser and the decoder build them.

Terms inside clauses use the term representation of ``engine.terms``; a variable is the term
``("$var", name)`` and an arithmetic node is ``("$arith", op, left, right)`` (``op`` one of
``+ - * / mod``; unary minus is ``0 - x``).  A clause value is transient: the kernel stores rules as
reflected facts and rebuilds these values from the store before it evaluates.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .builtins import MODES
from .terms import Term

VAR = "$var"
ARITH = "$arith"
NOW, NEXT, INIT = "now", "next", "init"
COMPARISONS = tuple(op for op, _ in MODES)  # the builtins' operators, from engine.builtins.TABLE


WILDCARD_PREFIX = "_$"  # "_" becomes _$1, _$2, ...: names source text cannot spell


def var(name: str) -> tuple:
    return (VAR, name)


def is_wildcard(name: str) -> bool:
    return name.startswith(WILDCARD_PREFIX)


def is_var(term: Term) -> bool:
    return type(term) is tuple and len(term) == 2 and term[0] == VAR and type(term[1]) is str


@dataclass(frozen=True, slots=True)
class Literal:
    rel: str
    persp: Term  # a perspective name (str) or a variable term
    args: tuple
    temporal: str = NOW


@dataclass(frozen=True, slots=True)
class Negated:
    lit: Literal


@dataclass(frozen=True, slots=True)
class Builtin:
    op: str
    left: Term
    right: Term


AGGREGATE_OPS = ("count", "sum", "min", "max")


@dataclass(frozen=True, slots=True)
class Aggregate:
    """``Result = op Value : { body }``: the count, sum, min or max of ``value`` over the distinct
    solutions of the inner conjunction ``body`` (``value`` is 1 for count).

    ``groups`` are the inner variables the rest of the rule shares (its head, its other premises, other
    aggregates' results): the aggregate is computed per group.  Groups the rest of the body binds are
    bound before the aggregate runs (an empty group counts 0); the others are bound by the aggregate,
    one answer per group that has solutions.  ``scope_aggregates`` computes them from the clause."""

    op: str
    result: Term
    value: Term
    body: tuple
    groups: tuple = ()


BodyItem = Literal | Negated | Builtin | Aggregate


@dataclass(frozen=True, slots=True)
class Clause:
    """A fact (empty body), a rule, or a want rule; ``bridge`` marks a declared perspective crossing."""

    head: Literal
    body: tuple = ()
    want: bool = False
    bridge: bool = False
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


def term_vars(term: Term, out: dict) -> dict:
    """Collect the variable names of ``term`` into the ordered dict ``out`` (insertion order)."""
    if isinstance(term, tuple):
        if len(term) == 2 and term[0] == VAR:
            out[term[1]] = None
        else:
            for a in term[1:]:
                term_vars(a, out)
    return out


def literal_vars(lit: Literal, out: dict) -> dict:
    if is_var(lit.persp):
        out[lit.persp[1]] = None
    for a in lit.args:
        term_vars(a, out)
    return out


def item_vars(item: BodyItem) -> dict:
    """The variables of a body item; an aggregate's are its result's and its groups (the others are local)."""
    out: dict = {}
    if isinstance(item, Literal):
        return literal_vars(item, out)
    if isinstance(item, Negated):
        return literal_vars(item.lit, out)
    if isinstance(item, Aggregate):
        term_vars(item.result, out)
        out.update(dict.fromkeys(item.groups))
        return out
    term_vars(item.left, out)
    term_vars(item.right, out)
    return out


def inner_vars(agg: Aggregate) -> dict:
    """Every variable of an aggregate's inner conjunction (its groups and its local variables)."""
    out: dict = {}
    for item in agg.body:
        out.update(item_vars(item))
    term_vars(agg.value, out)
    return out


def scope_aggregates(head: Literal | None, body: tuple) -> tuple:
    """``body`` with each aggregate's ``groups`` set: its inner variables that the head, the other
    non-aggregate items or another aggregate's result also name (wildcards are never shared)."""
    if not any(type(item) is Aggregate for item in body):
        return body
    out = []
    for k, item in enumerate(body):
        if type(item) is not Aggregate:
            out.append(item)
            continue
        rest: dict = literal_vars(head, {}) if head is not None else {}
        for j, other in enumerate(body):
            if j == k:
                continue
            if type(other) is Aggregate:
                term_vars(other.result, rest)
            else:
                rest.update(item_vars(other))
        groups = tuple(n for n in inner_vars(item) if n in rest and not is_wildcard(n))
        out.append(Aggregate(item.op, item.result, item.value, item.body, groups))
    return tuple(out)


def binders(body: tuple) -> set[str]:
    """The variables that a body's positive literals, ``is`` and ``=`` can bind: an aggregate waits for
    those of its groups, so that a group bound by the rule is never enumerated from the aggregate."""
    out: set[str] = set()
    for item in body:
        if type(item) is Literal:
            out.update(literal_vars(item, {}))
        elif type(item) is Builtin and item.op in ("is", "="):
            out.update(item_vars(item))
    return out


def body_literals(body: tuple) -> Iterator[tuple[Literal, bool]]:
    """``(literal, complete)`` for every literal a body reads, an aggregate's inner ones included:
    ``complete`` when the literal must be finished before the rule runs (negated or aggregated)."""
    for item in body:
        if type(item) is Literal:
            yield item, False
        elif type(item) is Negated:
            yield item.lit, True
        elif type(item) is Aggregate:
            for inner in item.body:
                if type(inner) is Literal:
                    yield inner, True
                elif type(inner) is Negated:
                    yield inner.lit, True
