"""What a question keeps of a world's adapter rounds: the finished run, its one-line summary, and why trees that stop at the boundary.

The rounds themselves are run by whoever made the question's ``Source`` (``rofl.rounds.rounds_of`` on the
command line and in the servers): a question never imports the adapters."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class AdapterRun:
    """The finished rounds of one command: the session (for why at the boundary) and its report."""

    session: object  # adapters.rounds.Session
    report: object  # adapters.rounds.Report

    @property
    def partial(self) -> bool:
        """The round budget ran out with wants still new (they were held, and a hole says so)."""
        return bool(self.report.partial)  # type: ignore[attr-defined]

    def as_json(self) -> dict:
        return self.report.as_json()  # type: ignore[attr-defined]


def run_note(run: AdapterRun | None) -> tuple[str, ...]:
    """The stderr line ``finished`` prints of a run (none without rounds)."""
    return () if run is None else (f"rofl: {run.report.summary()}",)  # type: ignore[attr-defined]


def at_boundary(node, run: AdapterRun | None):
    """A why tree whose answer leaves name the book (and the other world) their explanation stops at."""
    if run is None or node is None:
        return node
    session = run.session
    who = session.boundary(node.who) if node.kind == "base" else None  # type: ignore[attr-defined]
    children = tuple(at_boundary(c, run) for c in node.children)
    if who is None and all(a is b for a, b in zip(children, node.children)):
        return node
    return replace(node, who=who or node.who, children=children)
