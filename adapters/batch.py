"""A batch (the wants of one capability in one round) and what an adapter kind replies to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rofl.engine.terms import format_term

from .books import Book, Capability
from .event_time import Instant, normalise
from .wants import Want


@dataclass(frozen=True, slots=True)
class Batch:
    """One capability's wants of one round, each with its arguments checked and named (``args``)."""

    cap: Capability
    book: Book
    wants: tuple[Want, ...]
    args: tuple[dict, ...]
    environ: Mapping[str, str] = field(default_factory=dict)

    def payload(self) -> dict:
        """The JSON object an exec program reads on stdin."""
        return {
            "capability": self.cap.name,
            "book_version": self.book.version,
            "wants": [{"key": w.wire_key, "args": a} for w, a in zip(self.wants, self.args)],
        }


@dataclass(frozen=True, slots=True)
class Reply:
    """Per want: its answer rows (the columns after the key), or the Why of its failure, or the Why
    it was held (never sent: a login nobody has made)."""

    answers: Mapping[Want, tuple[tuple, ...]]
    failed: Mapping[Want, str]
    held: Mapping[Want, str] = field(default_factory=dict)

    @staticmethod
    def failing(wants: tuple[Want, ...], why: str) -> Reply:
        return Reply({}, {w: why for w in wants})


@dataclass(frozen=True, slots=True)
class Shaped:
    """Answer rows ready to assert (event times normalised) and the instants that go beside them."""

    rows: tuple[tuple, ...]
    instants: tuple[Instant, ...]


def shape(cap: Capability, rows: tuple[tuple, ...]) -> Shaped | str:
    """Check rows against ``answers(Cap, Rel, Arity)`` and normalise the event-time column; a reason
    (a str) when a row does not fit."""
    width = (cap.answer_arity or 1) - 1
    out: list[tuple] = []
    instants: dict[Instant, None] = {}
    for row in rows:
        if len(row) != width:
            return f"an answer has {len(row) + 1} columns; {cap.answer_rel} has {width + 1}"
        if cap.event_col is not None:
            col = cap.event_col - 2
            value = row[col]
            instant = normalise(value) if type(value) is str else None
            if instant is None:
                return f"column {cap.event_col} of {cap.answer_rel} is its event time; {format_term(value)} is not an instant"
            instants[instant] = None
            row = (*row[:col], instant.text, *row[col + 1 :])
        out.append(row)
    return Shaped(tuple(out), tuple(instants))
