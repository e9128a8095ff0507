"""Books: the adapter, capability, arg, answers, max_wants, query, event_time and secret declarations a world holds.

A book is read from the evaluated world (perspective main), so declarations may be facts or derived.
Every declaration is checked here; a malformed one is a ``BookError`` naming the fact and the fix.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from rofl.engine.errors import RoflError
from rofl.engine.result import Result
from rofl.engine.terms import format_fact, format_term

from .policy import CLASSES

ARG_TYPES = ("text", "number", "atom", "time", "json")
AUTH_HOWS = ("bearer", "basic", "header", "query", "client_credentials", "login")
DEFAULT_MAX_WANTS = 1000
# Perspectives a book may not be named after: its answers would land among the world's, boot's, the
# audits' or the scanner's facts.
RESERVED_BOOKS = frozenset(("main", "boot", "audit", "code"))
DEFAULT_TIMEOUT_MS = 30_000
# Every relation a book may declare, read from perspective main (kept in one place for the evaluation goals).
DECLARATIONS = (
    "imports",
    "adapter",
    "capability",
    "arg",
    "answers",
    "max_wants",
    "query",
    "event_time",
    "http_auth",
    "http_needs",
    "adapter_timeout",
    "answers_from",
    "optional",
)


class BookError(RoflError):
    """A book declaration that cannot be used (wrong shape or an unknown value)."""


@dataclass(frozen=True, slots=True)
class Arg:
    pos: int
    name: str
    type: str


@dataclass(frozen=True, slots=True)
class Secret:
    """``http_auth(Adapter, Scheme, How, Name, Env)``: where the engine finds a secret when it sends."""

    book: str
    scheme: str
    how: str
    name: str
    env: str


@dataclass(frozen=True, slots=True)
class Book:
    """``adapter(Book, Kind, Address)`` with its version (a hash of every declaration of the book)."""

    name: str
    kind: str
    address: str
    version: str
    timeout_s: float
    imported: bool


@dataclass(frozen=True, slots=True)
class Capability:
    name: str
    book: str
    klass: str
    args: tuple[Arg, ...]
    answer_rel: str | None
    answer_arity: int | None
    max_wants: int
    query: str | None
    event_col: int | None
    source_rel: str  # rofl kind: the other world's relation it answers from
    secrets: tuple[Secret, ...]
    optional: bool


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every book and capability a world declares."""

    books: Mapping[str, Book]
    capabilities: Mapping[str, Capability]
    imports: frozenset[str]  # the books perspective main imports

    def secrets(self) -> tuple[Secret, ...]:
        """Every secret any book names (their values are what the runtime must never let out)."""
        out: dict[Secret, None] = {}
        for cap in self.capabilities.values():
            out.update(dict.fromkeys(cap.secrets))
        return tuple(out)


def _rows(result: Result, rel: str) -> list[tuple]:
    return [row[1:] for row in result.rows(rel, "main")]


def _atom(value: object) -> str | None:
    return value[0] if isinstance(value, tuple) and len(value) == 1 and type(value[0]) is str else None


def _bad(rel: str, row: tuple, fix: str) -> BookError:
    return BookError(f"book declaration {format_fact(rel, 'main', row)}: {fix}")


def read_catalog(result: Result) -> Catalog:
    """The books and capabilities of an evaluated world; raises BookError on a malformed declaration."""
    imports = frozenset(
        _atom(r[1]) or "" for r in _rows(result, "imports") if len(r) == 2 and _atom(r[0]) == "main" and _atom(r[1])
    )
    declared: dict[str, list[str]] = {}  # book -> its declarations' text (the book's version)
    adapters: dict[str, tuple[str, str]] = {}
    for row in _rows(result, "adapter"):
        if len(row) != 3 or _atom(row[0]) is None or _atom(row[1]) is None or type(row[2]) is not str:
            raise _bad("adapter", row, 'write adapter(Book, Kind, "address") with atoms Book and Kind')
        name = _atom(row[0]) or ""
        if name in RESERVED_BOOKS:
            raise _bad("adapter", row, f"[{name}] is a perspective rofl itself uses; give the book another name")
        if name in adapters:
            raise _bad("adapter", row, f"book {name} has two adapters; keep one")
        adapters[name] = (_atom(row[1]) or "", row[2])
        declared.setdefault(name, []).append(format_fact("adapter", "main", row))
    timeouts: dict[str, int] = {}
    for row in _rows(result, "adapter_timeout"):
        if len(row) != 2 or _atom(row[0]) is None or type(row[1]) is not int or row[1] <= 0:
            raise _bad("adapter_timeout", row, "write adapter_timeout(Book, Milliseconds) with a positive integer")
        timeouts[_atom(row[0]) or ""] = row[1]
    per_cap: dict[str, dict[str, list[tuple]]] = {}
    for rel in ("arg", "answers", "max_wants", "query", "event_time", "http_needs", "answers_from", "optional"):
        for row in _rows(result, rel):
            cap = _atom(row[0]) if row else None
            if cap is None:
                raise _bad(rel, row, "its first argument must be a capability name (an atom)")
            per_cap.setdefault(cap, {}).setdefault(rel, []).append(row)
    auths: dict[tuple[str, str], Secret] = {}
    for row in _rows(result, "http_auth"):
        names = [_atom(v) for v in row[:3]]
        book, scheme, how = (n or "" for n in names)
        if len(row) != 5 or None in names or type(row[3]) is not str or type(row[4]) is not str:
            raise _bad("http_auth", row, 'write http_auth(Book, Scheme, How, "name", "ENV_VAR")')
        if how not in AUTH_HOWS:
            raise _bad("http_auth", row, f"How must be one of {', '.join(AUTH_HOWS)}")
        secret = Secret(book, scheme, how, row[3], row[4])
        auths[(secret.book, secret.scheme)] = secret
        declared.setdefault(secret.book, []).append(format_fact("http_auth", "main", row))
    caps: dict[str, Capability] = {}
    for row in _rows(result, "capability"):
        if len(row) != 3 or None in (_atom(row[0]), _atom(row[1]), _atom(row[2])):
            raise _bad("capability", row, "write capability(Cap, Book, reads|shows|does) with atoms")
        name, book, klass = _atom(row[0]) or "", _atom(row[1]) or "", _atom(row[2]) or ""
        if klass not in CLASSES:
            raise _bad("capability", row, "the class must be reads, shows or does")
        if name in caps:
            raise _bad("capability", row, f"capability {name} is declared twice; keep one")
        decl = per_cap.get(name, {})
        caps[name] = _capability(name, book, klass, decl, auths)
        lines = [format_fact("capability", "main", row)]
        lines += sorted(format_fact(rel, "main", r) for rel, rows in decl.items() for r in rows)
        declared.setdefault(book, []).extend(lines)
    books = {}
    for name, (kind, address) in adapters.items():
        digest = hashlib.sha256("\n".join(sorted(declared.get(name, []))).encode("utf-8")).hexdigest()[:16]
        timeout = timeouts.get(name, DEFAULT_TIMEOUT_MS) / 1000
        books[name] = Book(name, kind, address, digest, timeout, name in imports)
    return Catalog(MappingProxyType(books), MappingProxyType(caps), imports)


