"""The mcp kind: each want is one call of its capability's MCP tool, a batch's calls over one session with the server, answers read from each result by JSON pointers.

The book's address is a command (a server over stdio, started once per session of rofl and kept for
every round) or a URL (streamable HTTP).  ``mcp_tool(Cap, "tool")`` names the tool, ``mcp_arg(Cap,
Pos, "field")`` the tool argument each want argument fills (its ``arg`` name by default),
``mcp_rows(Cap, "/pointer")`` where the rows are (by default an array is rows and anything else one
row) and ``mcp_field(Cap, Col, "/pointer")`` each answer column within a row (RFC 6901; ``""`` is the
whole row).  A result is read as its ``structuredContent``; a tool that gives none is read from its text
(JSON when it parses, else the text itself; several text blocks are an array).  A JSON string, integer
or boolean arrives as a string, a number or the atom ``true``/``false``; null (or a field the row does
not have) as the atom ``null``; a fraction as its text; an object or array as canonical JSON text.

A ``reads`` capability's calls go ``PARALLEL`` at a time; a ``does`` capability's one after another in
the wants' order.  A tool's error (``isError``), a call the server refuses, a timeout, a result without
the rows pointer: each fails its want only, never the round; a lost connection fails the calls left and
is opened again at the next batch.  Secrets: to a URL as ``adapters/http_auth.py`` sends them (bearer,
basic, header, query, client_credentials, login: a login nobody made holds the wants), the session opened
again when they change (a token fetched anew) and once after a 401; to a command as the variables in its
environment.  A token fetched at run time is kept out of every answer and Why like the variables.
"""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .batch import Batch, Reply
from .books import Book, Capability, McpTool, unmapped_columns
from .http_auth import Failed, Held, HttpAuth
from .mcp_client import TIMED_OUT, Connection, McpFailure, is_url, post_form, unsendable
from .policy import HOST_CALL_FAILED, NO_MATCHING_ADAPTER, UNSUPPORTED_CAPABILITY, why
from .secrets import Scrubber
from .wants import Want

if TYPE_CHECKING:
    from .kinds import KindContext

NULL = ("null",)
ERROR_TEXT = 400  # characters of a tool's error text quoted in a Why
_MISSING = object()


def check(cap: Capability, book: Book) -> str | None:
    """Why a capability of an mcp book cannot be served (decided locally, nothing is called), or None."""
    if not book.address.strip():
        return why(NO_MATCHING_ADAPTER, f"adapter {book.name}: the address is empty; give a command or a URL")
    if cap.mcp is None:
        return why(
            UNSUPPORTED_CAPABILITY, f'capability {cap.name} has no mcp_tool({cap.name}, "tool") for its mcp book'
        )
    unmapped = unmapped_columns(cap, cap.mcp.fields, "mcp_field")
    if unmapped is not None:
        return unmapped
    problem = unsendable(cap.secrets, is_url(book.address))
    if problem is not None:
        return why(UNSUPPORTED_CAPABILITY, f"capability {cap.name}: the mcp kind {problem}")
    if importlib.util.find_spec("mcp") is None:
        return why(
            NO_MATCHING_ADAPTER, f"adapter {book.name}: the mcp kind needs the mcp package; install rofl[server]"
        )
    return None


