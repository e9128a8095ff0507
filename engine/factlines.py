"""Reading the scanner's fact lines fast: a text whose every line is a plain fact, a comment or empty, read
with one regular expression and one JSON document, or refused (None) so that ``parse_program`` reads it.

A line is read here only in the exact shape the scanner writes, ``rel[persp]("a", -1, atom)@init.``:
no white space but the ``", "`` between arguments, arguments that are strings (escapes ``\\" \\\\ \\n
\\t \\r`` only, no raw control character), integers without leading zeros, or atoms, and no keyword.
Within these lines ROFL's strings and integers are JSON's, so the C JSON decoder reads the values.
Any other line (a rule, white space, ``\\u{..}``, a nested term, an error ...) refuses the whole text,
so the general parser gives every other text the clauses, line numbers and errors it always did.
Equal strings, integers and atoms are the first equal ones ``memo`` met.
"""

from __future__ import annotations

import json
import re

from .clauses import INIT, NOW, Clause, Literal
from .lexer import NAME
from .parse import _KEYWORDS as KEYWORDS  # names the general parser reads apart
from .parse import DEFAULT_PERSP

_STRING = r'"[^"\\\x00-\x1f]*(?:\\["\\ntr][^"\\\x00-\x1f]*)*"'
_INT = r"-?(?:0|[1-9][0-9]*)"
_PLAIN = rf"(?:{_STRING}|{_INT})"
_ANY = rf"(?:{_STRING}|{_INT}|{NAME})"
# one line: (relation, perspective, arguments without atoms, arguments with atoms, temporal), or a
# comment or an empty line (all groups empty).  No quantifier can give back what the next part could take
# (a string's body excludes its quote and backslash, a separator is ", "), so a failing line costs its length
# (written without possessive quantifiers, which Python 3.10 does not have)
_LINE = re.compile(
    rf"^(?:({NAME})(?:\[({NAME})\])?\((?:({_PLAIN}(?:, {_PLAIN})*)|({_ANY}(?:, {_ANY})*))\)(@init|@now)?\.|--[^\n]*|)$",
    re.MULTILINE,
)
_ATOM_OR_STRING = re.compile(rf"{_STRING}|({NAME})")
_DECODE = json.JSONDecoder().decode

Row = tuple[str, str, tuple, str, int]  # relation, perspective, arguments, temporal, line (the column is 1)


def read_facts(text: str, memo: dict) -> list[Row] | None:
    """The facts of ``text`` in order, or None (``memo`` untouched) when any line is not one this reader knows."""
    lines = _LINE.findall(text)
    if len(lines) != text.count("\n") + 1:
        return None  # a line no match covers
    facts = [(n, groups) for n, groups in enumerate(lines, 1) if groups[0]]
    if not facts:
        return []
    names: set = {groups[0] for _, groups in facts}
    if not KEYWORDS.isdisjoint(names):
        return None
    parts = []
    for _, (_, _, plain, with_atoms, _) in facts:
        if plain:
            parts.append(plain)
        elif KEYWORDS.isdisjoint(_ATOM_OR_STRING.findall(with_atoms)):  # its atoms (and "" for each string)
            parts.append(_ATOM_OR_STRING.sub(_mark_atom, with_atoms))
        else:
            return None
    try:
        values = _DECODE("[[" + "],[".join(parts) + "]]")
    except ValueError:  # e.g. an integer longer than Python reads: the general parser says what it says
        return None
    setdefault = memo.setdefault
    rows: list[Row] = []
    append = rows.append
    for (n, (rel, persp, plain, _, temporal)), args in zip(facts, values):
        if not plain:
            args = [(a[0],) if type(a) is list else a for a in args]
        append(
            (
                setdefault(rel, rel),
                setdefault(persp, persp) if persp else DEFAULT_PERSP,
                tuple(map(setdefault, args, args)),
                INIT if temporal == "@init" else NOW,
                n,
            )
        )
    return rows


def _mark_atom(match: re.Match) -> str:
    """An atom as the JSON list ``["name"]`` (a string as itself)."""
    name = match.group(1)
    return match.group(0) if name is None else f'["{name}"]'


def fact_clauses(text: str, memo: dict) -> list[Clause] | None:
    """The clauses ``parse_program`` makes of ``text`` (values shared through ``memo``), or None as ``read_facts``."""
    rows = read_facts(text, memo)
    if rows is None:
        return None
    return [
        Clause(Literal(rel, persp, args, temporal), (), False, False, n, 1) for rel, persp, args, temporal, n in rows
    ]
