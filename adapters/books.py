"""Books: the adapter, capability, arg, answers, max_wants, query, event_time and secret declarations a world holds.

A book is read from the evaluated world (perspective main), so declarations may be facts or derived.
Every declaration is checked here; a malformed one is a ``BookError`` naming the fact and the fix.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from rofl.engine.base.errors import RoflError
from rofl.engine.result import Result
from rofl.engine.terms import format_fact, format_term

from .policy import CLASSES, UNSUPPORTED_CAPABILITY, why

ARG_TYPES = ("text", "number", "atom", "time", "json")
AUTH_HOWS = ("bearer", "basic", "header", "query", "client_credentials", "login")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # an environment variable's name, as a key names it
DEFAULT_MAX_WANTS = 1000
# Perspectives a book may not be named after: its answers would land among the world's, boot's, the
# audits' or the scanner's facts.
RESERVED_BOOKS = frozenset(("main", "boot", "audit", "code"))
DEFAULT_TIMEOUT_MS = 30_000
# The openapi kind's declarations (the openapi/http block at the end of this module reads them).
HTTP_DECLARATIONS = ("http_op", "http_in", "http_field", "http_rows", "http_page")
# The mcp kind's declarations (the mcp block at the end of this module reads them); mcp_version is the book's.
MCP_DECLARATIONS = ("mcp_tool", "mcp_arg", "mcp_field", "mcp_rows", "mcp_version")
# The render kind's declarations (the render block at the end of this module reads them).
RENDER_DECLARATIONS = ("component", "component_order")
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
    *HTTP_DECLARATIONS,
    *MCP_DECLARATIONS,
    *RENDER_DECLARATIONS,
)


class BookError(RoflError):
    """A book declaration that cannot be used (wrong shape or an unknown value)."""


class BookSourceError(RoflError):
    """What ``rofl adapter openapi`` or ``mcp`` writes a book from is wrong: a description, or a key of the
    command line (``parse_key``); the message names the fix."""


@dataclass(frozen=True, slots=True)
class Key:
    """``HOW[:NAME]=ENV`` of the command line: where the secret of a scheme of that kind is."""

    how: str
    name: str | None
    env: str


def parse_key(text: str) -> Key:
    """``bearer=TOKEN``, ``header:X-Api-Key=KEY``, ``client_credentials:https://x/token=ID_SECRET``,
    ``login:https://issuer`` (a login reads no variable); raises BookSourceError naming the fix."""
    head, sep, env = text.rpartition("=")
    if not sep or not ENV_NAME.fullmatch(env):
        head, env = text, ""
    how, colon, name = head.partition(":")
    if how not in AUTH_HOWS:
        raise BookSourceError(
            f"{text}: HOW must be one of {', '.join(AUTH_HOWS)} (HOW[:NAME]=ENV, e.g. bearer=API_TOKEN)"
        )
    if how == "login":
        if env:
            raise BookSourceError(f"{text}: a login reads no variable; write login:ISSUER")
    elif not env:
        raise BookSourceError(f"{text}: name the environment variable that holds the secret: {head}=ENV_VAR")
    return Key(how, name if colon else None, env)


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
    http: HttpOp | None = None  # openapi kind: http_op, http_in, http_field, http_rows, http_page
    mcp: McpTool | None = None  # mcp kind: mcp_tool, mcp_arg, mcp_field, mcp_rows
    render: Component | None = None  # render kind: component, component_order


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


def unmapped_columns(cap: Capability, fields: Iterable[tuple[int, str]], declaration: str) -> str | None:
    """The Why of a capability whose answer columns (2 to its arity) ``fields`` (column, pointer) do not all map,
    naming the ``declaration`` to add (``http_field``, ``mcp_field``); None when every column is mapped."""
    missing = sorted(set(range(2, (cap.answer_arity or 1) + 1)) - {col for col, _ in fields})
    if not missing:
        return None
    cols = ", ".join(map(str, missing))
    return why(
        UNSUPPORTED_CAPABILITY,
        f'capability {cap.name}: answer column(s) {cols} have no {declaration}({cap.name}, Col, "/pointer")',
    )


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
    for rel in (
        "arg",
        "answers",
        "max_wants",
        "query",
        "event_time",
        "http_needs",
        "answers_from",
        "optional",
        *HTTP_DECLARATIONS,
        *MCP_DECLARATIONS[:-1],
        *RENDER_DECLARATIONS,
    ):
        for row in _rows(result, rel):
            cap = _atom(row[0]) if row else None
            if cap is None:
                raise _bad(rel, row, "its first argument must be a capability name (an atom)")
            per_cap.setdefault(cap, {}).setdefault(rel, []).append(row)
    for row in _rows(result, "mcp_version"):  # the mcp block: the server's tools' version is part of the book's
        declared.setdefault(_mcp_version_book(row), []).append(format_fact("mcp_version", "main", row))
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
        _http_op(name, tuple(args), answer_arity, decl),
        _mcp_tool(name, tuple(args), answer_arity, decl),
        _component(name, decl),
    )


