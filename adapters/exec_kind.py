"""The exec kind: one process per batch, the batch as JSON on stdin, ROFL facts keyed by want on stdout.

The program may print answer facts (the want's key first), ``answered(K)``, ``failed(K, "why")`` and
``-- reads: PATH`` (the next keyed line's want depends on PATH; a trailing one, on every want of the
batch).  A non-zero exit, a timeout, output past the size limits, binary output, output that does not
parse, or any fact other than the capability's answer relation fails every want of the batch, with the
reason and stderr's tail; nothing of such a batch is asserted.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rofl.engine.base.errors import RoflSyntaxError
from rofl.engine.clauses import NOW
from rofl.engine.parse import parse_program
from rofl.engine.terms import format_term

from .answer_cache import AnswerCache, cache_root
from .batch import Batch, Reply
from .policy import HOST_CALL_FAILED, NO_MATCHING_ADAPTER, why
from .process import spawn, stop
from .secrets import Scrubber
from .wants import ANSWERED, FAILED, Want

if TYPE_CHECKING:
    from .kinds import KindContext

MAX_OUTPUT_BYTES = 16 * 1024 * 1024
MAX_OUTPUT_LINES = 200_000
STDERR_TAIL = 400  # characters of stderr quoted in a Why
READS = "-- reads:"
_QUIET = re.compile(r"\s*(?:--.*)?", re.ASCII)  # a blank or comment line, as the parser skips it


@dataclass(frozen=True, slots=True)
class Run:
    """What a finished (or stopped) process left: stdout, stderr's tail, its exit code, or why it was stopped."""

    stdout: bytes
    stderr_tail: str
    code: int | None
    stopped: str | None


class ExecAdapter:
    """Runs a book's command once per batch."""

    def __init__(self, cache: AnswerCache | None, scrubber: Scrubber) -> None:
        self.cache = cache
        self.scrubber = scrubber
        self.started = 0  # processes started (a denied capability must leave this at 0)

    def ask(self, batch: Batch) -> Reply:
        try:
            argv = shlex.split(batch.book.address)
        except ValueError as exc:
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, f"adapter {batch.book.name}: address: {exc}"))
        if not argv:
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, f"adapter {batch.book.name}: empty command"))
        scope = self.cache.scope(argv, batch.environ) if self.cache is not None else None
        answers: dict[Want, tuple[tuple, ...]] = {}
        todo, todo_args = [], []
        for want, args in zip(batch.wants, batch.args):
            lines = self.cache.get(scope, batch.book, want) if self.cache is not None and scope else None
            parsed = _parse_cached(batch, want, lines) if lines is not None else None
            if parsed is not None:
                answers[want] = parsed
            else:
                todo.append(want)
                todo_args.append(args)
        if not todo:
            return Reply(answers, {})
        sent = Batch(batch.cap, batch.book, tuple(todo), tuple(todo_args), batch.environ)
        reply = self._call(argv, sent, scope)
        return Reply({**answers, **reply.answers}, reply.failed)

    def _call(self, argv: list[str], batch: Batch, scope: str | None) -> Reply:
        data = json.dumps(batch.payload()).encode("utf-8")
        try:
            run = self._run(argv, data, batch)
        except OSError as exc:
            reason = f"adapter {batch.book.name}: cannot start {argv[0]!r} ({exc.strerror or exc})"
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, reason))
        tail = self.scrubber.scrub(run.stderr_tail)
        suffix = f"; stderr: {tail}" if tail else ""
        if run.stopped is not None:
            return Reply.failing(
                batch.wants, why(HOST_CALL_FAILED, f"adapter {batch.book.name}: {run.stopped}{suffix}")
            )
        if run.code != 0:
            reason = f"adapter {batch.book.name}: exited with code {run.code}{suffix}"
            return Reply.failing(batch.wants, why(HOST_CALL_FAILED, reason))
        result = read_output(batch, run.stdout)
        if isinstance(result, str):
            return Reply.failing(batch.wants, why(HOST_CALL_FAILED, f"adapter {batch.book.name}: {result}{suffix}"))
        rows, failed, reads = result
        answers: dict[Want, tuple[tuple, ...]] = {}
        failures: dict[Want, str] = {}
        for want in batch.wants:
            if want in failed:
                failures[want] = why(
                    HOST_CALL_FAILED, f"adapter {batch.book.name} says: {self.scrubber.scrub(failed[want])}"
                )
            elif want in rows:
                answers[want] = tuple(rows[want])
                if self.cache is not None and scope and reads.get(want):
                    lines = [_answer_line(batch, want, row) for row in rows[want]]
                    self.cache.put(scope, batch.book, want, reads[want], lines)
            else:
                reason = f"adapter {batch.book.name} printed nothing for this want (print answered(K) for no rows)"
                failures[want] = why(HOST_CALL_FAILED, reason)
        return Reply(answers, failures)

    def _run(self, argv: list[str], data: bytes, batch: Batch) -> Run:
        proc = spawn(argv, batch.environ)
        self.started += 1
        feeder = threading.Thread(target=_feed, args=(proc, data), daemon=True)
        feeder.start()
        deadline = time.monotonic() + batch.book.timeout_s
        out, err = bytearray(), bytearray()
        stopped = None
        sel = selectors.DefaultSelector()
        assert proc.stdout is not None and proc.stderr is not None
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        open_streams = 2
        lines = 0
        while open_streams and stopped is None:
            left = deadline - time.monotonic()
            if left <= 0:
                stopped = f"timed out after {batch.book.timeout_s:g} s (set adapter_timeout({batch.book.name}, Ms))"
                break
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_streams -= 1
                    continue
                buf = key.data
                buf += chunk
                if buf is err and len(err) > 4 * STDERR_TAIL:
                    del err[: len(err) - 2 * STDERR_TAIL]
                if buf is out:
                    lines += chunk.count(b"\n")
                if buf is out and (len(out) > MAX_OUTPUT_BYTES or lines > MAX_OUTPUT_LINES):
                    stopped = f"printed more than {MAX_OUTPUT_BYTES // (1024 * 1024)} MiB or {MAX_OUTPUT_LINES:,} lines"
                    break
        sel.close()
        if stopped is not None:
            stop(proc)
        code = _wait(proc, deadline)
        if code is None and stopped is None:
            stopped = f"timed out after {batch.book.timeout_s:g} s (set adapter_timeout({batch.book.name}, Ms))"
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        tail = err.decode("utf-8", "replace")[-STDERR_TAIL:].strip().replace("\n", " | ")
        return Run(bytes(out), tail, code, stopped)


