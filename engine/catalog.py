"""What relations exist: signatures (name, perspective, arity) defined by base facts, rules or the kernel.

A question over a relation that nothing defines in the perspective and arity asked is a user error, not
an empty answer: ``UnknownRelation`` names the closest signatures that do exist.  A relation the loader
declares (``Kernel.declare``: a vocabulary it knows, such as a scanner's) is defined even with no rows.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from . import vocabulary as V
from .base.errors import UnknownRelation
from .clauses import Literal, is_var
from .namespace import display_name, is_private
from .rulebook import DecodedRules
from .store import Store

ANY = None  # a variable perspective: the relation is defined in every perspective


@dataclass(frozen=True, slots=True, order=True)
class Signature:
    """A relation as a user names it: ``rel[persp]/arity``; ``persp`` None means any perspective."""

    rel: str
    persp: str | None
    arity: int

    def text(self) -> str:
        where = "any perspective" if self.persp is None else self.persp
        name = display_name(self.rel)
        return (
            f"{name}[{where}]/{self.arity}" if self.persp is not None else f"{name}/{self.arity} (in any perspective)"
        )


def _rule_signatures(decoded: DecodedRules) -> set[Signature]:
    out = set()
    for rule in decoded.rules:
        head = rule.clause.head
        out.add(Signature(head.rel, None if is_var(head.persp) else head.persp, len(head.args)))
    return out


def _base_signatures(store: Store, rel: str) -> set[Signature]:
    out = set()
    for row in store.base.get(rel, ()):
        out.add(Signature(rel, row[0], len(row) - 1))
    return out


def defines(store: Store, decoded: DecodedRules, rel: str, persp: str | None, arity: int) -> bool:
    """Whether base facts, a rule or the kernel define ``rel`` in ``persp`` (None: some perspective) with ``arity``."""
    if rel in V.RESERVED_SET:
        return V.RESERVED_ARITY.get(rel) == arity and (persp in (None, "main") or rel == V.CYCLE_COMPONENT)
    for rule in decoded.rules:
        head = rule.clause.head
        if head.rel == rel and len(head.args) == arity and (persp is None or is_var(head.persp) or head.persp == persp):
            return True
    width = arity + 1
    rows = store.base.get(rel)
    if not rows:  # facts of a finished tick are gone, but edb(Rel) remembers the relation had some
        return ("main", (rel,)) in store.base.get(V.EDB, ())
    for row in rows:
        if len(row) == width and (persp is None or row[0] == persp):
            return True
    return False


def signatures(store: Store, decoded: DecodedRules) -> list[Signature]:
    """Every defined signature, sorted: reserved relations, rule heads and base facts."""
    out = _rule_signatures(decoded)
    for rel in store.relations():
        if rel not in V.RESERVED_SET:
            out |= _base_signatures(store, rel)
    out |= {Signature(rel, "main", n) for rel, n in V.RESERVED_ARITY.items()}
    return sorted(out, key=lambda s: (s.rel, s.persp or "", s.arity))


def declares(declared: frozenset[Signature], rel: str, persp: str | None, arity: int) -> bool:
    """Whether a declaration (``Kernel.declare``: a relation the loader knows, even with no rows) names
    ``rel`` with ``arity`` in ``persp`` (None: some perspective)."""
    return any(s.rel == rel and s.arity == arity and (persp is None or s.persp in (None, persp)) for s in declared)


def check_literal(
    store: Store, decoded: DecodedRules, lit: Literal, declared: frozenset[Signature] = frozenset()
) -> None:
    """Raise UnknownRelation when nothing defines (or declares) the literal's relation where it asks."""
    persp = None if is_var(lit.persp) else lit.persp
    if defines(store, decoded, lit.rel, persp, len(lit.args)) or declares(declared, lit.rel, persp, len(lit.args)):
        return
    asked = Signature(lit.rel, persp, len(lit.args))
    known = [s for s in {*signatures(store, decoded), *declared} if is_private(s.rel) == is_private(lit.rel)]
    same = [s for s in known if s.rel == lit.rel]
    names = sorted({s.rel for s in known})
    close = difflib.get_close_matches(lit.rel, names, n=3, cutoff=0.6)
    ranked = same + [
        s for name in close if name != lit.rel for s in known if s.rel == name and s.arity == len(lit.args)
    ]
    ranked += [s for name in close if name != lit.rel for s in known if s.rel == name and s.arity != len(lit.args)]
    picks = list(dict.fromkeys(ranked))[:3]
    message = f"no relation {asked.text()}"
    if same:
        where = sorted({f"[{s.persp}]" if s.persp is not None else "every perspective" for s in same})
        message += f"; {display_name(lit.rel)} exists in {', '.join(where)}"
    if picks:
        texts = [s.text() for s in picks]
        choice = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]
        message += f"; did you mean {choice}?"
    else:
        message += "; no fact and no rule defines it"
    raise UnknownRelation(message)


@dataclass(frozen=True, slots=True)
class RelationInfo:
    """One relation as ``rofl relations`` lists it: its signature, how many rows hold now, and what defines it
    (``rules``, ``facts`` or ``kernel``)."""

    rel: str  # the stored name (private names keep their prefix)
    persp: str
    arity: int
    rows: int
    origin: str

    @property
    def name(self) -> str:
        return display_name(self.rel)


def inventory(store: Store, decoded: DecodedRules, tables: dict) -> list[RelationInfo]:
    """Every relation signature that is defined or holds rows, with its row count, canonically sorted."""
    counts: dict[tuple, int] = {}
    for rel, table in tables.items():
        for row in table.rows:
            key = (rel, row[0], len(row) - 1)
            counts[key] = counts.get(key, 0) + 1
    origin: dict[tuple, str] = {}
    for rel in store.relations():
        for row in store.base[rel]:
            origin.setdefault((rel, row[0], len(row) - 1), "kernel" if rel in V.RESERVED_SET else "facts")
    for rel, arity in V.RESERVED_ARITY.items():
        origin[(rel, "main", arity)] = "kernel"
    var_heads: set[tuple] = set()
    for rule in decoded.rules:
        head = rule.clause.head
        if is_var(head.persp):
            var_heads.add((head.rel, len(head.args)))
        else:
            origin[(head.rel, head.persp, len(head.args))] = "rules"
    for key in counts:
        if key not in origin and (key[0], key[2]) in var_heads:
            origin[key] = "rules"
    out = [
        RelationInfo(rel, persp, arity, counts.get((rel, persp, arity), 0), how)
        for (rel, persp, arity), how in origin.items()
    ]
    return sorted(out, key=lambda r: (r.persp, r.name, r.arity))
