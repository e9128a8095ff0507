"""Execution events: typed, versioned, densely numbered reports of a running call, and its cancellation.

An *execution* is a call of an existing command given an id.  While it runs, the call's context carries
a ``Reporter``: the handler says ``started``, ``progress(done, total)``, ``warning``, and the caller
ends it with ``finished(result)``, ``failed(error)`` or ``cancelled()``.  Each event gets the next
sequence number of its execution (1, 2, 3, ... with no gap) and goes to every listener subscribed,
in order.  A reporter nobody listens to numbers nothing and calls nothing, so a handler reports the
same way from the command line, a server or a test, and it costs nothing when nobody watches.

Cancellation is a ``CancelToken`` the reporter carries: a handler calls ``reporter.check()`` at safe
points (between files, before replacing a manifest) and ``ExecutionCancelled`` unwinds the call.
A handler that never checks simply runs to its end.

The reporter of the running call is found through ``current()``: a context variable (set with
``reporting(reporter)``), which is Python's way of giving a call a context field without threading
a parameter through every layer.  Outside ``reporting`` it is a fresh silent reporter.

Standard library only.  The JSON form of an event is ``{"v", "seq", "execution", "type", "data"}``.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Protocol

EVENT_VERSION = 1

# the states of an execution: running until one of the three ends
RUNNING, SUCCEEDED, FAILED, CANCELLED = "running", "succeeded", "failed", "cancelled"
ENDS = (SUCCEEDED, FAILED, CANCELLED)


class ExecutionCancelled(Exception):
    """Raised by ``CancelToken.check`` in a handler whose execution was cancelled; unwinds the call."""

    def __init__(self, reason: str = "cancelled") -> None:
        super().__init__(reason)
        self.reason = reason


class CancelToken:
    """A flag set once (by ``cancel``) and read by the handler at its safe points (``check``)."""

    __slots__ = ("_flag", "_reason")

    def __init__(self) -> None:
        self._flag = threading.Event()
        self._reason = "cancelled"

    def cancel(self, reason: str = "cancelled") -> None:
        if not self._flag.is_set():
            self._reason = reason
            self._flag.set()

    @property
    def cancelled(self) -> bool:
        return self._flag.is_set()

    @property
    def reason(self) -> str:
        return self._reason

    def check(self) -> None:
        """Raise ``ExecutionCancelled`` when the execution was cancelled; otherwise return at once."""
        if self._flag.is_set():
            raise ExecutionCancelled(self._reason)


# -- the payloads: one frozen type per kind of event --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    TYPE: ClassVar[str] = "started"
    command: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Progress:
    TYPE: ClassVar[str] = "progress"
    done: int
    total: int
    label: str = ""


@dataclass(frozen=True, slots=True)
class Warned:
    TYPE: ClassVar[str] = "warning"
    message: str


@dataclass(frozen=True, slots=True)
class Finished:
    TYPE: ClassVar[str] = "finished"
    result: Any  # a JSON value: what the command answered


@dataclass(frozen=True, slots=True)
class Failed:
    TYPE: ClassVar[str] = "failed"
    error: str  # one line
    code: int = 2  # the exit code the command line gives the same failure


@dataclass(frozen=True, slots=True)
class Cancelled:
    TYPE: ClassVar[str] = "cancelled"
    reason: str = "cancelled"


Payload = Started | Progress | Warned | Finished | Failed | Cancelled
PAYLOADS: Mapping[str, type] = {p.TYPE: p for p in (Started, Progress, Warned, Finished, Failed, Cancelled)}
# the state an execution is in after an event of each terminal type
END_STATE: Mapping[str, str] = {Finished.TYPE: SUCCEEDED, Failed.TYPE: FAILED, Cancelled.TYPE: CANCELLED}


@dataclass(frozen=True, slots=True)
class Event:
    """One event of one execution: ``seq`` counts from 1 with no gap within the execution."""

    seq: int
    execution: str
    payload: Payload
    version: int = EVENT_VERSION

    @property
    def type(self) -> str:
        return self.payload.TYPE

    @property
    def terminal(self) -> bool:
        return self.payload.TYPE in END_STATE

    def as_json(self) -> dict[str, Any]:
        return {
            "v": self.version,
            "seq": self.seq,
            "execution": self.execution,
            "type": self.type,
            "data": _fields(self.payload),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Event:
        """The event a client reads back from ``as_json`` (a KeyError or TypeError on a malformed one)."""
        payload = PAYLOADS[data["type"]](**data["data"])
        return Event(int(data["seq"]), str(data["execution"]), payload, int(data["v"]))


def _fields(payload: Payload) -> dict[str, Any]:
    """A payload's fields by name, values as they are (a result is not copied: events are read-only)."""
    return {f.name: getattr(payload, f.name) for f in fields(payload)}


