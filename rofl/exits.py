"""The exit codes of every rofl command, in one enum: what a CI script or a shell can act on."""

from __future__ import annotations

from enum import IntEnum


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
