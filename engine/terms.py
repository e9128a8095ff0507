"""Ground terms of ROFL: their Python representation, construction, canonical order and canonical text.

A term is one of
  * ``int``                      an integer,
  * ``str``                      a string,
  * ``tuple`` ``(name, *args)``  an atom (``(name,)``) or a compound ``name(args)``.

Facts are tuples of terms.  Using plain Python values keeps hashing and equality in C, which is
what the evaluator's indexes need; atoms and compounds share the tuple shape so that an atom is
simply a functor of arity zero.  Kernel-internal markers start with ``$`` (``("$kernel",)``),
which source text cannot spell.

Python does not cache a tuple's hash, so hashing a term costs its size.  A compound ``DEEP`` or more
levels deep is therefore built (by ``compound``) as a ``Compound``: a tuple subclass that computes its
hash and depth once.  Because its children are Compounds or shallow tuples, building one costs its
arity, and hashing, comparing an equal shared term and building the next level cost O(1) at any depth
(the growing list of issue 11 runs 100,000 ticks).  A Compound is equal to, and hashes like, the plain
tuple of the same shape, so code that builds plain tuples stays correct (only slower on deep terms);
test for a compound with ``isinstance(term, tuple)``, not ``type(term) is tuple``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Hot paths dispatch on ``kind = type(term)``, which a type checker cannot follow into the branches.
    Term = Any
else:
    Term = int | str | tuple
Fact = tuple  # a tuple of Terms

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}

DEEP = 8  # compounds at least this many levels deep are Compounds (hash and depth cached)


class Compound(tuple):
    """A deep compound term ``(name, *args)`` with its hash, depth and (on first use) sort key cached."""

    def __hash__(self) -> int:
        return self.h  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        # two Compounds with different hashes differ: never walk two long lists to find their ends
        if self is other:
            return True
        if type(other) is Compound and self.h != other.h:  # type: ignore[attr-defined]
            return False
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    def __reduce__(self):
        return (_rebuild, (tuple(self),))


def _rebuild(items: tuple) -> tuple:
    return compound(*items)


def compound(name: str, *args: Term) -> tuple:
    """The compound term ``name(args...)`` (``(name,)`` is the atom): a plain tuple when shallow, a
    ``Compound`` from ``DEEP`` levels on.  Costs its arity (plus the depth of shallow arguments)."""
    depth = 0
    for a in args:
        kind = type(a)
        if kind is Compound:
            d = a.depth
        elif kind is tuple and len(a) > 1:
            d = shallow_depth(a)
        else:
            continue
        if d > depth:
            depth = d
    if depth + 1 < DEEP:
        return (name, *args)
    c = Compound((name, *args))
    c.h = tuple.__hash__(c)  # type: ignore[attr-defined]
    c.depth = depth + 1  # type: ignore[attr-defined]
    c.n = len(name) + 2 * len(args) + sum([text_size(a) for a in args])  # type: ignore[attr-defined]
    return c


def text_size(term: Term) -> int:
    """About the length of the term's canonical text (``format_term``), in time linear in the distinct
    nodes of its shallow part: a Compound keeps its size, so a shared deep term costs O(1) here while
    its text is as long as its whole tree.  Escapes in strings and integers' signs are not counted."""
    kind = type(term)
    if kind is str:
        return len(term) + 2
    if kind is int:
        return (term.bit_length() * 1233 >> 12) + 1  # decimal digits, about (log10 2 = 0.30103)
    if kind is Compound:
        return term.n
    if len(term) == 1:
        return len(term[0])
    sizes: dict[int, int] = {}  # by id: a plain tuple's parts may be shared, so each is sized once
    stack: list = [term]
    while stack:
        t = stack[-1]
        missing = [a for a in t[1:] if type(a) is tuple and len(a) > 1 and id(a) not in sizes]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        n = len(t[0]) + 2 * (len(t) - 1)
        for a in t[1:]:
            n += sizes[id(a)] if type(a) is tuple and len(a) > 1 else text_size(a)
        sizes[id(t)] = n
    return sizes[id(term)]


def shallow_depth(term: tuple) -> int:
    """Levels of compound nesting of a plain tuple term (a Compound inside counts its cached depth)."""
    best = 0
    stack = [(term, 1)]
    while stack:
        t, d = stack.pop()
        if d > best:
            best = d
        for a in t[1:]:
            kind = type(a)
            if kind is Compound:
                if d + a.depth > best:
                    best = d + a.depth
            elif kind is tuple and len(a) > 1:
                stack.append((a, d + 1))
    return best


