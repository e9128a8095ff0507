"""The rofl kind: another ROFL world answers from one of its relations, in this process or through ``rofl serve``.

The address is files (every word ends in ``.rofl`` or ``.rofl.md``), evaluated once here, or a command
serving a world over line-delimited JSON on stdin/stdout, started once and asked at each round.  A
capability answers from one relation of the other world (``answers_from(Cap, Rel)``, the capability's
name by default); the want's arguments are its first columns; each matching row comes back whole.

Protocol (one JSON object per line): request ``{"ask": REL, "args": [TERM...], "arity": N}`` (REL a
name in perspective main, or ``name[persp]`` such as ``in_cycle[code]``), response
``{"rows": [[TERM...], ...]}`` or ``{"error": TEXT}``; a TERM is ROFL term text.  ``serve_loop`` is the
serving side (``rofl serve``); it reloads its files when one of them changes, so a changing world
answers as it is now.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rofl.engine.base.errors import RoflError
from rofl.engine.clauses import Literal, var
from rofl.engine.kernel import Kernel
from rofl.engine.lexer import NAME
from rofl.engine.namespace import qualify_literal
from rofl.engine.parse import parse_literal
from rofl.engine.terms import format_term

from .batch import Batch, Reply
from .policy import HOST_CALL_FAILED, NO_MATCHING_ADAPTER, is_files, why
from .process import spawn, stop
from .secrets import Scrubber
from .wants import Want

if TYPE_CHECKING:
    from .kinds import KindContext

WorldFactory = Callable[[Sequence[Path]], Kernel]
MAX_LINE = 16 * 1024 * 1024


ASKED = re.compile(rf"({NAME})(?:\[({NAME})\])?")  # REL of a request: ``name`` (in main) or ``name[persp]``


def ask_world(kernel: Kernel, rel: str, args: tuple, arity: int) -> list[tuple]:
    """The rows of ``rel`` (``name``, perspective main, or ``name[persp]``; ``arity`` columns) whose
    first columns are ``args``."""
    if len(args) > arity:
        raise RoflError(f"{rel}/{arity} has fewer columns than the want has arguments ({len(args)})")
    asked = ASKED.fullmatch(rel)
    if asked is None:
        raise RoflError(f"{rel!r} is not a relation; write name or name[perspective], e.g. in_cycle[code]")
    rest = [var(f"C{i}") for i in range(arity - len(args))]
    answers = kernel.query(qualify_literal(Literal(asked[1], asked[2] or "main", (*args, *rest))))
    return [(*args, *row) for row in answers.rows]


def encode_terms(row: Sequence) -> list[str]:
    return [format_term(t) for t in row]


def decode_terms(texts: Sequence[str]) -> tuple:
    if not texts:
        return ()
    if not all(isinstance(t, str) for t in texts):
        raise ValueError("a term is not text")
    return parse_literal("t(" + ", ".join(texts) + ")", "<rofl serve>").args


class RoflAdapter:
    """Asks another world: the files' kernel is built once; a served world's process starts once."""

    def __init__(self, factory: WorldFactory | None, scrubber: Scrubber) -> None:
        self.factory = factory
        self.scrubber = scrubber
        self._worlds: dict[str, Kernel | str] = {}
        self._servers: dict[str, subprocess.Popen | str] = {}
        self._pending: dict[str, bytearray] = {}  # per server: bytes read past its last answer line
        self.started = 0  # world servers started

    def ask(self, batch: Batch) -> Reply:
        book, cap = batch.book, batch.cap
        arity = (cap.answer_arity or 1) - 1
        if is_files(book.address):
            world = self._world(book.address)
            if isinstance(world, str):
                return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, f"adapter {book.name}: {world}"))
            answers: dict[Want, tuple[tuple, ...]] = {}
            failed: dict[Want, str] = {}
            for want in batch.wants:
                try:
                    answers[want] = tuple(r[: len(r)] for r in ask_world(world, cap.source_rel, want.args, arity))
                except RoflError as exc:
                    failed[want] = why(HOST_CALL_FAILED, f"world {book.address}: {exc}")
            return Reply(answers, failed)
        return self._ask_server(batch, arity)

    def _world(self, address: str) -> Kernel | str:
        hit = self._worlds.get(address)
        if hit is None:
            if self.factory is None:
                hit = "no way to load another world here"
            else:
                try:
                    hit = self.factory([Path(w) for w in address.split()])
                except RoflError as exc:
                    hit = f"cannot load {address}: {exc}"
            self._worlds[address] = hit
        return hit

    def _server(self, batch: Batch) -> subprocess.Popen | str:
        book = batch.book
        hit = self._servers.get(book.name)
        if hit is None:
            try:
                hit = spawn(shlex.split(book.address), batch.environ, subprocess.DEVNULL)
                self.started += 1
            except (OSError, ValueError) as exc:
                hit = f"cannot start {book.address!r} ({exc})"
            self._servers[book.name] = hit
        return hit

    def _ask_server(self, batch: Batch, arity: int) -> Reply:
        book = batch.book
        proc = self._server(batch)
        if isinstance(proc, str):
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, f"adapter {book.name}: {proc}"))
        answers: dict[Want, tuple[tuple, ...]] = {}
        failed: dict[Want, str] = {}
        deadline = time.monotonic() + book.timeout_s
        for want in batch.wants:
            request = {"ask": batch.cap.source_rel, "args": encode_terms(want.args), "arity": arity}
            response = _exchange(proc, self._pending.setdefault(book.name, bytearray()), request, deadline)
            if isinstance(response, str):
                self._stop(book.name)
                reason = why(HOST_CALL_FAILED, f"world server {book.name}: {self.scrubber.scrub(response)}")
                failed.update({w: reason for w in batch.wants if w not in answers})
                break
            if "error" in response:
                failed[want] = why(
                    HOST_CALL_FAILED, f"world server {book.name}: {self.scrubber.scrub(str(response['error']))}"
                )
                continue
            try:
                answers[want] = tuple(decode_terms(r) for r in response.get("rows", []))
            except (RoflError, ValueError, TypeError) as exc:
                failed[want] = why(HOST_CALL_FAILED, f"world server {book.name}: a row does not parse ({exc})")
        return Reply(answers, failed)

    def _stop(self, name: str) -> None:
        proc = self._servers.get(name)
        if isinstance(proc, subprocess.Popen):
            _terminate(proc)
            self._servers[name] = "stopped after a failed exchange"

    def close(self) -> None:
        for proc in self._servers.values():
            if isinstance(proc, subprocess.Popen):
                _terminate(proc)
        self._servers.clear()


def _terminate(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        stop(proc)
    if proc.stdout is not None:
        proc.stdout.close()


def _exchange(proc: subprocess.Popen, pending: bytearray, request: dict, deadline: float) -> dict | str:
    """Send one request line and read one response line before ``deadline``; a str says what went wrong.
    ``pending`` holds what was read past the last line (kept for the next exchange)."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
        proc.stdin.flush()
    except OSError as exc:
        return f"the server is gone ({exc})"
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        fd = proc.stdout.fileno()
        while b"\n" not in pending:
            if len(pending) > MAX_LINE:
                return "an answer line is too long"
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return "no answer before the timeout"
            chunk = os.read(fd, 65536)
            if not chunk:
                return "the server closed its output"
            pending += chunk
    end = pending.index(b"\n")
    line = bytes(pending[:end])
    del pending[: end + 1]
    try:
        response = json.loads(line)
    except ValueError:
        return "an answer line is not JSON"
    return response if isinstance(response, dict) else "an answer line is not a JSON object"


