"""Executions: a call of an existing command given an id, run on a worker thread, with its events kept.

``Executions.start`` checks the call (``servers.commands``), gives it an id, and asks its question on
a worker thread (``servers.asking``: the command's question with the session's source, under the
execution's reporter, ``engine.events``).  The answer's JSON is its result; the lines the command line
prints on stderr arrive as warning events; its exit code says how it ended (0, 1 and 3 answer; 2 is
the user error its one line names).  Nothing a question does prints: the servers never swap
``sys.stdout``.  A scan holds the session's scan lock,
so one scan per fact folder runs at a time.  The last ``keep`` executions are kept for reading.

The plane's own operations are methods here, so that every transport (``servers.http``,
``servers.mcp``, and through HTTP the command line's ``rofl executions``) answers them alike:
``start``, ``get`` (``find``), ``listing`` (filtered by state and command, newest first, paged by an
opaque cursor), ``cancel`` (refused, never ignored, when the command's handler checks no cancel flag
or the execution has ended: ``servers.commands.CANCELLABLE``) and ``Execution.events_after``.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ClassVar

from rofl.engine.base import events
from rofl.servers.session import Session

from rofl.questions.registry import QUESTIONS

from . import asking
from .asking import CommandResult
from .commands import BadRequest, Folders, Invocation, cli_command, invocation, served
from .protocol import DEFAULT_PAGE, MAX_PAGE

ANSWER_CODES = (0, 1, 3)  # answers, no answer / findings, partial: the command answered


class Execution:
    """One running or finished call: id, command, arguments, events, state and result."""

    def __init__(self, ident: str, call: Invocation, number: int = 0) -> None:
        self.id = ident
        self.number = number  # its place in the order executions started (the listing's cursor)
        self.call = call
        self.started_at = _utc_now()
        self.recorder = events.Recorder()
        self.reporter = events.Reporter(ident, (self.recorder,))
        self.future: Future[None] | None = None

    @property
    def state(self) -> str:
        last = self.recorder.last()
        return events.END_STATE[last.type] if last is not None and last.terminal else events.RUNNING

    def cancel(self, reason: str = "cancelled by the client") -> None:
        """Set the cancel flag (the server stopping, an MCP request given up); ``Executions.cancel`` is the
        client's operation, which refuses what cannot be cancelled."""
        self.reporter.token.cancel(reason)

    def cancel_answer(self) -> dict[str, Any]:
        """The answer to an accepted cancel, on every transport: the id, the state (running until the
        handler's next safe point) and the reason recorded."""
        return {"id": self.id, "state": self.state, "cancel_requested": self.reporter.token.reason}

    def events_after(self, seq: int, limit: int | None = None) -> list[dict[str, Any]]:
        """The events numbered above ``seq`` as JSON, at most ``limit`` of them."""
        found = self.recorder.after(seq)
        return [event.as_json() for event in (found if limit is None else found[:limit])]

    def summary(self) -> dict[str, Any]:
        """What a listing shows of it: its view without the result (``exit_code`` in its place)."""
        out: dict[str, Any] = {
            "id": self.id,
            "command": self.call.command,
            "args": dict(self.call.args),
            "state": self.state,
            "events": self.reporter.last_seq,
            "cancellable": self.call.cancel_refusal is None,
            "started_at": self.started_at,
        }
        token = self.reporter.token
        last = self.recorder.last()
        if last is not None and last.terminal:
            data = last.as_json()["data"]
            if "result" in data:
                result = data["result"]
                out["exit_code"] = result.get("exit_code") if isinstance(result, dict) else None
            else:
                out.update(data)
        elif token.cancelled and out["cancellable"]:
            out["cancel_requested"] = token.reason  # it stops at its handler's next safe point
        return out

    def view(self) -> dict[str, Any]:
        """What ``GET /executions/{id}`` answers: its summary, and once it ended how (result, error or reason)."""
        out = self.summary()
        out.pop("exit_code", None)
        last = self.recorder.last()
        if last is not None and last.terminal:
            out.update(last.as_json()["data"])
        return out


