"""The ``--dask ADDRESS`` value (``local:N`` or a scheduler's ``tcp://host:port``), and whether Dask is installed,
both checked before a scan locks or writes anything, without importing Dask."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass

from rofl.scanner.errors import ScanError, shown

MAX_LOCAL_WORKERS = 1024


@dataclass(frozen=True, slots=True)
class DaskAddress:
    """Where ``--dask`` extracts: ``local:N`` workers started here, or a scheduler's address."""

    text: str
    local_workers: int | None = None  # N of local:N; None for a scheduler address

    @staticmethod
    def parse(text: str) -> DaskAddress:
        """The address in ``text``; ``ScanError`` naming the forms when it is neither."""
        local = re.fullmatch(r"local:(\d{1,6})", text)
        if local is not None and 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS:
            return DaskAddress(text, int(local.group(1)))
        if re.fullmatch(r"(?:tcp|tls)://[^\s/@]+:\d{1,5}", text):
            return DaskAddress(text)
        raise ScanError(
            f"--dask {shown(repr(text))} is not a cluster address",
            f"give local:N (N from 1 to {MAX_LOCAL_WORKERS} worker processes on this machine) "
            "or a Dask scheduler's tcp://HOST:PORT",
        )


def require_distributed() -> None:
    """``ScanError`` when ``distributed`` cannot be imported, found without importing it (that takes 0.6 s)."""
    try:
        found = importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):  # ValueError: a module blocked in sys.modules
        found = False
    if not found:
        raise ScanError(
            "--dask needs the Dask distributed package, which is not installed",
            "install it with pip install 'rofl[dask]', or scan without --dask (--jobs N uses this machine's cores)",
        )