def plain(term: Term) -> Term:
    """The term with every Compound replaced by a plain tuple (for writers such as ``marshal`` that take
    exact tuples only); iterative."""
    if not isinstance(term, tuple) or not _has_compound(term):
        return term
    done: dict[int, tuple] = {}
    stack: list = [term]
    while stack:
        t = stack[-1]
        if id(t) in done:
            stack.pop()
            continue
        pending = [a for a in t[1:] if isinstance(a, tuple) and len(a) > 1 and id(a) not in done]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        done[id(t)] = tuple([t[0], *[done.get(id(a), a) if isinstance(a, tuple) else a for a in t[1:]]])
    return done[id(term)]


def _has_compound(term: tuple) -> bool:
    stack = [term]
    while stack:
        t = stack.pop()
        if type(t) is Compound:
            return True
        stack.extend(a for a in t[1:] if isinstance(a, tuple) and len(a) > 1)
    return False


_PLAIN_TEXT = re.compile('[^"\\\\\x00-\x1f\x7f\ud800-\udfff]*')  # a text ``quote`` writes as it is


def quote(text: str) -> str:
    """Render ``text`` as a ROFL string literal that always parses back to ``text``.

    ``"`` ``\\`` newline, tab and carriage return use their escapes; every other control
    character (and DEL, and lone surrogates) is written ``\\u{HEX}``.
    """
    if _PLAIN_TEXT.fullmatch(text) is not None:  # nothing to escape: the common case, without a loop per character
        return f'"{text}"'
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
    """A key that orders terms canonically: integers, then strings, then compounds (by arity, name,
    then arguments).  Iterative; a Compound keeps its key, so the key of a term built on a keyed one
    costs its arity, and equal shared parts compare by identity."""
    kind = type(term)
    if kind is int:
        return (0, term)
    if kind is str:
        return (1, term)
    if kind is Compound:
        cached = term.__dict__.get("k")
        if cached is not None:
            return cached
    elif len(term) == 1:
        return (2, 1, term[0], ())
    keys: dict[int, tuple] = {}
    stack: list = [term]
    while stack:
        t = stack[-1]
        if id(t) in keys:
            stack.pop()
            continue
        missing = []
        for a in t[1:]:
            if isinstance(a, tuple) and id(a) not in keys:
                cached = a.__dict__.get("k") if type(a) is Compound else None
                if cached is not None:
                    keys[id(a)] = cached
                elif len(a) == 1:
                    keys[id(a)] = (2, 1, a[0], ())
                else:
                    missing.append(a)
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        key = (
            2,
            len(t),
            t[0],
            tuple([keys[id(a)] if isinstance(a, tuple) else (0, a) if type(a) is int else (1, a) for a in t[1:]]),
        )
        if type(t) is Compound:
            key = t.k = _Key(key)  # type: ignore[attr-defined]
        keys[id(t)] = key
    return keys[id(term)]


class _Key(tuple):
    """The sort key of a Compound, with its hash cached: two keys of different deep terms are told
    unequal at once, so ordering two terms walks down their first difference once (a plain nested
    tuple re-tests equality of the whole rest at every level: quadratic in the depth)."""

    def __init__(self, items: tuple) -> None:
        self.h = tuple.__hash__(self)

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is _Key and self.h != other.h:
            return False
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        same = self.__eq__(other)
        return same if same is NotImplemented else not same


def fact_key(args: Fact) -> tuple:
    """Canonical order of a fact's argument tuple."""
    return tuple([(1, a) if type(a) is str else (0, a) if type(a) is int else sort_key(a) for a in args])


def is_ground(term: Term) -> bool:
    """Whether a term holds no variable (iterative)."""
    stack = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple):
            if t[0] == "$var":
                return False
            stack.extend(t[1:])
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
    width = set(map(len, rows))
    if len(width) == 1:
        for c in range(width.pop()):
            col = list(map(itemgetter(c), rows))  # one column at a time (zip(*rows) makes an iterator per row)
            kinds = set(map(type, col))
            if len(kinds) != 1:
                break
            kind = kinds.pop()
            if kind is tuple:
                if set(map(len, col)) != _ONE:
                    break
            elif kind is not int and kind is not str:
                break
        else:
            rows.sort()
            return rows
    rows.sort(key=fact_key)
    return rows


_ONE = frozenset((1,))
