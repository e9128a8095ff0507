"""The report question: everything `rofl report`'s page shows, gathered from a scan (the import graph, its
cycles, every finding with its proof, a change's impact); the HTML is a renderer over it (rofl.report_html)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rofl.engine.base.errors import RoflError
from rofl.loading.source import Source

from .answer import Answer, doc, skip
from .params import picked
from .report_data import ReportModel
from .status import Exit


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What `rofl report` is asked: the scan, the page to write, the change whose impact it marks."""

    facts: str
    out: str
    changed: tuple[str, ...] = ()
    git_base: str | None = None
    runtime: bool = False
    rules: tuple[str, ...] = ()
    budget: int | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ReportOptions:
        """The options from click's parameters; a RoflError for a bad combination."""
        facts = params.get("facts")
        git_base = params.get("git_base")
        if facts is None:
            raise RoflError("rofl report: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
        if params.get("changed") and git_base:
            raise RoflError("rofl report: give --changed PATH... or --git-base REF, not both")
        if git_base is not None and str(git_base).startswith("-"):
            raise RoflError(
                f"--git-base {git_base!r}: not a git revision; give a branch, tag or commit such as origin/main"
            )
        return picked(cls, params)


@dataclass(frozen=True, slots=True)
class ReportAnswer(Answer):
    """What the report holds, counted; the page itself is rendered from ``model`` (rofl.report_html)."""

    QUESTION = "report"
    src: str = doc("The scanned folder.")
    runtime: bool = doc("Whether only runtime imports were followed (not `import type`, not .d.ts files).")
    files: int = doc("Scanned files in the graph.")
    assets: int = doc("Import targets that are no scanned file (css, svg, json, ...).")
    imports: int = doc("Edges of the import graph (importer, imported).")
    cycles: int = doc("Strongly connected components of the import graph with a cycle.")
    findings: int = doc("Findings the page lists (cycles, violations, other audits, dead exports, orphans, ...).")
    kinds: Mapping[str, int] = doc("Findings listed, by kind (cycle, violation, audit, unused_export, orphan, ...).")
    held: Mapping[str, int] = doc("For a kind with more findings than the page lists: how many hold.")
    affected: int | None = doc("Files the change affects (absent without --changed or --git-base).", omit_none=True)
    partial: bool = doc("Whether the budget ran out before the evaluation finished (the page says so).")
    model: ReportModel | None = skip(None)  # what the page is rendered from
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.PARTIAL if self.partial else Exit.OK

    def written(self, out: str) -> str:
        """The line `rofl report` prints once the page is written to ``out``."""
        assert self.model is not None
        return (
            f"wrote {out}: {self.model.graph.size_text()}, {self.imports} imports, "
            f"{self.cycles} cycle component(s), {self.findings} finding(s)"
            + (f", {self.affected} affected" if self.affected is not None else "")
        )


def report(options: ReportOptions, source: Source) -> ReportAnswer:
    """Gather the report of the scan in ``options.facts`` through ``source``: one evaluation answers the
    graph, the audits (presets, ``forbidden``, a dependency-cruiser config at the source root, the --rules)
    and the rule-derived findings."""
    import gc

    from ..loading import depcruise_config
    from ..loading.depcruise import load_depcruise
    from ..loading.kernel import CODE_BUDGET
    from ..loading.presets import load_presets
    from ..loading.report_kernel import kept_relations
    from .report_data import gather, impact_view
    from .staleness import stale_warning

    facts = options.facts
    manifest = source.manifest(Path(facts))
    notes: list[str] = []
    stale = stale_warning(manifest, facts, "report")
    if stale is not None:
        notes.append(stale)
    asks_impact = bool(options.changed or options.git_base)
    # only what the report's rules read, unless an impact (which reads symbols) or a translated
    # dependency-cruiser config (rules written at run time) is asked for
    whole = asks_impact or depcruise_config.find_config(manifest.src) is not None
    keep = None if whole else kept_relations(options.rules)
    kernel = source.code_kernel(facts, options.rules, options.budget or CODE_BUDGET, keep=keep)
    for line in load_presets(kernel, facts, None, options.rules, manifest):  # use(...) and forbidden(...) turn them on
        notes.append(f"warning: {line}")
    # a config at the source root, as audit reads it
    renamed = load_depcruise(kernel, facts, None, None, False, lambda line: notes.append(f"warning: {line}"))
    impact = impact_view(kernel, facts, options.changed, options.git_base, options.runtime) if asks_impact else None
    model = gather(kernel, manifest.src, options.runtime, impact, dict(manifest.packages), renamed)
    del kernel  # the model holds what the page shows: the store and the evaluation go before the page is built
    gc.collect()
    kinds: dict[str, int] = {}
    for f in model.findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    if model.graph.partial:
        notes.append("rofl report: the budget ran out before the evaluation finished; raise --budget")
    return ReportAnswer(
        src=model.src,
        runtime=model.runtime,
        files=len(model.graph.files),
        assets=len(model.graph.assets),
        imports=len(model.graph.edges),
        cycles=len(model.cycles),
        findings=len(model.findings),
        kinds=dict(sorted(kinds.items())),
        held=dict(model.counts),
        affected=None if impact is None else len(impact.affected),
        partial=model.graph.partial,
        model=model,
        notes=tuple(notes),
    )