def _feed(proc: subprocess.Popen, data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except (BrokenPipeError, OSError):  # the program stopped reading: its output says what it did
        pass


def _wait(proc: subprocess.Popen, deadline: float) -> int | None:
    try:
        return proc.wait(timeout=max(0.05, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        stop(proc)
        return None


def read_output(batch: Batch, raw: bytes) -> tuple[dict, dict, dict] | str:
    """``(rows per want, failure text per want, read files per want)``, or why the output is refused."""
    if b"\0" in raw:
        return "printed binary output (a NUL byte); print ROFL facts as UTF-8 text"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "printed binary output (not UTF-8); print ROFL facts as UTF-8 text"
    try:
        clauses = parse_program(text, "<stdout>")
    except RoflSyntaxError as exc:
        return f"output line {exc.line}: {exc.message}"
    lines = text.split("\n")
    if clauses and all(c.line == 0 for c in clauses):  # the parser's fact-file path: one fact per non-blank line
        numbers = [n for n, line in enumerate(lines, 1) if not _QUIET.fullmatch(line)]
        clauses = [replace(c, line=n) for c, n in zip(clauses, numbers)]
    by_key = {w.text: w for w in batch.wants}
    cap = batch.cap
    reads_at = [
        (n, os.path.abspath(line[len(READS) :].strip()))
        for n, line in enumerate(lines, 1)
        if line.startswith(READS) and line[len(READS) :].strip()
    ]
    rows: dict[Want, list[tuple]] = {}
    failed: dict[Want, str] = {}
    reads: dict[Want, list[str]] = {}
    pending = list(reads_at)
    for c in clauses:
        head = c.head
        where = f"output line {c.line}"
        if c.body or c.want:
            return f"{where}: printed a rule; an adapter prints facts only"
        if head.persp not in ("main", batch.book.name) or head.temporal != NOW:
            persp = head.persp if type(head.persp) is str else format_term(head.persp)
            return f"{where}: printed a fact into [{persp}]; answers go to the book [{batch.book.name}]"
        if head.rel not in (cap.answer_rel, ANSWERED, FAILED):
            return f"{where}: printed {head.rel}/{len(head.args)}; {cap.name} answers only in {cap.answer_rel}"
        if not head.args or type(head.args[0]) is not str or head.args[0] not in by_key:
            return f"{where}: the first argument is not the key of a want of this batch"
        want = by_key[head.args[0]]
        while pending and pending[0][0] < c.line:
            reads.setdefault(want, []).append(pending.pop(0)[1])
        if head.rel == FAILED:
            if len(head.args) != 2 or type(head.args[1]) is not str:
                return f'{where}: write failed(K, "why")'
            failed[want] = head.args[1]
        elif head.rel == ANSWERED:
            if len(head.args) != 1:
                return f"{where}: write answered(K)"
            rows.setdefault(want, [])
        else:
            if len(head.args) != cap.answer_arity:
                return f"{where}: {cap.answer_rel} has {cap.answer_arity} columns; this fact has {len(head.args)}"
            rows.setdefault(want, []).append(tuple(head.args[1:]))
    if pending:  # reads after the last keyed line: every want of the batch depends on them
        for want in batch.wants:
            reads.setdefault(want, []).extend(p for _, p in pending)
    return rows, failed, reads


def _answer_line(batch: Batch, want: Want, row: tuple) -> str:
    args = ", ".join(format_term(a) for a in (want.text, *row))
    return f"{batch.cap.answer_rel}({args})."


def _parse_cached(batch: Batch, want: Want, lines: list[str]) -> tuple[tuple, ...] | None:
    """A cached answer, validated like fresh output; None when the entry does not fit this book any more."""
    one = Batch(batch.cap, batch.book, (want,), ({},), batch.environ)
    result = read_output(one, "\n".join(lines).encode("utf-8"))
    if isinstance(result, str) or want in result[1]:
        return None
    return tuple(result[0].get(want, ()))


def make_adapter(context: KindContext) -> ExecAdapter:
    """The exec kind's adapter for one session (its answers cached unless the session says not)."""
    cache = AnswerCache(cache_root(context.environ)) if context.use_cache else None
    return ExecAdapter(cache, context.scrubber)