# -- openapi / http ----------------------------------------------------------------------------------
# http_op(Cap, Method, "/path/{name}")       the request a want becomes (Method "GET" or an atom, get)
# http_in(Cap, Pos, "name", In)              where argument Pos goes: path, query, header, body, or none
#                                            (only the want's key: a relation has at least one argument)
# http_field(Cap, Col, "/json/pointer")      answer column Col (2..Arity) of each row, from the row's JSON
# http_rows(Cap, "/items")                   where the rows are in a response (default: an array is rows,
#                                            anything else one row)
# http_page(Cap, Style, "param", "/pointer") pagination: next_link, link_header, cursor, page or offset

HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
HTTP_INS = ("path", "query", "header", "body", "none")
PAGE_STYLES = ("next_link", "link_header", "cursor", "page", "offset")
# a method that carries no body: an argument without http_in goes to the query
BODYLESS = frozenset(("GET", "HEAD", "DELETE", "OPTIONS"))


@dataclass(frozen=True, slots=True)
class HttpIn:
    """Where one argument goes in the request: ``name`` on the wire, ``where`` one of HTTP_INS."""

    pos: int
    name: str
    where: str


@dataclass(frozen=True, slots=True)
class HttpPage:
    """``http_page(Cap, Style, Param, Pointer)``: next_link (Pointer names the next page's URL in the
    body), link_header (the ``Link: <...>; rel="next"`` header), cursor (Pointer names the next cursor,
    sent as query Param), page (query Param counts 2, 3, ... until a page has no rows), offset (query
    Param grows by the rows seen until a page has none)."""

    style: str
    param: str
    pointer: str


@dataclass(frozen=True, slots=True)
class HttpOp:
    """One capability's HTTP operation: method, path template, where each argument goes (one per
    argument, in position order), the pointer of each answer column (``(Col, Pointer)`` in column
    order), where the rows are, and how to page."""

    method: str
    path: str
    inputs: tuple[HttpIn, ...]
    fields: tuple[tuple[int, str], ...]
    rows: str | None
    page: HttpPage | None


def _text_or_atom(value: object) -> str | None:
    return value if type(value) is str else _atom(value)


def _pointer_ok(value: object) -> bool:
    return type(value) is str and (value == "" or value.startswith("/"))


# what the openapi and mcp kinds declare alike: where a want's argument goes, the answer columns, the rows


def _argument_at(rel: str, row: tuple, name: str, args: tuple[Arg, ...], given: Mapping[int, object]) -> int:
    """The argument position of an ``http_in`` or ``mcp_arg`` row, checked: one of capability ``name``'s
    ``args``, not already ``given``.  Raises BookError naming the fix."""
    if not 1 <= row[1] <= len(args):
        raise _bad(rel, row, f"{name} has no argument {row[1]}; declare arg({name}, {row[1]}, ...) first")
    if row[1] in given:
        raise _bad(rel, row, f"argument {row[1]} of {name} has two {rel} declarations; keep one")
    return row[1]


def _answer_fields(rel: str, name: str, arity: int | None, decl: dict) -> dict[int, str]:
    """Capability ``name``'s ``http_field`` or ``mcp_field`` declarations, checked: each answer column
    (2..Arity) to the JSON pointer of its value in a row.  Raises BookError naming the fix."""
    fields: dict[int, str] = {}
    for row in decl.get(rel, []):
        if len(row) != 3 or type(row[1]) is not int or not _pointer_ok(row[2]):
            raise _bad(rel, row, f'write {rel}(Cap, Column, "/json/pointer") ("" is the whole row)')
        if arity is None or not 2 <= row[1] <= arity:
            raise _bad(rel, row, "the column must be an answer column after the want key (2..Arity)")
        if row[1] in fields:
            raise _bad(rel, row, f"column {row[1]} of {name} has two {rel} declarations; keep one")
        fields[row[1]] = row[2]
    return fields


