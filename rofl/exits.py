"""How a command ends: a user's error as one line and exit 2, the exit codes (``Exit``, defined with the answers in rofl.questions.status)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn

import click

from rofl.engine.base.errors import RoflError
from rofl.scanner.errors import ExtractorFailure

from .questions.status import FINDINGS as FINDINGS  # the answers' statuses, re-exported for the commands
from .questions.status import Exit as Exit
from .questions.status import partial_line as partial_line

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel


EXIT_CODES_HELP = "Exit codes: 0 answers, 1 no answer, 2 user error, 3 partial (the budget ran out)."


def warn_partial(kernel: Kernel, command: str) -> bool:
    """Say on stderr when the evaluation behind an answer ran out of budget; return whether it did."""
    line = partial_line(kernel, command)
    if line is not None:
        click.echo(line, err=True)
    return line is not None


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and exit ``code`` (a user error: 2)."""
    click.echo(message, err=True)
    sys.exit(code)


def user_errors(fn: Callable) -> Callable:
    """Turn a RoflError (bad syntax, missing file, refused load) into one line on stderr and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except USER_ERRORS as exc:
            fail(*error_line(exc))

    return wrapper


# what ends a command as a user error (one line, no traceback): ``error_line`` says which line and code
USER_ERRORS = (RoflError, ExtractorFailure, RecursionError, MemoryError)


def error_line(exc: BaseException) -> tuple[str, int]:
    """The one line and the exit code a user error (one of ``USER_ERRORS``) ends a command with."""
    if isinstance(exc, RoflError):
        return str(exc), getattr(exc, "exit_code", Exit.USER_ERROR)
    if isinstance(exc, ExtractorFailure):  # a rescan inside impact or audit --reextract met our own bug
        return f"rofl: {exc}", ExtractorFailure.EXIT_STATUS
    if isinstance(exc, RecursionError):
        return "rofl: the program nests too deeply to evaluate; reduce term or proof depth", Exit.USER_ERROR
    return "rofl: out of memory; lower --budget or ask a narrower question", Exit.USER_ERROR


def tell(warnings: Iterable[str], notes: Iterable[str] = ()) -> None:
    """What a question's loading said (each line after ``warning: ``), then the question's own notes, on stderr."""
    for line in warnings:
        click.echo(f"warning: {line}", err=True)
    for line in notes:
        click.echo(line, err=True)


def asked(question: Callable[[Any, Any], Any], options: Any) -> Any:
    """The command line's way to ask: ``question(options, Source(rounds_of))`` (the adapter rounds a world
    with want rules asks for run here), its load warnings and then its notes on stderr (the warnings even
    when it fails)."""
    from .loading.source import Source
    from .rounds import rounds_of

    source = Source(rounds_of)
    try:
        answer = question(options, source)
    finally:
        tell(source.warnings)
    tell((), answer.notes)
    return answer
