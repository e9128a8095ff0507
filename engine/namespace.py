"""Relation namespaces: boot's helpers (in [boot]) and the audits (in [audit]) get names no user can spell.

A literal written in perspective ``[boot]`` names the relation ``boot$rel`` (``[audit]``: ``audit$rel``);
``$`` cannot be written in source, so a user's ``dep``, ``reach``, ``stratum`` or ``leak`` is always
another relation than boot's, with its own rules, rows and stratum.  Only the boot program may conclude
into ``[boot]``; anyone may read it.  Text shows the name as written: ``dep[boot](a, b)``.
"""

from __future__ import annotations

from dataclasses import replace

from .clauses import Aggregate, BodyItem, Clause, Literal, Negated
from .vocabulary import NAMESPACES, PRIVATE_PERSP
from .vocabulary import PRIVATE_PREFIX as _PREFIX


def stored_name(rel: str, persp: object) -> str:
    """The stored name of relation ``rel`` written in perspective ``persp``."""
    if type(persp) is str and persp in NAMESPACES and "$" not in rel:
        return persp + "$" + rel
    return rel


def is_private(rel: str) -> bool:
    """Whether ``rel`` is one of boot's helpers (stored in the private perspective)."""
    return rel.startswith(_PREFIX)


def display_name(rel: str) -> str:
    """The name as its source wrote it."""
    return rel.partition("$")[2] or rel


def qualify_literal(lit: Literal) -> Literal:
    """The literal with its relation renamed into its perspective's namespace, when it has one."""
    name = stored_name(lit.rel, lit.persp)
    return lit if name == lit.rel else replace(lit, rel=name)


def qualify_item(item: BodyItem) -> BodyItem:
    if isinstance(item, Literal):
        return qualify_literal(item)
    if isinstance(item, Negated):
        return Negated(qualify_literal(item.lit))
    if isinstance(item, Aggregate):
        body = tuple(qualify_item(i) for i in item.body)
        return item if all(a is b for a, b in zip(body, item.body)) else replace(item, body=body)
    return item


def qualify(clause: Clause) -> Clause:
    """A clause with every literal written in [boot] renamed into the private namespace."""
    if not clause.body and clause.head.persp not in NAMESPACES:
        return clause  # a fact outside the namespaces (a scan loads hundreds of thousands)
    head = qualify_literal(clause.head)
    body = tuple(qualify_item(i) for i in clause.body)
    if head is clause.head and all(a is b for a, b in zip(body, clause.body)):
        return clause
    return replace(clause, head=head, body=body)


def writes_private(clause: Clause) -> bool:
    """Whether the clause concludes (or asserts) into perspective [boot]."""
    return clause.head.persp == PRIVATE_PERSP