def serve_loop(
    factory: WorldFactory, files: Sequence[Path], requests: IO[str], replies: IO[str], watch: Sequence[Path] = ()
) -> None:
    """Serve the world of ``files``: evaluated once before the first request, evaluated again when one
    of ``files`` or ``watch`` changes; one JSON request per line in, one JSON response per line out,
    until end of input."""

    def stamp() -> tuple:
        out: list[tuple[int, int] | None] = []
        for f in (*files, *watch):
            try:
                st = os.stat(f)
                out.append((st.st_mtime_ns, st.st_size))
            except OSError:
                out.append(None)
        return tuple(out)

    seen = stamp()
    kernel = factory(files)
    for line in requests:
        if not line.strip():
            continue
        now = stamp()
        if now != seen:
            try:
                kernel, seen = factory(files), now
            except RoflError as exc:
                _reply(replies, {"error": f"cannot reload the world: {exc}"})
                continue
        try:
            request = json.loads(line)
            rel, args, arity = request["ask"], decode_terms(request.get("args", [])), int(request["arity"])
            if not isinstance(rel, str):
                raise ValueError("ask must name a relation")
            rows = ask_world(kernel, rel, args, arity)
        except (ValueError, KeyError, TypeError, RoflError) as exc:
            _reply(replies, {"error": str(exc) or type(exc).__name__})
            continue
        _reply(replies, {"rows": [encode_terms(r) for r in rows]})


def _reply(out: IO[str], data: dict) -> None:
    out.write(json.dumps(data) + "\n")
    out.flush()


def make_adapter(context: KindContext) -> RoflAdapter:
    """The rofl kind's adapter for one session: worlds from files through the session's factory."""
    return RoflAdapter(context.world_factory, context.scrubber)
