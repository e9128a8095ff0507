"""The served questions: each command a server runs, by name, with its options type and its question function.

A server turns a JSON call into the command's click params (``rofl.servers.commands``), builds the options
with ``options.from_params(params)``, asks ``question(options, source)`` with its own source, and serialises
the answer (``answer_json``); the exit code is ``answer.status()``.  The command line asks the same
functions (``rofl/commands``), so a server answers exactly what `rofl <command> --json` prints.  Every served
command is listed here; none runs as its click command, so nothing a server answers is printed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..loading.source import Source
    from .answer import Answer


@dataclass(frozen=True, slots=True)
class Served:
    """One question: its options type (with ``from_params``) and the function that answers it."""

    options: Any
    question: Callable[[Any, Source], Answer]


def _questions() -> Mapping[str, Served]:
    from .ask import AskOptions, ask
    from .audit import AuditOptions, audit
    from .cycles import CyclesOptions, cycles
    from .explain import ExplainOptions, excise, why, whynot
    from .export import ExportOptions, export
    from .impact import ImpactOptions, impact
    from .relations import RelationsOptions, relations
    from .scan import ScanOptions, scan
    from .summary import SummaryOptions, summary

    return MappingProxyType(
        {
            "ask": Served(AskOptions, ask),
            "audit": Served(AuditOptions, audit),
            "cycles": Served(CyclesOptions, cycles),
            "excise": Served(ExplainOptions, excise),
            "export": Served(ExportOptions, export),
            "impact": Served(ImpactOptions, impact),
            "relations": Served(RelationsOptions, relations),
            "scan": Served(ScanOptions, scan),
            "summary": Served(SummaryOptions, summary),
            "why": Served(ExplainOptions, why),
            "whynot": Served(ExplainOptions, whynot),
        }
    )


QUESTIONS: Mapping[str, Served] = _questions()
