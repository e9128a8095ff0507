"""Logging for the command line: `-v`/`--verbose` on every command, lines on stderr, quiet by default.

Modules log through ``logging.getLogger(__name__)``; this module alone decides where those lines go.
``rofl -v CMD`` or ``rofl CMD -v`` logs what rofl does (INFO), ``-vv`` more (DEBUG); without it nothing is
logged.  Standard output never changes with the verbosity: the log goes to stderr.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import click

# the packages whose loggers the command line configures (a module's logger is named after it)
PACKAGES = ("rofl",)
FORMAT = "rofl: %(relativeCreated)7.0f ms %(name)s: %(message)s"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a line is logged (a test runner may have replaced it)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(FORMAT))

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:  # logging sets it once in __init__; the property always answers stderr
        pass


def level_of(verbosity: int) -> int:
    """The logging level for ``-v`` given ``verbosity`` times: WARNING (nothing is logged), INFO, DEBUG."""
    return logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG


def setup(verbosity: int) -> None:
    """Point the loggers of rofl's packages at stderr for ``verbosity`` >= 1, or silence them (0).

    Idempotent: each call replaces what the last one set (the REPL and tests run many commands in one process).
    """
    level = level_of(verbosity)
    for name in PACKAGES:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, (_StderrHandler, logging.NullHandler)):
                logger.removeHandler(handler)
        logger.addHandler(_StderrHandler() if verbosity > 0 else logging.NullHandler())
        logger.setLevel(level)
        logger.propagate = False  # an application embedding rofl configures the root logger for itself


def verbosity_given(ctx: click.Context, _param: click.Parameter, value: int) -> None:
    """Click callback of ``-v``: the group's option always sets the level (0 silences what an earlier command in
    this process set); a command's raises it, and leaves it alone when not given (a server runs commands
    directly, under the log level it was started with)."""
    group = isinstance(ctx.command, click.Group)
    total = (0 if group else ctx.meta.get("rofl.verbosity", 0)) + value
    ctx.meta["rofl.verbosity"] = total  # shared by the group's context and its command's
    if group or value:
        setup(total)


def verbose_option() -> click.Option:
    """A fresh ``-v/--verbose`` option (counted) for a command or the group."""
    return click.Option(
        ["-v", "--verbose"],
        count=True,
        expose_value=False,
        is_eager=True,
        callback=verbosity_given,
        help="Log what rofl does to stderr (-vv: more detail). Standard output is unchanged.",
    )
