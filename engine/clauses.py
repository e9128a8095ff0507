"""Clause values: literals, negations, builtins and clauses, as the parser and the decoder build them.

Terms inside clauses use the term representation of ``engine.terms``; a variable is the term
``("$var", name)`` and an arithmetic node is ``("$arith", op, left, right)`` (``op`` one of
``+ - * / mod``; unary minus is ``0 - x``).  A clause value is transient: the kernel stores rules as
reflected facts and rebuilds these values from the store before it evaluates.
"""

from __future__ import annotations

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


BodyItem = Literal | Negated | Builtin


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
    out: dict = {}
    if isinstance(item, Literal):
        return literal_vars(item, out)
    if isinstance(item, Negated):
        return literal_vars(item.lit, out)
    term_vars(item.left, out)
    term_vars(item.right, out)
    return out
