"""The sql kind: SQLite, the query text from the book (``query(Cap, "SELECT ... ?1")``), the want's arguments
bound as parameters (never spliced), the database opened read-only for a ``reads`` capability, each row one answer."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse

from .batch import Batch, Reply
from .policy import HOST_CALL_FAILED, NO_MATCHING_ADAPTER, why
from .wants import Want


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
