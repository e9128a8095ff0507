"""The exceptions a scan raises: a user's mistake (``ScanError``) and the scanner's own bug (``ExtractorFailure``)."""

from __future__ import annotations

from rofl.engine.base.errors import RoflError


def shown(text: str) -> str:
    """``text`` for a one-line message: control characters and lone surrogates escaped."""
    return text if text.isprintable() else ascii(text)[1:-1]


class ScanError(RoflError):
    """A user error: what is wrong and how to fix it (printed as one line, exit status 2)."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"{what}, {fix}")
        self.what = what
        self.fix = fix


class ExtractorFailure(Exception):
    """An internal error: the extractor itself failed (a query that does not compile, an exception in
    our code), as opposed to a syntax error in the user's file, which is a ``src_parse_error`` fact.
    The scan stops before the manifest is replaced; the command prints one line and exits non-zero."""

    EXIT_STATUS = 70  # sysexits EX_SOFTWARE: a bug in rofl, never the user's input

    def __init__(self, path: str | None, cause: BaseException) -> None:
        where = f"extracting {path!r}" if path is not None else "preparing the parsers"
        super().__init__(
            f"internal error while {where}: {type(cause).__name__}: {_first_line(cause)}; this is a bug in "
            "rofl's extractor, not in the scanned file, please report it (the previous scan is intact)"
        )
        self.path = path
        self.cause = cause


def _first_line(cause: BaseException) -> str:
    text = str(cause).strip()
    return text.splitlines()[0] if text else "(no message)"
