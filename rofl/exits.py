"""The exit codes of every rofl command, in one enum, and the one way a user's error ends a command: what a CI script or a shell can act on."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from enum import IntEnum
from typing import TYPE_CHECKING, Any, NoReturn

import click

from rofl.engine.errors import RoflError
from rofl.scanner.errors import ExtractorFailure

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel


class Exit(IntEnum):
    """0 answers (or success), 1 no answer or findings, 2 a user error, 3 a partial answer (a budget ran
    out), 70 a bug in rofl, 130 interrupted (128 + SIGINT), 141 the reader went away (128 + SIGPIPE)."""

    OK = 0
    NO_ANSWER = 1  # also: findings (audit, cycles), the fact does not hold (why)
    USER_ERROR = 2
    PARTIAL = 3
    INTERNAL = 70  # sysexits EX_SOFTWARE
    INTERRUPTED = 130
    BROKEN_PIPE = 141


FINDINGS = Exit.NO_ANSWER

EXIT_CODES_HELP = "Exit codes: 0 answers, 1 no answer, 2 user error, 3 partial (the budget ran out)."


def warn_partial(kernel: Kernel, command: str) -> bool:
    """Say on stderr when the evaluation behind an answer ran out of budget; return whether it did."""
    line = partial_line(kernel, command)
    if line is not None:
        click.echo(line, err=True)
    return line is not None


def partial_line(kernel: Kernel, command: str) -> str | None:
    """The line ``warn_partial`` prints (None when the evaluation finished), for a question's notes."""
    current = kernel.current
    if current is None or not current.partial:
        return None
    if current.out_of_memory:
        from rofl.engine.costs import MEMORY_ENV, memory_limit

        limit = (memory_limit() or 0) // (1024 * 1024)
        reason = f"the evaluation grew past {limit} MiB; the answer is partial, raise {MEMORY_ENV} (MiB)"
    else:
        reason = "the budget ran out before the evaluation finished; the answer is partial, raise --budget"
    return f"rofl {command}: {reason}"


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
    """The command line's way to ask: ``question(options, Source())``, its load warnings and then its notes
    on stderr (the warnings even when it fails)."""
    from .loading.source import Source

    source = Source()
    try:
        answer = question(options, source)
    finally:
        tell(source.warnings)
    tell((), answer.notes)
    return answer
