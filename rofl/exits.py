"""The exit codes of every rofl command, in one enum, and the one way a user's error ends a command: what a CI script or a shell can act on."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from enum import IntEnum
from typing import TYPE_CHECKING, NoReturn

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
    current = kernel.current
    if current is not None and current.partial:
        if current.out_of_memory:
            from rofl.engine.costs import MEMORY_ENV, memory_limit

            limit = (memory_limit() or 0) // (1024 * 1024)
            reason = f"the evaluation grew past {limit} MiB; the answer is partial, raise {MEMORY_ENV} (MiB)"
        else:
            reason = "the budget ran out before the evaluation finished; the answer is partial, raise --budget"
        click.echo(f"rofl {command}: {reason}", err=True)
        return True
    return False


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and exit ``code`` (a user error: 2)."""
    click.echo(message, err=True)
    sys.exit(code)


def user_errors(fn: Callable) -> Callable:
    """Turn a RoflError (bad syntax, missing file, refused load) into one line on stderr and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RoflError as exc:
            fail(str(exc), getattr(exc, "exit_code", Exit.USER_ERROR))
        except ExtractorFailure as exc:  # a rescan inside impact or audit --reextract met our own bug
            fail(f"rofl: {exc}", ExtractorFailure.EXIT_STATUS)
        except RecursionError:
            fail("rofl: the program nests too deeply to evaluate; reduce term or proof depth")
        except MemoryError:
            fail("rofl: out of memory; lower --budget or ask a narrower question")

    return wrapper