def _rows_at(rel: str, decl: dict) -> str | None:
    """The JSON pointer of ``http_rows`` or ``mcp_rows`` (where the rows are in a reply), checked; None
    when it is not declared.  Raises BookError naming the fix."""
    rows = _one(rel, decl.get(rel, []), 2)
    if rows is not None and not _pointer_ok(rows[1]):
        raise _bad(rel, rows, f'write {rel}(Cap, "/json/pointer") naming the array of rows')
    return None if rows is None else rows[1]


def _http_op(name: str, args: tuple[Arg, ...], arity: int | None, decl: dict) -> HttpOp | None:
    """The capability's ``http_op`` with its inputs, fields, rows and pagination, checked; None when it
    declares none (another kind's capability).  Raises BookError on a malformed declaration."""
    op = _one("http_op", decl.get("http_op", []), 3)
    if op is None:
        stray = next((rel for rel in HTTP_DECLARATIONS[1:] if decl.get(rel)), None)
        if stray is not None:
            raise _bad(stray, decl[stray][0], f'{name} has {stray} but no http_op({name}, "GET", "/path")')
        return None
    method = (_text_or_atom(op[1]) or "").upper()
    if method not in HTTP_METHODS or type(op[2]) is not str or not op[2].startswith("/"):
        raise _bad(
            "http_op", op, f'write http_op(Cap, Method, "/path/{{name}}") with Method one of {", ".join(HTTP_METHODS)}'
        )
    path = op[2]
    given: dict[int, HttpIn] = {}
    for row in decl.get("http_in", []):
        where = _atom(row[3]) if len(row) == 4 else None
        wire = _text_or_atom(row[2]) if len(row) == 4 else None
        if len(row) != 4 or type(row[1]) is not int or wire is None or where not in HTTP_INS:
            raise _bad("http_in", row, f'write http_in(Cap, Position, "name", In) with In one of {", ".join(HTTP_INS)}')
        if not wire and where in ("path", "query", "header"):  # "" is the whole body, or nothing (none)
            raise _bad("http_in", row, f"a {where} argument needs its name on the wire")
        pos = _argument_at("http_in", row, name, args, given)
        given[pos] = HttpIn(pos, wire if where != "header" else wire.lower(), where or "")
    inputs = []
    for arg in args:
        default = "path" if "{" + arg.name + "}" in path else "query" if method in BODYLESS else "body"
        inputs.append(given.get(arg.pos, HttpIn(arg.pos, arg.name, default)))
    holes = set(_placeholders(path))
    filled = {i.name for i in inputs if i.where == "path"}
    if holes != filled:
        what = sorted(holes - filled) or sorted(filled - holes)
        raise _bad(
            "http_op",
            op,
            f"the path's {{placeholders}} and the path arguments differ ({', '.join(what)}); "
            'each {name} needs http_in(Cap, Pos, "name", path) and each path argument its {name}',
        )
    fields = _answer_fields("http_field", name, arity, decl)
    rows = _rows_at("http_rows", decl)
    page = _one("http_page", decl.get("http_page", []), 4)
    if page is not None:
        style = _atom(page[1])
        if style not in PAGE_STYLES or type(page[2]) is not str or type(page[3]) is not str:
            raise _bad(
                "http_page",
                page,
                f'write http_page(Cap, Style, "param", "/pointer") with Style one of {", ".join(PAGE_STYLES)}',
            )
        if style in ("cursor", "page", "offset") and not page[2]:
            raise _bad("http_page", page, f"{style} pagination names the query parameter it sets")
        if style in ("next_link", "cursor") and not (page[3] and _pointer_ok(page[3])):
            raise _bad("http_page", page, f"{style} pagination names where the next one is with a JSON pointer")
    return HttpOp(
        method,
        path,
        tuple(inputs),
        tuple(sorted(fields.items())),
        rows,
        None if page is None else HttpPage(_atom(page[1]) or "", page[2], page[3]),
    )


def _placeholders(path: str) -> list[str]:
    out, rest = [], path
    while "{" in rest:
        start = rest.index("{")
        end = rest.find("}", start)
        if end < 0:
            break
        out.append(rest[start + 1 : end])
        rest = rest[end + 1 :]
    return out


