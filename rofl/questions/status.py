"""The exit status of every answer, in one enum (what a CI script or a shell can act on), and the partial-answer line."""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

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


def answered(found: bool, partial: bool) -> Exit:
    """The exit code of an answer that finds or not: partial when a budget ran out, else 0 found, 1 not."""
    return Exit.PARTIAL if partial else Exit.OK if found else Exit.NO_ANSWER


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
