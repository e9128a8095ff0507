"""The cycles question: every import cycle as paths, and the fewest imports to remove to break them, with proof."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel

from ..loading.source import KernelInputs
from .answer import Answer, doc, skip
from .cycles_report import components
from .imports_graph import ImportSite, import_graph
from .params import picked
from .status import FINDINGS, Exit

if TYPE_CHECKING:
    from ..loading.source import Source


@dataclass(frozen=True, slots=True)
class CyclesOptions:
    """`rofl cycles`' options (its click parameters' names)."""

    facts: str
    runtime: bool = False
    rules: tuple[str, ...] = ()
    budget: int | None = None
    as_json: bool = False
    output_format: str | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> CyclesOptions:
        if params.get("facts") is None:
            raise RoflError("rofl cycles: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
        fmt = params.get("output_format")
        if params.get("as_json") and fmt not in (None, "json"):
            raise RoflError(f"rofl cycles: --json and --format {fmt} disagree; give one of them")
        return picked(cls, params)


@dataclass(frozen=True, slots=True)
class CutProof:
    """Why one import of the cut is there: its import statements, the listed cycles it breaks, and a cycle
    that only it breaks."""

    cut: tuple[str, str] = doc("The import [importer, imported].")
    imports: tuple[ImportSite, ...] = doc("Its import statements in the importer, with lines.")
    breaks: tuple[tuple[str, ...], ...] = doc("The component's listed cycles through it.")
    witness: tuple[str, ...] = doc("A cycle through it and no other import of the cut (first file repeated last).")


@dataclass(frozen=True, slots=True)
class CycleGroup:
    """One strongly connected component of the import graph with a cycle."""

    files: tuple[str, ...] = doc("Its files.")
    cycles: tuple[tuple[str, ...], ...] = doc("A shortest cycle through each of its files (first file repeated last).")
    cut: tuple[tuple[str, str], ...] = doc(
        "A smallest set of imports [importer, imported] whose removal breaks every cycle."
    )
    exact: bool = doc("Whether the cut is proved smallest (else greedy, each import needed).")
    lower_bound: int = doc("No cut has fewer imports than this.")
    proofs: tuple[CutProof, ...] = doc(
        "For each import of the cut: its lines in the importer and the cycles it breaks."
    )


@dataclass(frozen=True, slots=True)
class CyclesAnswer(Answer):
    """The import cycles: each strongly connected component with its files, cycles and cut."""

    QUESTION = "cycles"
    runtime: bool = doc("Whether only runtime imports were followed (not `import type`, not .d.ts files).")
    partial: bool = doc("Whether the budget ran out before the evaluation finished (the answer may miss cycles).")
    scanned: int = doc("Files in the scan.")
    components: tuple[CycleGroup, ...] = doc(
        "Strongly connected components of the import graph (files on cycles), largest first."
    )

    notes: tuple[str, ...] = skip(())

    @property
    def files_on_cycles(self) -> int:
        return sum(len(c.files) for c in self.components)

    def status(self) -> int:
        if self.partial:
            return Exit.PARTIAL
        return FINDINGS if self.components else Exit.OK


def cycles(options: CyclesOptions, source: Source) -> CyclesAnswer:
    """The import cycles of the scan ``options`` names, loaded through ``source``."""
    from .staleness import stale_warning

    stale = stale_warning(lambda: source.manifest(Path(options.facts)), options.facts, "cycles")
    from .imports_graph import READS

    inputs = KernelInputs(budget=options.budget, facts=options.facts, rules=options.rules, reads=READS)
    answer = cycles_of(source.kernel(inputs), runtime=options.runtime)
    notes = [stale] if stale is not None else []
    if answer.partial:
        notes.append("rofl cycles: the budget ran out before the evaluation finished; raise --budget")
    return replace(answer, notes=tuple(notes))


def cycles_of(kernel: Kernel, runtime: bool = False) -> CyclesAnswer:
    """The import cycles of the loaded scan."""
    graph = import_graph(kernel, runtime=runtime)
    groups = tuple(
        CycleGroup(
            files=c.files,
            cycles=c.cycles,
            cut=tuple((e.source, e.target) for e in c.cut),
            exact=c.exact,
            lower_bound=c.lower_bound,
            proofs=tuple(
                CutProof((e.source, e.target), graph.why(e.source, e.target), e.breaks, e.witness) for e in c.cut
            ),
        )
        for c in components(graph.edges)
    )
    return CyclesAnswer(runtime=runtime, partial=graph.partial, scanned=len(graph.files), components=groups)
