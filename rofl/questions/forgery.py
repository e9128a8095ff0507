"""Forged facts: what boot's ``forged[audit]`` names and what only usurping rules derive, read after evaluation."""

from __future__ import annotations

from dataclasses import dataclass

from rofl.engine.clauses import Literal, Negated
from rofl.engine.kernel import Kernel

AUDIT = "audit"


@dataclass(frozen=True, slots=True)
class AuditFact:
    """One fact in [audit]: its stored relation, its arguments and its canonical text."""

    rel: str
    args: tuple
    text: str


def audit_facts(kernel: Kernel) -> dict[str, list[AuditFact]]:
    """``{relation: [fact]}`` for every relation with facts in [audit] (evaluating only what the audits
    depend on), each relation's facts in canonical order."""
    from rofl.engine.namespace import display_name
    from rofl.engine.terms import canonical_rows, format_fact

    result = kernel.evaluate(goals=kernel.names_in(AUDIT))  # only what the audits depend on
    found: dict[str, list[AuditFact]] = {}
    for rel in result.relations():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            found.setdefault(display_name(rel), []).append(AuditFact(rel, row[1:], format_fact(rel, row[0], row[1:])))
    return found


def usurped_facts(kernel: Kernel) -> list[tuple[str, str]]:
    """Facts whose every derivation is by a rule boot's ``usurp`` audit names (and that no one with
    authority asserted): reported as ``forged[audit]`` too.  Read from the finished evaluation's
    provenance, which rules cannot see inside the evaluation that derives it.  Each is ``(fact text,
    id of a usurping rule that derives it)``."""
    return [(text, rid) for text, rid, _ in _usurped(kernel)]


def _usurped(kernel: Kernel) -> list[tuple[str, str, tuple[str, tuple]]]:
    """``usurped_facts`` with each fact's ``(stored relation, row)``."""
    from rofl.engine.namespace import stored_name
    from rofl.engine.reflect import fact_term
    from rofl.engine.terms import canonical_rows, format_fact

    audits = kernel.names_in(AUDIT)
    heads: dict[str, set[str]] = {}  # usurping rule id -> the relations it concludes (stored names)
    question = "usurp[audit](R, P, _W), concludes(R, Rel)"
    # what usurp depends on (the rules as data): reused after an evaluation of every audit, cheap alone
    for d in kernel.query(question, goals={stored_name("usurp", AUDIT)}).as_dicts():
        heads.setdefault(d["R"][0], set()).add(stored_name(d["Rel"][0], d["P"][0]))
    if not heads:
        return []
    # one evaluation of what the usurped relations depend on, then each fact's provenance once:
    # linear in the facts those relations hold, whatever the number of usurped facts
    rels = set().union(*heads.values())
    result = kernel.evaluate(goals=audits | rels)
    found: list[tuple[str, str, tuple[str, tuple]]] = []
    for rel in sorted(rels):
        base = set(kernel.rows(rel))
        for row in canonical_rows(result.rows(rel)):
            record = result.provenance(rel, row)
            if record is None or row in base:
                continue  # not derived, or asserted as well: boot's forged audit judges its asserter
            if any(r not in heads for r in record.rules):
                continue  # another rule derives it too
            text = format_fact("forged", "audit", (fact_term(rel, row),))
            found.append((text, min(record.rules), (rel, row)))
    return found


def forged_facts(kernel: Kernel) -> set[tuple[str, tuple]]:
    """Every forged fact as ``(stored relation, row)``: what boot's ``forged[audit]`` names, and what only
    usurping rules derive (``usurped_facts``); empty for a store without boot's audits."""
    from rofl.engine.base.errors import UnknownRelation
    from rofl.engine.reflect import fact_from_term

    try:
        terms = [d["F"] for d in kernel.query("forged[audit](F)", goals=kernel.names_in(AUDIT)).as_dicts()]
    except UnknownRelation:  # a store without boot's audits
        return set()
    out = {ref for t in terms if (ref := fact_from_term(t)) is not None}
    return out | {ref for _, _, ref in _usurped(kernel)}


def forged_among(kernel: Kernel, refs: set[tuple[str, tuple]]) -> set[tuple[str, tuple]]:
    """Which of the facts ``refs`` (``(stored relation, row)``) are forged, as ``forged_facts`` says, asking about
    them alone when it can: while every rule concluding ``forged[audit]`` reads only relations no rule
    concludes (base facts and fact metadata, as boot's does), each rule's body is asked as a question with
    the fact bound, which looks up that fact's metadata instead of evaluating the relation over every fact
    of the store; usurped facts need the usurp audit alone.  Otherwise ``forged_facts`` decides."""
    from rofl.engine.namespace import stored_name
    from rofl.engine.reflect import fact_term
    from rofl.engine.rulebook import decode

    if not refs:
        return set()
    rules = [clause for _, clause in decode(kernel.store)[0]]
    concluded = {clause.head.rel for clause in rules}
    forged_rel = stored_name("forged", AUDIT)
    bodies = []
    for clause in (c for c in rules if c.head.rel == forged_rel):
        head = clause.head.args
        plain = all(
            (type(item) is Literal and item.rel not in concluded)
            or (type(item) is Negated and item.lit.rel not in concluded)
            for item in clause.body
        )
        if len(head) != 1 or type(head[0]) is not tuple or head[0][:1] != ("$var",) or not plain:
            return forged_facts(kernel) & refs
        bodies.append((head[0][1], clause.body, {i.rel if type(i) is Literal else i.lit.rel for i in clause.body}))
    found = {ref for _, _, ref in _usurped(kernel) if ref in refs}
    for ref in refs - found:
        term = fact_term(*ref)
        for var, body, reads in bodies:  # the relations it reads: no other is evaluated
            if kernel.query(tuple(_bound(item, var, term) for item in body), goals=set(reads)).rows:
                found.add(ref)
                break
    return found


def _bound(item: Literal | Negated, var: str, value: object) -> Literal | Negated:
    """A body item (a literal or a negated one) with variable ``var`` replaced by ``value``."""
    from dataclasses import replace

    lit = item.lit if isinstance(item, Negated) else item
    bound = replace(lit, args=tuple(value if arg == ("$var", var) else arg for arg in lit.args))
    return Negated(bound) if isinstance(item, Negated) else bound