class Executions:
    """Starts, keeps, finds and cancels executions of the commands over one session's folders."""

    def __init__(self, session: Session, workers: int = 4, keep: int = 256, pending: int = 256) -> None:
        self.session = session
        self.folders = Folders(session.facts, session.src)
        self.keep = keep
        self.pending = pending  # executions started and not ended, at most
        self._unfinished = 0
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rofl-execution")
        self._all: OrderedDict[str, Execution] = OrderedDict()
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._scanning: Execution | None = None

    def start(self, command: Any, args: Any, listeners: tuple[events.Listener, ...] = ()) -> Execution:
        """Check the call and start it; BadRequest (one line) when the call is wrong or a scan is running.
        ``listeners`` hear every event of the execution, its ``started`` included."""
        call = invocation(command, args, self.folders)
        cli_command(call.command)  # imported here, not on the worker
        with self._lock:
            if self._unfinished >= self.pending:
                raise TooMany(f"{self._unfinished} executions are waiting or running; retry when some have ended")
            scanning = self._scanning is not None and self._scanning.state == events.RUNNING
            if call.command == "scan" and scanning and self._scanning is not None:
                raise Busy(f"scan: a scan of this folder is running (execution {self._scanning.id}); wait or cancel it")
            if call.command != "scan" and not self.session.scanned():
                raise NoScan(_no_scan(call.command, self.session, scanning))
            self._unfinished += 1
            number = next(self._numbers)
            execution = Execution(f"x{number}-{secrets.token_hex(4)}", call, number)
            for listener in listeners:
                execution.reporter.subscribe(listener)
            if call.command == "scan":
                self._scanning = execution
            self._all[execution.id] = execution
            while len(self._all) > self.keep:
                oldest = next(iter(self._all.values()))
                if oldest.state == events.RUNNING:
                    break
                self._all.popitem(last=False)
        execution.reporter.started(call.command, call.args)
        execution.future = self._pool.submit(self._run, execution)
        return execution

    def get(self, ident: str) -> Execution | None:
        with self._lock:
            return self._all.get(ident)

    def find(self, ident: Any) -> Execution:
        """The execution ``ident`` names; NotFound (404) when there is none."""
        found = self.get(ident) if isinstance(ident, str) else None
        if found is None:
            raise NotFound(f"no execution {ident!r}; it never existed or was forgotten (GET /executions lists them)")
        return found

    def listing(
        self, states: Iterable[str] = (), commands: Iterable[str] = (), limit: Any = None, cursor: Any = None
    ) -> dict[str, Any]:
        """The kept executions, newest first, those in ``states`` running ``commands`` (each: any when
        empty), ``limit`` to a page; ``next_cursor`` passed back as ``cursor`` gives the next page (stable
        while executions start: a newer one only heads a fresh first listing)."""
        wanted_states = _choices("state", states, (events.RUNNING, *events.ENDS))
        wanted_commands = _choices("command", commands, served())
        size = _page_size(limit)
        below = _cursor(cursor)
        with self._lock:
            kept = list(self._all.values())
        # each summary read once, so the state a filter chose is the state shown
        summaries = [(x.number, x.summary()) for x in reversed(kept)]
        matching = [
            (number, shown)
            for number, shown in summaries
            if (not wanted_commands or shown["command"] in wanted_commands)
            and (not wanted_states or shown["state"] in wanted_states)
        ]
        after = [(number, shown) for number, shown in matching if below is None or number < below]
        page = after[:size]
        return {
            "executions": [shown for _, shown in page],
            "total": len(matching),
            "next_cursor": str(page[-1][0]) if len(after) > size else None,
        }

    def cancel(self, ident: Any, reason: str = "cancelled by the client") -> Execution:
        """Ask ``ident`` to stop at its handler's next safe point.  Refused (409, NotCancellable), and the
        execution left to run, when its command checks no cancel flag or it has already ended."""
        execution = self.find(ident)
        refusal = execution.call.cancel_refusal
        if refusal is not None:
            raise NotCancellable(f"execution {execution.id}: {refusal}")
        state = execution.state
        if state != events.RUNNING:
            raise NotCancellable(f"execution {execution.id} has already ended ({state}); there is nothing to cancel")
        execution.cancel(reason)
        return execution

    def shutdown(self) -> None:
        with self._lock:
            running = list(self._all.values())
        for execution in running:
            execution.cancel("the server is stopping")
        self._pool.shutdown(wait=True, cancel_futures=True)
        self.session.close()

    # -- the worker ---------------------------------------------------------------------------------
    def _run(self, execution: Execution) -> None:
        try:
            self._end(execution)
        finally:
            with self._lock:
                self._unfinished -= 1

    def _end(self, execution: Execution) -> None:
        """Run the execution's command and say how it ended (one terminal event)."""
        reporter = execution.reporter
        call = execution.call
        try:
            if reporter.token.cancelled:
                raise events.ExecutionCancelled(reporter.token.reason)
            outcome = self._invoke(execution)
        except events.ExecutionCancelled as stop:
            reporter.cancelled(stop.reason)
            return
        except BaseException as exc:  # noqa: BLE001 - a command's bug must end its execution, not the server
            reporter.failed(f"{call.command}: internal error: {type(exc).__name__}: {exc}", 70)
            return
        for line in outcome.stderr:
            reporter.warning(line)
        if outcome.exit_code in ANSWER_CODES:
            reporter.finished(outcome.as_json())
        else:
            lines = [line for line in outcome.stderr if line.strip()]
            reporter.failed(lines[-1] if lines else f"{call.command}: exit code {outcome.exit_code}", outcome.exit_code)

    def _invoke(self, execution: Execution) -> CommandResult:
        """Answer the execution's call under its reporter; a call that may scan holds the scan lock, and
        a scan (or impact's rescan) that ends well marks the changes it saw as covered."""
        call = execution.call
        with events.reporting(execution.reporter):
            if not call.scans:
                return self._answer(call)
            with self.session.scan_lock:
                execution.reporter.check()
                watch = self.session.sources
                mark = watch.mark() if watch is not None else None
                outcome = self._answer(call)
                if outcome.exit_code == 0 and watch is not None and mark is not None:
                    watch.covered(mark)  # the scan (or impact's rescan) saw every change counted at mark
                return outcome

    def _answer(self, call: Invocation) -> CommandResult:
        return asking.ask(QUESTIONS[call.command], call, self.session)


