"""Rules as data: a clause to its reflected facts, and reflected facts back to clauses.

Reified forms (all terms):
  literal   $lit(Rel, Persp, $args(A1, ..., An), Temporal)   Persp an atom or $var(Name)
  negation  $not(Literal)
  builtin   $builtin(Op, Left, Right)                          Op a string
  want head $wants(Literal)                                   (a want rule's conclusion)
  aggregate $agg(Op, Result, Value, $body(Item1, ..., Itemn))  Op a string; Value 1 for count

An aggregate's inner relations are reflected as ``premise_neg``: like a negated relation, an
aggregated one must be complete before the rule runs, so boot puts the head a stratum above it and
condemns a cycle through it (``unstratified``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

try:  # CPython's own BLAKE2: ``hashlib`` would load OpenSSL's libcrypto (3.7 MB resident) that rule ids never use
    from _blake2 import blake2b
except ImportError:  # an interpreter without that builtin module
    from hashlib import blake2b

from . import vocabulary as V
from .clauses import AGGREGATE_OPS, Aggregate, Builtin, Clause, Literal, Negated, is_var
from .cycles import named_relation
from .terms import Term, format_term

if TYPE_CHECKING:
    from .kernel import Kernel

LIT, NOT, BUILTIN, ARGS, WANTS, FACT = "$lit", "$not", "$builtin", "$args", "$wants", "$fact"
AGG, AGG_BODY = "$agg", "$body"
_TEMPORAL_ATOMS = {"now": ("$now",), "next": ("$next",), "init": ("$init",)}
_TEMPORAL_NAMES = {v[0]: k for k, v in _TEMPORAL_ATOMS.items()}


def fact_term(rel: str, row: tuple) -> tuple:
    """``$fact(Rel, Persp, $args(...))`` for a stored row ``(persp, *args)``."""
    return (FACT, (rel,), (row[0],), (ARGS, *row[1:]))


def fact_from_term(term: Term) -> tuple[str, tuple] | None:
    """Inverse of fact_term: ``(rel, row)``, or None when ``term`` is not a fact reference."""
    if isinstance(term, tuple) and len(term) == 4 and term[0] == FACT:
        rel, persp, args = term[1], term[2], term[3]
        if (
            type(rel) is tuple
            and len(rel) == 1
            and type(persp) is tuple
            and len(persp) == 1
            and isinstance(args, tuple)
            and args[0] == ARGS
        ):
            return rel[0], (persp[0], *args[1:])
    return None


def well_formed(term: Term) -> bool:
    """Every $var(Name) inside a reified term names its variable with a string."""
    stack = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple):
            if len(t) == 2 and t[0] == "$var":
                if type(t[1]) is not str:
                    return False
            else:
                stack.extend(t[1:])
    return True


def literal_term(lit: Literal) -> tuple:
    persp = lit.persp if is_var(lit.persp) else (lit.persp,)
    return (LIT, (lit.rel,), persp, (ARGS, *lit.args), _TEMPORAL_ATOMS[lit.temporal])


def item_term(item) -> tuple:
    if isinstance(item, Literal):
        return literal_term(item)
    if isinstance(item, Negated):
        return (NOT, literal_term(item.lit))
    if isinstance(item, Aggregate):
        return (AGG, item.op, item.result, item.value, (AGG_BODY, *(item_term(i) for i in item.body)))
    return (BUILTIN, item.op, item.left, item.right)


def literal_from_term(term: Term) -> Literal:
    if not (isinstance(term, tuple) and len(term) == 5 and term[0] == LIT):
        raise ValueError(f"not a reified literal: {format_term(term)}")
    _, rel, persp, args, temporal = term
    p = persp if is_var(persp) else persp[0]
    return Literal(rel[0], p, tuple(args[1:]), _TEMPORAL_NAMES[temporal[0]])


def item_from_term(term: Term):
    if isinstance(term, tuple) and term and term[0] == NOT:
        return Negated(literal_from_term(term[1]))
    if isinstance(term, tuple) and term and term[0] == BUILTIN:
        return Builtin(term[1], term[2], term[3])
    if isinstance(term, tuple) and len(term) == 5 and term[0] == AGG:
        _, op, result, value, body = term
        if op not in AGGREGATE_OPS or not (isinstance(body, tuple) and len(body) > 1 and body[0] == AGG_BODY):
            raise ValueError(f"not a reified aggregate: {format_term(term)}")
        items = tuple(item_from_term(t) for t in body[1:])
        if any(isinstance(i, Aggregate) for i in items):
            raise ValueError("an aggregate inside an aggregate")
        return Aggregate(op, result, value, items)
    return literal_from_term(term)


def clause_text(clause: Clause) -> str:
    """Canonical text of a clause; its hash is the rule id."""
    head = format_term(literal_term(clause.head))
    body = ", ".join(format_term(item_term(i)) for i in clause.body)
    prefix = "want " if clause.want else "bridge " if clause.bridge else ""
    return f"{prefix}{head} :- {body}."


def rule_id(clause: Clause) -> str:
    return "r" + blake2b(clause_text(clause).encode("utf-8"), digest_size=8).hexdigest()


def _persp_atom(persp: Term) -> tuple:
    return (V.ANY_PERSP,) if is_var(persp) else (persp,)


def reflect(clause: Clause) -> tuple[str, list[tuple[str, tuple]]]:
    """The rule id and the reflected facts ``(rel, row)`` of a rule (rows carry perspective main)."""
    rid = rule_id(clause)
    r = (rid,)
    out: list[tuple[str, tuple]] = [(V.RULE, ("main", r))]
    reads: dict = {}
    for k, item in enumerate(clause.body, 1):
        out.append((V.HAS_PREMISE, ("main", r, k)))
        out.append((V.PREMISE_LIT, ("main", r, k, item_term(item))))
        if isinstance(item, Literal):
            out.append((V.PREMISE_POS, ("main", r, (item.rel,))))
            named = named_relation(item)
            if named is not None:  # cycle_component reads the relation it names whole, as negation does
                out.append((V.PREMISE_NEG, ("main", r, (named,))))
            reads[_persp_atom(item.persp)] = None
        elif isinstance(item, Negated):
            out.append((V.PREMISE_NEG, ("main", r, (item.lit.rel,))))
            reads[_persp_atom(item.lit.persp)] = None
        elif isinstance(item, Aggregate):
            for inner in item.body:  # aggregated relations are read whole, as negated ones are
                lit = inner.lit if isinstance(inner, Negated) else inner
                if isinstance(lit, Literal):
                    out.append((V.PREMISE_NEG, ("main", r, (lit.rel,))))
                    reads[_persp_atom(lit.persp)] = None
                else:
                    out.append((V.USES_BUILTIN, ("main", r, inner.op)))
        else:
            out.append((V.USES_BUILTIN, ("main", r, item.op)))
    head = literal_term(clause.head)
    # an @next head is staged for the next tick: it is no dependency inside the current one
    out.append((V.STAGES if clause.head.temporal == "next" else V.CONCLUDES, ("main", r, (clause.head.rel,))))
    out.append((V.HAS_CONCLUSION, ("main", r, 1)))
    out.append((V.CONCLUSION_LIT, ("main", r, 1, (WANTS, head) if clause.want else head)))
    to = _persp_atom(clause.head.persp)
    out.append((V.WRITES_TO, ("main", r, to)))
    for p in reads:
        out.append((V.READS_FROM, ("main", r, p)))
        if clause.bridge and p != to:
            out.append((V.BRIDGE_DECL, ("main", r, p, to)))
    return rid, out


def has_wants(kernel: Kernel) -> bool:
    """Whether the loaded world holds any want rule (a cheap look at the reflected conclusions)."""
    return any(
        len(row) == 4 and isinstance(row[3], tuple) and row[3][:1] == (WANTS,)
        for row in kernel.rows(V.CONCLUSION_LIT, "main")
    )
