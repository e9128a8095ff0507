"""The sql kind: SQLite, the query text from the book (``query(Cap, "SELECT ... ?1")``), the want's arguments
bound as parameters (never spliced), the database opened read-only for a ``reads`` capability, each row one answer.

An authorizer guards every statement: a ``reads`` capability may only read (SELECT, reading columns,
functions, WITH RECURSIVE, and pragmas that only report); anything else (writes, ATTACH and DETACH, which
create files, VACUUM (``VACUUM INTO`` copies the database anywhere), transactions, schema changes, pragmas
that set a value) is denied.  No capability, ``does`` included, may ATTACH or DETACH a database or call a
function that loads code or touches files (``load_extension``, ``readfile``, ``writefile``, ``edit``,
``fts3_tokenizer``): a ``does`` capability changes its own database, nothing else.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING

from .batch import Batch, Reply
from .policy import HOST_CALL_FAILED, NO_MATCHING_ADAPTER, why
from .wants import Want

if TYPE_CHECKING:
    from .kinds import KindContext

# What a reads capability may do: each authorizer action code it allows.
_READ_ACTIONS = frozenset(
    (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE)
)
# Pragmas that only report: those whose argument names what to report on (pragma_table_info('t') too) ...
_INFO_PRAGMAS = frozenset(
    (
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "foreign_key_check",
        "integrity_check",
        "quick_check",
    )
)
# ... and those that report a value when given none (``PRAGMA user_version = 3`` sets it: denied).
_VALUE_PRAGMAS = frozenset(
    (
        "collation_list",
        "function_list",
        "module_list",
        "pragma_list",
        "user_version",
        "schema_version",
        "application_id",
        "encoding",
        "page_size",
        "page_count",
        "freelist_count",
        "data_version",
    )
)
# Functions no capability may call: they load code or read and write files outside the database.
_DENIED_FUNCTIONS = frozenset(("load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"))
_NEVER = frozenset((sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH))


def authorizer(klass: str) -> Callable[[int, str | None, str | None, str | None, str | None], int]:
    """The sqlite3 authorizer for a capability of class ``klass`` (see the module's docstring)."""

    def decide(action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None) -> int:
        if action in _NEVER:
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        if klass != "reads" or action in _READ_ACTIONS:
            return sqlite3.SQLITE_OK
        pragma = (arg1 or "").lower() if action == sqlite3.SQLITE_PRAGMA else ""
        if pragma in _INFO_PRAGMAS or (pragma in _VALUE_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    return decide


class SqlAdapter:
    """Asks a book's SQLite database, one connection per batch."""

    def __init__(self) -> None:
        self.opened = 0

    def ask(self, batch: Batch) -> Reply:
        book, cap = batch.book, batch.cap
        path = os.path.abspath(book.address)
        if not os.path.isfile(path):
            reason = f"adapter {book.name}: no SQLite file at {book.address}; check the address"
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, reason))
        mode = "ro" if cap.klass == "reads" else "rw"
        uri = f"file:{urllib.parse.quote(path)}?mode={mode}"
        deadline = time.monotonic() + book.timeout_s
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=min(book.timeout_s, 5.0))
        except sqlite3.Error as exc:
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, f"adapter {book.name}: cannot open: {exc}"))
        self.opened += 1
        conn.set_authorizer(authorizer(cap.klass))
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        answers: dict[Want, tuple[tuple, ...]] = {}
        failed: dict[Want, str] = {}
        try:
            for want, args in zip(batch.wants, batch.args):
                params = [_param(args[a.name]) for a in cap.args]
                try:
                    rows = conn.execute(cap.query or "", params).fetchall()
                except sqlite3.Error as exc:
                    stopped = time.monotonic() > deadline
                    reason = f"timed out after {book.timeout_s:g} s" if stopped else f"{type(exc).__name__}: {exc}"
                    failed[want] = why(HOST_CALL_FAILED, f"adapter {book.name}: {reason}")
                    continue
                converted = [_row(r) for r in rows]
                if any(r is None for r in converted):
                    failed[want] = why(HOST_CALL_FAILED, f"adapter {book.name}: a row holds a BLOB; select text")
                    continue
                answers[want] = tuple(r for r in converted if r is not None)
            if mode == "rw":
                conn.commit()
        finally:
            conn.close()
        return Reply(answers, failed)


def _param(value: object) -> object:
    return value if isinstance(value, (int, str)) else json.dumps(value)


def _row(row: tuple) -> tuple | None:
    out: list = []
    for value in row:
        if value is None:
            out.append(("null",))
        elif isinstance(value, bool):
            out.append(int(value))
        elif isinstance(value, (int, str)):
            out.append(value)
        elif isinstance(value, float):
            out.append(int(value) if value.is_integer() else repr(value))
        else:
            return None
    return tuple(out)


def make_adapter(_context: KindContext) -> SqlAdapter:
    """The sql kind's adapter for one session."""
    return SqlAdapter()