class Busy(BadRequest):
    """Refused because the folder is busy (a scan is running): HTTP 409."""

    status: ClassVar[int] = 409


class NoScan(BadRequest):
    """Refused because the folder holds no scan yet (the server started before the first): HTTP 409."""

    status: ClassVar[int] = 409


class NotFound(BadRequest):
    """No execution has the id given (never started, or forgotten): HTTP 404."""

    status: ClassVar[int] = 404


class NotCancellable(BadRequest):
    """A cancel refused: the command's handler checks no cancel flag, or the execution has ended: HTTP 409."""

    status: ClassVar[int] = 409


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _choices(what: str, given: Iterable[str], known: Iterable[str]) -> frozenset[str]:
    """The values of a listing filter, each one of ``known``; BadRequest names an unknown one."""
    values = [given] if isinstance(given, str) else list(given)
    words = {w.strip() for v in values for w in (v.split(",") if isinstance(v, str) else [v]) if w != ""}
    allowed = tuple(known)
    for word in sorted(words, key=str):
        if word not in allowed:
            raise BadRequest(f"{what} {word!r} is not one of: {', '.join(allowed)}")
    return frozenset(words)


def _page_size(limit: Any) -> int:
    if limit is None or limit == "":
        return DEFAULT_PAGE
    number = int(limit) if isinstance(limit, str) and limit.isascii() and limit.isdigit() else limit
    if type(number) is not int or not 1 <= number <= MAX_PAGE:
        raise BadRequest(f"limit {limit!r} is not a whole number from 1 to {MAX_PAGE}")
    return number


def _cursor(cursor: Any) -> int | None:
    if cursor is None or cursor == "":
        return None
    if not isinstance(cursor, str) or not (cursor.isascii() and cursor.isdigit()):
        raise BadRequest(f"cursor {cursor!r} is not one this server gave; pass next_cursor of the last listing")
    return int(cursor)


def _no_scan(command: str, session: Session, scanning: bool) -> str:
    if scanning:
        return f"{command}: the first scan of {session.facts} is running; call {command} again when it has finished"
    return f"{command}: {session.facts} holds no scan yet; call scan first (it scans {session.src} into it)"


class TooMany(BadRequest):
    """Refused because too many executions wait or run: HTTP 429."""

    status: ClassVar[int] = 429


def result_of(execution: Execution) -> Mapping[str, Any]:
    """The view of a finished execution (waits for it)."""
    if execution.future is not None:
        execution.future.result()
    return execution.view()