class Listener(Protocol):
    """Anything called with each event, in sequence order; it must not raise and should return quickly."""

    def __call__(self, event: Event) -> None: ...


class Reporter:
    """The reporting field of one call's context: numbers events densely and hands each to the listeners.

    Thread-safe: events from several threads of one execution get distinct, ordered numbers, and each
    listener sees them in that order.  With no listener, nothing is numbered or delivered.
    """

    def __init__(self, execution: str = "", listeners: tuple[Listener, ...] = (), token: CancelToken | None = None):
        self.execution = execution
        self.token = token if token is not None else CancelToken()
        self._listeners: list[Listener] = list(listeners)
        self._seq = 0
        self._lock = threading.Lock()

    @property
    def listening(self) -> bool:
        return bool(self._listeners)

    @property
    def last_seq(self) -> int:
        return self._seq

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def emit(self, payload: Payload) -> Event | None:
        """Number ``payload`` and deliver it; None (and no number used) when nobody listens."""
        with self._lock:
            if not self._listeners:
                return None
            self._seq += 1
            event = Event(self._seq, self.execution, payload)
            for listener in self._listeners:
                listener(event)
            return event

    # -- what a handler says --------------------------------------------------------------------------
    def started(self, command: str, args: Mapping[str, Any] | None = None) -> None:
        self.emit(Started(command, dict(args or {})))

    def progress(self, done: int, total: int, label: str = "") -> None:
        """Report ``done`` of ``total`` units (files, rounds, ticks) under ``label``."""
        if self._listeners:
            self.emit(Progress(done, total, label))

    def warning(self, message: str) -> None:
        self.emit(Warned(message))

    def finished(self, result: Any) -> None:
        self.emit(Finished(result))

    def failed(self, error: str, code: int = 2) -> None:
        self.emit(Failed(error, code))

    def cancelled(self, reason: str = "cancelled") -> None:
        self.emit(Cancelled(reason))

    def check(self) -> None:
        """A safe point: raise ``ExecutionCancelled`` if the execution was cancelled."""
        self.token.check()

    def progress_callback(self, label: str, check: bool = True) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` function for code that takes one (``scanner.api.scan``): reports
        progress and, with ``check``, is a safe point for cancellation as well."""

        def report(done: int, total: int) -> None:
            self.progress(done, total, label)
            if check:
                self.token.check()

        return report


class Recorder:
    """A listener that keeps every event of an execution, from its first: servers replay from it (a
    client resuming after a sequence number), tests read it."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._events.append(event)

    @property
    def events(self) -> tuple[Event, ...]:
        with self._lock:
            return tuple(self._events)

    def after(self, seq: int) -> tuple[Event, ...]:
        """The events numbered above ``seq``, in order (numbers are dense from 1, so this is a slice)."""
        with self._lock:
            return tuple(self._events[max(seq, 0) :])

    def last(self) -> Event | None:
        with self._lock:
            return self._events[-1] if self._events else None

    def ended(self) -> bool:
        with self._lock:
            return bool(self._events) and self._events[-1].terminal


_CURRENT: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("rofl_reporter", default=None)


def current() -> Reporter:
    """The reporter of the running call (set by ``reporting``), or a fresh silent one."""
    reporter = _CURRENT.get()
    return reporter if reporter is not None else Reporter()


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Make ``reporter`` the current one for the calls inside the block (this thread and context)."""
    token = _CURRENT.set(reporter)
    try:
        yield reporter
    finally:
        _CURRENT.reset(token)
