"""Source-syntax text of clause values (rules with variables and arithmetic), for explanations."""

from __future__ import annotations

from .clauses import ARITH, VAR, Builtin, Clause, Literal, Negated, is_var, is_wildcard
from .terms import Term, format_term, quote


def term_text(term: Term) -> str:
    kind = type(term)
    if kind is int:
        return str(term)
    if kind is str:
        return quote(term)
    if term[0] == VAR and len(term) == 2:
        return "_" if is_wildcard(term[1]) else term[1]
    if term[0] == ARITH:
        return f"({term_text(term[2])} {term[1]} {term_text(term[3])})"
    if len(term) == 1:
        return term[0]
    return term[0] + "(" + ", ".join(term_text(a) for a in term[1:]) + ")"


def literal_text(lit: Literal) -> str:
    persp = lit.persp[1] if is_var(lit.persp) else lit.persp
    rel = lit.rel.partition("$")[2] or lit.rel
    temporal = "" if lit.temporal == "now" else "@" + lit.temporal
    return f"{rel}[{persp}]({', '.join(term_text(a) for a in lit.args)}){temporal}"


def item_text(item) -> str:
    if isinstance(item, Literal):
        return literal_text(item)
    if isinstance(item, Negated):
        return "not " + literal_text(item.lit)
    assert isinstance(item, Builtin)
    return f"{term_text(item.left)} {item.op} {term_text(item.right)}"


def clause_text(clause: Clause) -> str:
    prefix = "want " if clause.want else "bridge " if clause.bridge else ""
    if not clause.body:
        return prefix + literal_text(clause.head) + "."
    return prefix + literal_text(clause.head) + " :- " + ", ".join(item_text(i) for i in clause.body) + "."


def row_text(rel: str, row: tuple) -> str:
    rel = rel.partition("$")[2] or rel  # a private relation shows the name its source wrote
    return f"{rel}[{row[0]}]({', '.join(format_term(a) for a in row[1:])})"
