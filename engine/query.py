"""Conjunctive questions: a body of literals, negations and builtins, checked for safety and ordered.

Positive literals run in written order; a negation or a builtin runs as soon as its inputs are bound,
as in a rule.  A question is unsafe when some negation or builtin can never get its inputs, or when an
answer variable is bound by nothing but a negation: ``UnsafeQuery`` says which.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import builtins as B
from .base.errors import UnsafeQuery
from .clauses import (
    Aggregate,
    Builtin,
    Literal,
    Negated,
    binders,
    body_literals,
    is_wildcard,
    literal_vars,
    scope_aggregates,
    term_vars,
)
from .cycles import named_relation
from .display import item_text
from .namespace import qualify_item


@dataclass(frozen=True, slots=True)
class Question:
    """A checked question: its items in evaluation order and its answer variables in written order."""

    items: tuple
    variables: tuple[str, ...]

    @property
    def literals(self) -> tuple[Literal, ...]:
        """Every literal the question reads, positive, negated or aggregated."""
        return tuple(lit for lit, _ in body_literals(self.items))

    @property
    def goals(self) -> set[str]:
        """The relations the question needs evaluated: its literals', and any relation whose cycles it asks."""
        out = set()
        for lit in self.literals:
            out.add(lit.rel)
            named = named_relation(lit)
            if named is not None:
                out.add(named)
        return out


def _vars(item) -> set[str]:
    if isinstance(item, Literal):
        return set(literal_vars(item, {}))
    if isinstance(item, Negated):
        return set(literal_vars(item.lit, {}))
    if isinstance(item, Aggregate):
        return set(term_vars(item.result, {})) | set(item.groups)
    return set(term_vars(item.left, {})) | set(term_vars(item.right, {}))


def _ready(item, bound: set[str], outer: set[str] | frozenset[str] = frozenset()) -> bool:
    if isinstance(item, Aggregate):
        return set(item.groups) & outer <= bound
    if isinstance(item, Negated):
        return {v for v in literal_vars(item.lit, {}) if not is_wildcard(v)} <= bound
    left, right = set(term_vars(item.left, {})), set(term_vars(item.right, {}))
    return B.binds(item.op, item.left, item.right, left, right, bound) is not None


def schedule(items, bound: set[str]) -> tuple[list, list]:
    """Body items in evaluation order given the variables ``bound`` before them: positive literals as
    written, each negation or builtin as soon as its inputs are bound; and the items never ready."""
    have = set(bound)
    order: list = []
    pending: list = []
    outer = binders(tuple(items))
    for item in items:
        if isinstance(item, Literal):
            order.append(item)
            have.update(literal_vars(item, {}))
        else:
            pending.append(item)
        progress = True
        while progress:
            progress = False
            for waiting in list(pending):
                if _ready(waiting, have, outer):
                    pending.remove(waiting)
                    order.append(waiting)
                    if isinstance(waiting, (Builtin, Aggregate)):
                        have.update(_vars(waiting))  # a ready builtin binds its outputs
                    progress = True
    return order, pending


def plan(items: tuple) -> Question:
    """Order a parsed body for evaluation; raise UnsafeQuery when it cannot be made safe."""
    items = scope_aggregates(None, tuple(qualify_item(i) for i in items))
    variables: dict[str, None] = {}
    for item in items:
        for name in _vars(item) if not isinstance(item, Literal) else literal_vars(item, {}):
            if not is_wildcard(name):
                variables[name] = None
    order, pending = schedule(items, set())
    if pending:
        item = pending[0]
        bound = {v for done in order if not isinstance(done, Negated) for v in _vars(done)}
        need = sorted(v for v in _vars(item) if v not in bound and not is_wildcard(v))
        raise UnsafeQuery(f"unsafe question: {item_text(item)} needs {', '.join(need)} bound by a positive literal")
    return Question(tuple(order), tuple(variables))
