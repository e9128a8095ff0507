"""Ground terms of ROFL: their Python representation, canonical order and canonical text.

A term is one of
  * ``int``                      an integer,
  * ``str``                      a string,
  * ``tuple`` ``(name, *args)``  an atom (``(name,)``) or a compound ``name(args)``.

Facts are tuples of terms.  Using plain Python values keeps hashing and equality in C, which is
what the evaluator's indexes need; atoms and compounds share the tuple shape so that an atom is
simply a functor of arity zero.  Kernel-internal markers start with ``$`` (``("$kernel",)``),
which source text cannot spell.
"""

from __future__ import annotations

from collections.abc import Iterable

Term = int | str | tuple
Fact = tuple  # a tuple of Terms

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def atom(name: str) -> tuple:
    """The atom ``name``."""
    return (name,)


def compound(name: str, *args: Term) -> tuple:
    """The compound term ``name(args...)``."""
    return (name, *args)


def is_atom(term: Term) -> bool:
    return type(term) is tuple and len(term) == 1


def quote(text: str) -> str:
    """Render ``text`` as a ROFL string literal that always parses back to ``text``.

    ``"`` ``\\`` newline, tab and carriage return use their escapes; every other control
    character (and DEL, and lone surrogates) is written ``\\u{HEX}``.
    """
    out = ['"']
    for ch in text:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " " or ch == "\x7f" or "\ud800" <= ch <= "\udfff":
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def format_term(term: Term) -> str:
    """Canonical ROFL text of a ground term (strings quoted, atoms bare, ``f(a, b)``); iterative, so a
    term of any depth prints in time linear in its size."""
    kind = type(term)
    if kind is int:
        return str(term)
    if kind is str:
        return quote(term)
    out: list[str] = []
    write_terms(term, out)
    return "".join(out)


def write_terms(term: Term, out: list, sep: str = ", ") -> None:
    """Append the text of ``term`` to ``out`` without recursion (the engine of ``format_term``)."""
    stack: list = [term]
    pop, push, emit = stack.pop, stack.append, out.append
    while stack:
        t = pop()
        kind = type(t)
        if kind is _Text:
            emit(t.text)
        elif kind is int:
            emit(str(t))
        elif kind is str:
            emit(quote(t))
        elif kind is bool:
            raise TypeError("booleans are not ROFL terms")
        elif len(t) == 1:
            emit(t[0])
        elif t[0] == "$var":
            emit(t[1])
        else:
            emit(t[0] + "(")
            push(_CLOSE)
            args = t[1:]
            for i in range(len(args) - 1, -1, -1):
                push(args[i])
                if i:
                    push(_SEP)


class _Text:
    """Punctuation queued between the parts of a term being written."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_CLOSE, _SEP = _Text(")"), _Text(", ")


def format_args(args: Iterable[Term]) -> str:
    return ", ".join(format_term(a) for a in args)


def format_fact(rel: str, persp: str, args: Fact) -> str:
    """Canonical text ``rel[persp](args)`` with the perspective always written (a relation of the
    private perspective shows the name its source wrote)."""
    return f"{rel.partition('$')[2] or rel}[{persp}]({format_args(args)})"


def sort_key(term: Term) -> tuple:
    """A key that orders terms canonically: integers, then strings, then compounds."""
    kind = type(term)
    if kind is int:
        return (0, term)
    if kind is str:
        return (1, term)
    return (2, len(term), term[0], tuple(sort_key(a) for a in term[1:]))


def fact_key(args: Fact) -> tuple:
    """Canonical order of a fact's argument tuple."""
    return tuple([(1, a) if type(a) is str else (0, a) if type(a) is int else sort_key(a) for a in args])


def is_ground(term: Term) -> bool:
    if type(term) is tuple:
        if term[0] == "$var":
            return False
        return all(is_ground(a) for a in term[1:])
    return True


def canonical_facts(facts) -> list:
    """``(relation, row)`` pairs in canonical order: by relation name, then rows canonically."""
    by_rel: dict = {}
    for rel, row in facts:
        by_rel.setdefault(rel, []).append(row)
    return [(rel, row) for rel in sorted(by_rel) for row in canonical_rows(by_rel[rel])]


def canonical_rows(rows) -> list:
    """Rows (tuples of terms) in canonical order.

    When every column holds one kind only (all integers, all strings, or all atoms), Python's own
    tuple order is the canonical order and the sort runs in C; otherwise each row gets a sort key.
    """
    rows = list(rows)
    if len(rows) < 2:  # nothing to order: no key is computed (a key is as deep as its term)
        return rows
    if rows:
        width = len(rows[0])
        uniform = all(len(r) == width for r in rows)
        if uniform:
            for c in range(width):
                kinds = {type(r[c]) for r in rows}
                if kinds == {tuple}:
                    if {len(r[c]) for r in rows} != {1}:
                        uniform = False
                        break
                elif len(kinds) != 1 or not (kinds <= {int, str}):
                    uniform = False
                    break
        if uniform:
            rows.sort()
            return rows
    rows.sort(key=fact_key)
    return rows
