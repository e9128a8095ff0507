"""The private namespace of perspective [boot]: boot's helper relations get names no user can spell.

A literal written in perspective ``[boot]`` names the relation ``boot$rel``; ``$`` cannot be written in
source, so a user's ``dep``, ``reach`` or ``stratum`` is always another relation than boot's, with its own
rules, rows and stratum.  Only the boot program may conclude into ``[boot]``; anyone may read it.
"""

from __future__ import annotations

from dataclasses import replace

from .clauses import Clause, Literal, Negated

PRIVATE_PERSP = "boot"
_PREFIX = PRIVATE_PERSP + "$"


def private_name(rel: str) -> str:
    """The stored name of relation ``rel`` of perspective [boot]."""
    return rel if rel.startswith(_PREFIX) else _PREFIX + rel


def is_private(rel: str) -> bool:
    return rel.startswith(_PREFIX)


def display_name(rel: str) -> str:
    """The name a user writes (in perspective [boot] for a private relation)."""
    return rel[len(_PREFIX):] if rel.startswith(_PREFIX) else rel


def qualify_literal(lit: Literal) -> Literal:
    """The literal with its relation renamed into the private namespace when it is written in [boot]."""
    if lit.persp == PRIVATE_PERSP and not lit.rel.startswith(_PREFIX):
        return replace(lit, rel=_PREFIX + lit.rel)
    return lit


def qualify_item(item):
    if isinstance(item, Literal):
        return qualify_literal(item)
    if isinstance(item, Negated):
        return Negated(qualify_literal(item.lit))
    return item


def qualify(clause: Clause) -> Clause:
    """A clause with every literal written in [boot] renamed into the private namespace."""
    head = qualify_literal(clause.head)
    body = tuple(qualify_item(i) for i in clause.body)
    if head is clause.head and all(a is b for a, b in zip(body, clause.body)):
        return clause
    return replace(clause, head=head, body=body)


def writes_private(clause: Clause) -> bool:
    """Whether the clause concludes (or asserts) into perspective [boot]."""
    return clause.head.persp == PRIVATE_PERSP
