"""The exceptions the kernel raises for problems a user can cause."""

from __future__ import annotations


class BudgetExhausted(Exception):
    """A budget ran out: derivation steps, or the size of an integer or a term an evaluation would build.
    The evaluation ends partial with a hole; never a user-facing error by itself."""


class RoflError(Exception):
    """Base class: a user-facing problem with a one-line message."""


class RoflSyntaxError(RoflError):
    """Source text that does not parse; carries file, line and column."""

    def __init__(self, source: str, line: int, col: int, message: str) -> None:
        super().__init__(f"{source}:{line}:{col}: {message}")
        self.source = source
        self.line = line
        self.col = col
        self.message = message


class LoadRejected(RoflError):
    """A load the kernel refused; the store was rolled back to what it was before."""

    def __init__(self, message: str, trace: str = "") -> None:
        super().__init__(message if not trace else f"{message}\n{trace}")
        self.message = message
        self.trace = trace


class StoreFormatError(RoflError):
    """A saved store that is corrupt or of a format this version does not read."""


class UnknownRelation(RoflError):
    """A question over a relation that nothing defines in the perspective (and arity) asked."""


class UnsafeQuery(RoflError):
    """A question with a variable that no positive literal binds (in a negation, a comparison or the answer)."""