class McpAdapter:
    """Calls MCP tools: one session per book (and set of secrets), opened at its first batch, kept until ``close``."""

    def __init__(self, scrubber: Scrubber, environ: Mapping[str, str]) -> None:
        self.scrubber = scrubber
        self.environ = environ  # a login's token store reads it (the batch's is the server's environment)
        self.auth = HttpAuth(post_form)
        self._sessions: dict[tuple, tuple[tuple, Connection]] = {}  # book, address, secrets -> credentials, session
        self.started = 0  # sessions opened (a command server started, or a URL connected)

    def ask(self, batch: Batch) -> Reply:
        book, cap = batch.book, batch.cap
        problem = check(cap, book)
        if problem is not None or cap.mcp is None:
            return Reply.failing(batch.wants, problem or why(UNSUPPORTED_CAPABILITY, f"{cap.name} has no mcp_tool"))
        spec = cap.mcp
        deadline = time.monotonic() + book.timeout_s
        session = self._session(batch)
        if isinstance(session, Held):
            return self.auth.clean(batch.book.name, Reply({}, {}, {w: session.why for w in batch.wants}))
        if isinstance(session, str):
            return self.auth.clean(batch.book.name, Reply.failing(batch.wants, session))
        arguments = [{field: args[a.name] for field, a in zip(spec.inputs, cap.args)} for args in batch.args]
        outcomes = session.call(spec.tool, arguments, deadline, parallel=cap.klass == "reads")
        answers: dict[Want, tuple[tuple, ...]] = {}
        failed: dict[Want, str] = {}
        where = f"adapter {book.name}: tool {spec.tool}"
        for want, outcome in zip(batch.wants, outcomes):
            if outcome.result is None:
                timeout = f" after {book.timeout_s:g} s (set adapter_timeout({book.name}, Ms))"
                text = (outcome.error or "no result") + (timeout if outcome.error == TIMED_OUT else "")
                failed[want] = why(HOST_CALL_FAILED, f"{where}: {self.scrubber.scrub(text)}")
            elif outcome.result.get("isError"):
                said = self.scrubber.scrub(_error_text(outcome.result))
                failed[want] = why(HOST_CALL_FAILED, f"{where} says: {said}")
            else:
                rows = answer_rows(spec, outcome.result)
                if isinstance(rows, str):
                    failed[want] = why(HOST_CALL_FAILED, f"{where}: {rows}")
                else:
                    answers[want] = rows
        return self.auth.clean(batch.book.name, Reply(answers, failed))

    def _session(self, batch: Batch) -> Connection | Held | str:
        """The open session for this batch's book and secrets (opened now if there is none, the last one
        was lost, or its credentials changed), a hold (a login nobody made), or the Why of every want
        when it cannot be opened."""
        book, cap = batch.book, batch.cap
        key = (book.name, book.address, cap.secrets)
        for attempt in (1, 2):
            headers: tuple[tuple[str, str], ...] = ()
            params: tuple[tuple[str, str], ...] = ()
            if is_url(book.address) and cap.secrets:
                creds = self.auth.credentials(cap.name, cap.secrets, self.environ, book.timeout_s)
                if isinstance(creds, (Held, Failed)):
                    return creds if isinstance(creds, Held) else creds.why
                headers, params = creds.headers, creds.params
            sent = (headers, params)
            known = self._sessions.pop(key, None)
            if known is not None:
                if known[0] == sent and known[1].broken is None:
                    self._sessions[key] = known
                    return known[1]
                known[1].close()
            try:
                session = Connection.open(book.address, batch.environ, book.timeout_s, dict(headers), dict(params))
            except McpFailure as exc:
                if self.auth.send_again(exc.status, cap.secrets, attempt > 1):
                    continue  # a fetched token the server no longer takes: fetch it again, once
                code = NO_MATCHING_ADAPTER if exc.unusable else HOST_CALL_FAILED
                return why(code, f"adapter {book.name}: {self.scrubber.scrub(str(exc))}")
            self.started += 1
            self._sessions[key] = (sent, session)
            return session
        return why(HOST_CALL_FAILED, f"adapter {book.name}: the server refused the credentials twice")

    def close(self) -> None:
        for _, session in self._sessions.values():
            session.close()
        self._sessions.clear()


def document(result: dict) -> object:
    """What a tool's result says: its structured content, else its text (JSON when it parses; several
    text blocks are an array of them), else null."""
    if "structuredContent" in result:
        return result["structuredContent"]
    texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict) and c.get("type") == "text"]
    values = [_json_or_text(t) for t in texts]
    return None if not values else values[0] if len(values) == 1 else values


def _json_or_text(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


def answer_rows(spec: McpTool, result: dict) -> tuple[tuple, ...] | str:
    """The answer rows (the columns after the want's key) a tool's result gives, or why it gives none."""
    doc = document(result)
    if spec.rows is not None:
        items = pointer(doc, spec.rows)
        if items is _MISSING:
            return f"the result has nothing at {spec.rows or '(the whole)'}, where mcp_rows says the rows are"
        if not isinstance(items, list):
            return f"{spec.rows or 'the result'} is not an array, where mcp_rows says the rows are"
    else:
        items = doc if isinstance(doc, list) else [doc]
    out: list[tuple] = []
    for item in items:
        out.append(tuple(term(pointer(item, path)) for _, path in spec.fields))
    return tuple(out)


def pointer(value: object, path: str) -> object:
    """The value at JSON pointer ``path`` (RFC 6901) inside ``value``; ``_MISSING`` when there is none."""
    if path == "":
        return value
    for raw in path[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            if key not in value:
                return _MISSING
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and (key == "0" or not key.startswith("0")):
            index = int(key)
            if index >= len(value):
                return _MISSING
            value = value[index]
        else:
            return _MISSING
    return value


def term(value: object) -> object:
    """A JSON value as a ROFL term (see the module's docstring)."""
    if value is None or value is _MISSING:
        return NULL
    if isinstance(value, bool):
        return ("true",) if value else ("false",)
    if isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else repr(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _error_text(result: dict) -> str:
    texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict) and c.get("type") == "text"]
    text = " ".join(" ".join(texts).split()) or "an error without text"
    return text if len(text) <= ERROR_TEXT else text[: ERROR_TEXT - 3] + "..."


def make_adapter(context: KindContext) -> McpAdapter:
    """The mcp kind's adapter for one session of rofl."""
    return McpAdapter(context.scrubber, context.environ)
