"""The command line's side of adapters (its --allow and --rounds in rofl.options): a world's adapter session, its rounds before a question answers, and what they drew.

A question never imports the adapters: it asks its ``Source`` for the rounds (``Source.adapter_rounds``), and
the command line and the servers give their sources ``rounds_of`` from here."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rofl.engine.base.errors import RoflError
from rofl.engine.base.safe_write import MAX_PROGRAM_BYTES, read_regular
from rofl.engine.kernel import Kernel

from .loading.kernel import BOOT
from .loading.locate import declared_at
from .questions.rounds import AdapterRun, run_note

if TYPE_CHECKING:
    from rofl.adapters.rounds import Session


def rounds_ran_out(run: AdapterRun | None) -> bool:
    """True (after one line on stderr) when ``run``'s round budget ran out: the answer is partial (exit 3)."""
    if run is None or not run.partial:
        return False
    click.echo("-- partial: the round budget ran out; raise --rounds for a complete answer", err=True)
    return True


_FENCE = re.compile(r"^```rofl[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def load_world(paths: Sequence[Path]) -> Kernel:
    """Another world for a rofl adapter (and for `rofl serve`): boot, then its files, evaluated once;
    a ``.rofl.md`` file contributes its ```rofl blocks."""
    kernel = Kernel(BOOT)
    sources: list[tuple] = []
    for path in paths:
        if str(path).endswith(".rofl.md"):
            try:
                text = read_regular(path, MAX_PROGRAM_BYTES).decode("utf-8")  # a FIFO or /dev/zero is refused
            except OSError as exc:
                raise RoflError(f"{path}: cannot read ({exc.strerror}); check the path") from None
            sources.append((path, None, "\n".join(m.group(1) for m in _FENCE.finditer(text))))
        else:
            sources.append((path, None))
    kernel.load_sources(sources)
    return kernel


def open_session(kernel: Kernel, allow: tuple = (), rounds: int | None = None, files: tuple = ()) -> Session | None:
    """The started adapter session of a world that has want rules (None when it has none).  A world
    whose required capabilities are not granted exits 2 naming them (and the FILES line that declares
    the first)."""
    from rofl.engine.reflect import has_wants

    if not has_wants(kernel):
        return None
    from rofl.adapters.policy import Policy
    from rofl.adapters.rounds import DEFAULT_ROUNDS, Refused, Session

    try:
        policy = Policy.command_line(allow)
    except ValueError as exc:
        raise RoflError(f"rofl: {exc}") from None
    session = Session(kernel, policy, max_rounds=rounds or DEFAULT_ROUNDS, world_factory=load_world)
    try:
        session.start()
    except Refused as exc:
        raise RoflError(f"{declared_at(files, exc.declarations) or 'rofl'}: {exc}") from None
    return session


def finished(session: Session) -> AdapterRun:
    """The run of a session whose rounds are over; its summary goes to stderr, and on a terminal the
    components its render adapter drew go to stdout first (``adapters.render_kind.as_text``)."""
    run = AdapterRun(session, session.report())
    draw(run)
    for line in run_note(run):
        click.echo(line, err=True)
    return run


def on_terminal() -> bool:
    """Whether stdout is a terminal (a person reads it), where the components a world shows are drawn."""
    return sys.stdout.isatty()


def rounds_of(kernel: Kernel, allow: tuple = (), rounds: int | None = None, files: tuple = ()) -> AdapterRun | None:
    """Run the world's adapter rounds at its current tick when it has want rules (None when it has none), for a
    question: nothing printed (its summary is ``run_note``, what it drew ``draw``); see ``open_session`` for a
    world that may not start."""
    session = open_session(kernel, allow, rounds, files)
    if session is None:
        return None
    session.run()
    return AdapterRun(session, session.report())


def draw(run: AdapterRun | None) -> None:
    """On a terminal, the components a run's render adapter drew, on stdout (as ``finished`` does)."""
    drawn = run.session.kinds.get("render") if run is not None else None  # type: ignore[attr-defined]
    if drawn is not None and on_terminal():
        from rofl.adapters.render_kind import as_text

        click.echo(as_text(drawn.components) + "\n")
