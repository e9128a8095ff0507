"""The summary question: counts over a scan's import graph (madge --summary and --leaves, dependency-cruiser's metrics).

The numbers come from rules/summary.rofl (aggregates over ``dependency[code]`` and ``src_package[code]``),
loaded into the kernel the question is given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel

from ..loading.source import KernelInputs
from .answer import Answer, doc, skip
from .params import picked
from .status import Exit

if TYPE_CHECKING:
    from ..loading.source import Source


@dataclass(frozen=True, slots=True)
class SummaryOptions:
    """`rofl summary`'s options (its click parameters' names)."""

    facts: str
    top: int = 10
    leaves: bool = False
    rules: tuple[str, ...] = ()
    budget: int | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> SummaryOptions:
        if params.get("facts") is None:
            raise RoflError("rofl summary: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
        return picked(cls, params)


@dataclass(frozen=True, slots=True)
class FileCount:
    """One file's imports (fan-out) and importers (fan-in)."""

    file: str = doc("The file.")
    imports: int = doc("Files it imports (fan-out).")
    importers: int = doc("Files that import it (fan-in).")


@dataclass(frozen=True, slots=True)
class PackageMetrics:
    """One package: its files, imports inside it, leaving it and entering it, and its couplings."""

    package: str
    files: int
    internal: int
    outgoing: int
    incoming: int
    efferent: int
    afferent: int

    @property
    def instability(self) -> float | None:
        """Ce / (Ca + Ce) (None when nothing couples the package to the rest)."""
        total = self.efferent + self.afferent
        return round(self.efferent / total, 3) if total else None


@dataclass(frozen=True, slots=True)
class Summary:
    """The summary of one scan."""

    files: tuple[FileCount, ...]
    packages: tuple[PackageMetrics, ...]
    leaves: tuple[str, ...]
    edges: int


def _value(v: object) -> object:
    return v[0] if type(v) is tuple and len(v) == 1 else v


# what the summary asks of rules/summary.rofl: one evaluation of these and what they depend on (not the audits)
ASKED = frozenset(
    {
        "summary_imports",
        "summary_importers",
        "summary_package_files",
        "summary_package_edges",
        "summary_coupling",
        "summary_leaf",
    }
)


def _rows(kernel: Kernel, query: str) -> list[tuple]:
    return [tuple(_value(x) for x in row) for row in kernel.query(query, goals=set(ASKED)).rows]


def summarize(kernel: Kernel) -> Summary:
    """Ask rules/summary.rofl (loaded into ``kernel``) for the summary."""
    imports = dict(_rows(kernel, "summary_imports(F, N)"))
    importers = dict(_rows(kernel, "summary_importers(F, N)"))
    files = tuple(FileCount(f, imports[f], importers.get(f, 0)) for f in sorted(imports))
    sizes = dict(_rows(kernel, "summary_package_files(P, N)"))
    edges = {p: (i, o, n) for p, i, o, n in _rows(kernel, "summary_package_edges(P, I, O, N)")}
    coupling = {p: (ce, ca) for p, ce, ca in _rows(kernel, "summary_coupling(P, Ce, Ca)")}
    packages = tuple(PackageMetrics(p, sizes[p], *edges[p], *coupling[p]) for p in sorted(sizes))
    leaves = tuple(sorted(f for (f,) in _rows(kernel, "summary_leaf(F)")))
    total = sum(imports.values())
    return Summary(files, packages, leaves, total)


@dataclass(frozen=True, slots=True)
class PackageRow:
    """One package as the answer lists it."""

    package: str = doc("The package's name (its package.json).")
    files: int = doc("Its scanned files.")
    internal_imports: int = doc("Imports between its own files.")
    outgoing_imports: int = doc("Imports of its files leaving it.")
    incoming_imports: int = doc("Imports of its files from outside it.")
    efferent: int = doc("Ce: files outside it that its files import.")
    afferent: int = doc("Ca: files outside it that import its files.")
    instability: float | None = doc("Ce / (Ca + Ce); null when nothing couples it to the rest.")

    @staticmethod
    def of(p: PackageMetrics) -> PackageRow:
        return PackageRow(p.package, p.files, p.internal, p.outgoing, p.incoming, p.efferent, p.afferent, p.instability)


@dataclass(frozen=True, slots=True)
class Totals:
    """The counts of the whole scan."""

    files: int = doc("Files in the import graph.")
    imports: int = doc("Imports between them.")
    leaves: int = doc("Files that import no file.")
    packages: int = doc("Workspace packages.")


@dataclass(frozen=True, slots=True)
class SummaryAnswer(Answer):
    """The top of each list: files by imports and importers, packages by files and instability; the leaves."""

    QUESTION = "summary"
    totals: Totals = doc("The counts of the whole scan.")
    most_imports: tuple[FileCount, ...] = doc("The files importing the most files, most first.")
    most_importers: tuple[FileCount, ...] = doc("The files imported by the most files, most first.")
    packages: tuple[PackageRow, ...] = doc("The packages with the most files, most first.")
    most_unstable: tuple[PackageRow, ...] = doc("The packages with the highest instability, highest first.")
    leaves: tuple[str, ...] | None = doc("With --leaves: the files that import no file.", omit_none=True, default=None)
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.OK


def _top(items: list, key: Callable, n: int) -> list:
    return sorted(items, key=key)[:n]


def summary(options: SummaryOptions, source: Source) -> SummaryAnswer:
    """The summary of the scan ``options`` names, loaded through ``source`` with rules/summary.rofl."""
    from rofl.rules import path as shipped

    from .staleness import stale_warning

    stale = stale_warning(lambda: source.manifest(Path(options.facts)), options.facts, "summary")
    rules = (str(shipped("summary.rofl")), *options.rules)
    kernel = source.kernel(KernelInputs(budget=options.budget, facts=options.facts, rules=rules, reads=ASKED))
    answer = summary_of(kernel, options.top, options.leaves)
    return replace(answer, notes=(stale,) if stale is not None else ())


def summary_of(kernel: Kernel, top: int, leaves: bool) -> SummaryAnswer:
    """The top ``top`` of each list (and with ``leaves`` every leaf) of the loaded scan's summary."""
    s = summarize(kernel)
    by_instability = [p for p in s.packages if p.instability is not None]
    return SummaryAnswer(
        totals=Totals(len(s.files), s.edges, len(s.leaves), len(s.packages)),
        most_imports=tuple(_top(list(s.files), lambda f: (-f.imports, f.file), top)),
        most_importers=tuple(_top(list(s.files), lambda f: (-f.importers, f.file), top)),
        packages=tuple(PackageRow.of(p) for p in _top(list(s.packages), lambda p: (-p.files, p.package), top)),
        most_unstable=tuple(
            PackageRow.of(p) for p in _top(by_instability, lambda p: (-(p.instability or 0.0), p.package), top)
        ),
        leaves=s.leaves if leaves else None,
    )