def _one(rel: str, rows: list[tuple], width: int) -> tuple | None:
    if not rows:
        return None
    if len(rows) > 1:
        raise _bad(rel, rows[1], f"{format_term(rows[0][0])} has two {rel} declarations; keep one")
    if len(rows[0]) != width:
        raise _bad(rel, rows[0], f"{rel} takes {width} arguments")
    return rows[0]


def _capability(name: str, book: str, klass: str, decl: dict, auths: dict) -> Capability:
    args: list[Arg] = []
    for row in sorted(decl.get("arg", []), key=lambda r: r[1] if len(r) > 1 and type(r[1]) is int else 0):
        if len(row) != 4 or type(row[1]) is not int or _atom(row[2]) is None or _atom(row[3]) not in ARG_TYPES:
            raise _bad("arg", row, f"write arg(Cap, Position, name, Type) with Type one of {', '.join(ARG_TYPES)}")
        args.append(Arg(row[1], _atom(row[2]) or "", _atom(row[3]) or ""))
    if [a.pos for a in args] != list(range(1, len(args) + 1)):
        raise BookError(f"capability {name}: its arg positions must be 1, 2, ... without gaps or repeats")
    answer_rel = answer_arity = None
    answers = _one("answers", decl.get("answers", []), 3)
    if answers is not None:
        if _atom(answers[1]) is None or type(answers[2]) is not int or answers[2] < 1:
            raise _bad("answers", answers, "write answers(Cap, relation, Arity) with Arity >= 1 (column 1 is the want)")
        answer_rel, answer_arity = _atom(answers[1]), answers[2]
    limit = _one("max_wants", decl.get("max_wants", []), 2)
    if limit is not None and (type(limit[1]) is not int or limit[1] < 0):
        raise _bad("max_wants", limit, "the limit must be a non-negative integer")
    query = _one("query", decl.get("query", []), 2)
    if query is not None and type(query[1]) is not str:
        raise _bad("query", query, 'write query(Cap, "SELECT ... WHERE x = ?1")')
    event = _one("event_time", decl.get("event_time", []), 2)
    if event is not None and (type(event[1]) is not int or answer_arity is None or not 2 <= event[1] <= answer_arity):
        raise _bad("event_time", event, "the column must be an answer column after the want key (2..Arity)")
    source = _one("answers_from", decl.get("answers_from", []), 2)
    if source is not None and _atom(source[1]) is None:
        raise _bad("answers_from", source, "write answers_from(Cap, relation)")
    secrets = []
    for row in decl.get("http_needs", []):
        if len(row) != 2 or _atom(row[1]) is None:
            raise _bad("http_needs", row, "write http_needs(Cap, Scheme)")
        secret = auths.get((book, _atom(row[1])))
        if secret is None:
            raise _bad("http_needs", row, f"no http_auth({book}, {_atom(row[1])}, ...) names where its secret is")
        secrets.append(secret)
    return Capability(
        name,
        book,
        klass,
        tuple(args),
        answer_rel,
        answer_arity,
        DEFAULT_MAX_WANTS if limit is None else limit[1],
        None if query is None else query[1],
        None if event is None else event[1],
        name if source is None else _atom(source[1]) or name,
        tuple(secrets),
        bool(decl.get("optional")),
    )
