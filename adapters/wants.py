"""Wants: the ground heads of want rules as keyed wants ``$want(Cap, Args...)``, their parts and argument types.

Want rules are stored as reflected facts like any rule (their conclusion is ``$wants(Literal)``); the
kernel leaves them out of its fixpoint, and this module asks their bodies as questions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from rofl.engine import vocabulary as V
from rofl.engine.base.errors import RoflError
from rofl.engine.builtins import substitute
from rofl.engine.clauses import Literal, Negated
from rofl.engine.kernel import Kernel
from rofl.engine.reflect import WANTS, item_from_term, literal_from_term
from rofl.engine.terms import Term, format_term, quote, sort_key

from .books import Capability
from .event_time import normalise

WANT = "$want"
# The relations the runtime asserts into the world's perspective (main).
WANT_OF, WANT_ARG = "want_of", "want_arg"
ANSWERED, FAILED, HELD, INSTANT = "answered", "failed", "want_held", "instant"
STATUS_ARITY = {WANT_OF: 2, WANT_ARG: 3, ANSWERED: 1, FAILED: 2, HELD: 2, INSTANT: 2}


@dataclass(frozen=True, slots=True)
class WantRule:
    rid: str
    head: Literal
    body: tuple


@dataclass(frozen=True, slots=True)
class Want:
    """One want: capability and ground arguments; ``key`` is the term ``$want(Cap, Args...)``."""

    cap: str
    args: tuple

    @property
    def key(self) -> tuple:
        return (WANT, (self.cap,), *self.args)

    @property
    def text(self) -> str:
        """Readable text of the want, ``imports_of("main.js")``."""
        return format_term((self.cap, *self.args)) if self.args else self.cap

    @property
    def wire_key(self) -> str:
        """The key as an adapter program sees it and prints it back: a ROFL string literal."""
        return quote(self.text)

    def order(self) -> tuple:
        return (self.cap, tuple(sort_key(a) for a in self.args))


def want_rules(kernel: Kernel) -> tuple[WantRule, ...]:
    """Every want rule of the store, read back from its reflection, in rule-id order."""
    heads: dict[str, Literal] = {}
    for row in kernel.rows(V.CONCLUSION_LIT, "main"):
        term = row[3] if len(row) == 4 else None
        if isinstance(term, tuple) and len(term) == 2 and term[0] == WANTS and isinstance(row[1], tuple):
            heads[row[1][0]] = literal_from_term(term[1])
    if not heads:
        return ()
    premises: dict[str, list] = {}
    for row in kernel.rows(V.PREMISE_LIT, "main"):
        if len(row) == 4 and isinstance(row[1], tuple) and row[1][0] in heads:
            premises.setdefault(row[1][0], []).append((row[2], row[3]))
    out = []
    for rid in sorted(heads):
        body = tuple(item_from_term(t) for _, t in sorted(premises.get(rid, []), key=lambda kv: kv[0]))
        out.append(WantRule(rid, heads[rid], body))
    return tuple(out)


def body_relations(rules: Iterable[WantRule]) -> set[str]:
    """The relations the want rules' bodies read (the evaluation goals of a round)."""
    out = set()
    for rule in rules:
        for item in rule.body:
            lit = item.lit if isinstance(item, Negated) else item
            if isinstance(lit, Literal):
                out.add(lit.rel)
    return out


def collect(kernel: Kernel, rules: Iterable[WantRule], goals: set[str]) -> list[Want]:
    """Every ground head of the want rules over the current evaluation, canonically sorted."""
    found: dict[Want, None] = {}
    for rule in rules:
        answers = kernel.query(rule.body, goals=goals)
        for binding in answers.as_dicts():
            args = tuple(substitute(a, binding) for a in rule.head.args)
            if any(a is None for a in args):
                raise RoflError(
                    f"want rule {rule.rid} ({rule.head.rel}): a head variable is not bound by its body; bind it"
                )
            found[Want(rule.head.rel, args)] = None
    return sorted(found, key=Want.order)


def status_facts(want: Want) -> list[tuple[str, tuple]]:
    """``want_of(W, Cap)`` and one ``want_arg(W, Pos, Value)`` per argument."""
    key = want.key
    out: list[tuple[str, tuple]] = [(WANT_OF, (key, (want.cap,)))]
    out += [(WANT_ARG, (key, pos, value)) for pos, value in enumerate(want.args, 1)]
    return out


def wire_args(want: Want, cap: Capability) -> tuple[dict | None, str | None]:
    """The want's arguments as ``{name: JSON value}`` after checking their declared types, or the reason
    they do not fit (arity or a type): a want that does not fit is never sent."""
    if len(want.args) != len(cap.args):
        return None, f"{cap.name} takes {len(cap.args)} argument(s); this want has {len(want.args)}"
    out: dict = {}
    for arg, value in zip(cap.args, want.args):
        sent, problem = _typed(arg.type, value)
        if problem is not None:
            return None, f"argument {arg.pos} ({arg.name}) is declared {arg.type}; {problem}"
        out[arg.name] = sent
    return out, None


def _typed(kind: str, value: Term) -> tuple[object, str | None]:
    if kind == "text":
        return value, None if type(value) is str else f"got {format_term(value)}"
    if kind == "number":
        return value, None if type(value) is int else f"got {format_term(value)}"
    if kind == "atom":
        ok = isinstance(value, tuple) and len(value) == 1
        return (value[0] if ok else None), None if ok else f"got {format_term(value)}"
    if kind == "time":
        if type(value) is not str:
            return None, f"got {format_term(value)}"
        instant = normalise(value)
        return (instant.text if instant else None), None if instant else f"{format_term(value)} is not an instant"
    if type(value) is not str:  # json: a string holding JSON text, sent as the value it encodes
        return None, f"got {format_term(value)}; give JSON text in a string"
    try:
        return json.loads(value), None
    except ValueError:
        return None, f"{format_term(value)} is not JSON text"
