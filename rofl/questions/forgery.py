"""Forged facts: what boot's ``forged[audit]`` names and what only usurping rules derive, read after evaluation."""

from __future__ import annotations

from rofl.engine.kernel import Kernel

AUDIT = "audit"


def audit_rows(kernel: Kernel) -> dict[str, list[str]]:
    """``{relation: [canonical fact text]}`` for every relation with facts in [audit]."""
    from rofl.engine.namespace import display_name
    from rofl.engine.terms import canonical_rows, format_fact

    result = kernel.evaluate(goals=kernel.names_in(AUDIT))  # only what the audits depend on
    found: dict[str, list[str]] = {}
    for rel in result.relations():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            found.setdefault(display_name(rel), []).append(format_fact(rel, row[0], row[1:]))
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

    audits = kernel.names_in(AUDIT)  # the common case, no usurper, evaluates only what audits need
    heads: dict[str, set[str]] = {}  # usurping rule id -> the relations it concludes (stored names)
    question = "usurp[audit](R, P, _W), concludes(R, Rel)"
    for d in kernel.query(question, goals=audits).as_dicts():
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