# -- mcp ---------------------------------------------------------------------------------------------
# mcp_tool(Cap, "tool")                     the MCP tool each want calls, once per want
# mcp_arg(Cap, Pos, "field")                the tool argument that argument Pos fills (default: the arg's name)
# mcp_field(Cap, Col, "/json/pointer")      answer column Col (2..Arity) of each row, from the row's JSON
#                                           (default for an answer of one column: the whole row)
# mcp_rows(Cap, "/items")                   where the rows are in the tool's result (default: an array is
#                                           rows, anything else one row)
# mcp_version(Book, "version")              the version of the server's tools the book was made from


@dataclass(frozen=True, slots=True)
class McpTool:
    """One capability's MCP tool: its name, the tool argument each want argument fills (in position
    order), the pointer of each answer column (``(Col, Pointer)`` in column order), and where the rows are."""

    tool: str
    inputs: tuple[str, ...]
    fields: tuple[tuple[int, str], ...]
    rows: str | None


def _mcp_tool(name: str, args: tuple[Arg, ...], arity: int | None, decl: dict) -> McpTool | None:
    """The capability's ``mcp_tool`` with its arguments, fields and rows, checked; None when it declares
    none (another kind's capability).  Raises BookError on a malformed declaration."""
    tool = _one("mcp_tool", decl.get("mcp_tool", []), 2)
    if tool is None:
        stray = next((rel for rel in MCP_DECLARATIONS[1:-1] if decl.get(rel)), None)
        if stray is not None:
            raise _bad(stray, decl[stray][0], f'{name} has {stray} but no mcp_tool({name}, "tool")')
        return None
    if type(tool[1]) is not str or not tool[1]:
        raise _bad("mcp_tool", tool, 'write mcp_tool(Cap, "tool name") with the name the server lists')
    given: dict[int, str] = {}
    for row in decl.get("mcp_arg", []):
        wire = _text_or_atom(row[2]) if len(row) == 3 else None
        if len(row) != 3 or type(row[1]) is not int or not wire:
            raise _bad("mcp_arg", row, 'write mcp_arg(Cap, Position, "field") naming a tool argument')
        given[_argument_at("mcp_arg", row, name, args, given)] = wire
    inputs = tuple(given.get(a.pos, a.name) for a in args)
    if len(set(inputs)) != len(inputs):
        raise BookError(f"capability {name}: two of its arguments fill the same tool argument; give each its own")
    fields = _answer_fields("mcp_field", name, arity, decl)
    if not fields and arity == 2:
        fields[2] = ""
    return McpTool(tool[1], inputs, tuple(sorted(fields.items())), _rows_at("mcp_rows", decl))


def _mcp_version_book(row: tuple) -> str:
    """The book an ``mcp_version(Book, "version")`` declaration belongs to; raises BookError when malformed."""
    if len(row) != 2 or _atom(row[0]) is None or type(row[1]) is not str:
        raise _bad("mcp_version", row, 'write mcp_version(Book, "version") (rofl adapter mcp writes it)')
    return _atom(row[0]) or ""


# -- render ------------------------------------------------------------------------------------------
# component(Cap, Kind)                      what each want of Cap shows: heading, text, card, button, field
# component_order(Cap, N)                   where Cap's components stand on the page: ascending N (default
#                                           0), then in the order their wants were first shown

COMPONENT_KINDS = ("heading", "text", "card", "button", "field")


@dataclass(frozen=True, slots=True)
class Component:
    """One capability's component: its kind (one of COMPONENT_KINDS) and its place on the page."""

    kind: str
    order: int


def _component(name: str, decl: dict) -> Component | None:
    """The capability's ``component`` with its ``component_order``, checked; None when it declares none
    (another kind's capability).  Raises BookError on a malformed declaration."""
    row = _one("component", decl.get("component", []), 2)
    order = _one("component_order", decl.get("component_order", []), 2)
    if row is None:
        if order is not None:
            raise _bad("component_order", order, f"{name} has component_order but no component({name}, Kind)")
        return None
    kind = _atom(row[1])
    if kind not in COMPONENT_KINDS:
        raise _bad("component", row, f"write component(Cap, Kind) with Kind one of {', '.join(COMPONENT_KINDS)}")
    if order is not None and type(order[1]) is not int:
        raise _bad("component_order", order, "write component_order(Cap, N) with an integer N")
    return Component(kind, 0 if order is None else order[1])
