"""Source-syntax text of clause values (rules with variables and arithmetic), for explanations."""

from __future__ import annotations

from .clauses import ARITH, VAR, Aggregate, BodyItem, Builtin, Clause, Literal, Negated, is_var, is_wildcard
from .terms import Term, format_term, quote


def term_text(term: Term) -> str:
    """Source text of a term with variables and arithmetic; iterative, so any depth prints in linear time."""
    out: list[str] = []
    stack: list = [term]
    while stack:
        t = stack.pop()
        kind = type(t)
        if kind is _Raw:
            out.append(t.text)
        elif kind is int:
            out.append(str(t))
        elif kind is str:
            out.append(quote(t))
        elif t[0] == VAR and len(t) == 2:
            out.append("_" if is_wildcard(t[1]) else t[1])
        elif t[0] == ARITH:
            out.append("(")
            stack.extend((_Raw(")"), t[3], _Raw(f" {t[1]} "), t[2]))
        elif len(t) == 1:
            out.append(t[0])
        else:
            out.append(t[0] + "(")
            stack.append(_Raw(")"))
            args = t[1:]
            for i in range(len(args) - 1, -1, -1):
                stack.append(args[i])
                if i:
                    stack.append(_Raw(", "))
    return "".join(out)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def literal_text(lit: Literal) -> str:
    persp = lit.persp[1] if is_var(lit.persp) else lit.persp
    rel = lit.rel.partition("$")[2] or lit.rel
    temporal = "" if lit.temporal == "now" else "@" + lit.temporal
    return f"{rel}[{persp}]({', '.join(term_text(a) for a in lit.args)}){temporal}"


def item_text(item: BodyItem) -> str:
    if isinstance(item, Literal):
        return literal_text(item)
    if isinstance(item, Negated):
        return "not " + literal_text(item.lit)
    if isinstance(item, Aggregate):
        return f"{term_text(item.result)} = {aggregate_text(item)}"
    assert isinstance(item, Builtin)
    if item.op[-1].isalpha() and item.op != "is":  # a call builtin: matches(T, R), not glob(T, P)
        return f"{item.op}({term_text(item.left)}, {term_text(item.right)})"
    return f"{term_text(item.left)} {item.op} {term_text(item.right)}"


def aggregate_text(agg: Aggregate) -> str:
    """``count : { body }`` or ``sum V : { body }``: an aggregate without its result."""
    value = "" if agg.op == "count" else " " + term_text(agg.value)
    return f"{agg.op}{value} : {{ {', '.join(item_text(i) for i in agg.body)} }}"


def clause_text(clause: Clause) -> str:
    prefix = "want " if clause.want else "bridge " if clause.bridge else ""
    if not clause.body:
        return prefix + literal_text(clause.head) + "."
    return prefix + literal_text(clause.head) + " :- " + ", ".join(item_text(i) for i in clause.body) + "."


def row_text(rel: str, row: tuple) -> str:
    rel = rel.partition("$")[2] or rel  # a private relation shows the name its source wrote
    return f"{rel}[{row[0]}]({', '.join(format_term(a) for a in row[1:])})"
