"""The export question: one binary relation of a scan (or of program files) as a graph document (GraphML,
GEXF, node-link JSON, DOT, Mermaid), with its node and edge counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rofl.engine.base.errors import RoflError
from rofl.loading.source import KernelInputs, Source

from .answer import Answer, doc, skip
from .params import picked
from .status import Exit


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """What `rofl export` is asked: the relation, where to load it from, the format and where to write it."""

    relation: str
    files: tuple[str, ...] = ()
    facts: str | None = None
    fmt: str = "json"
    output: str | None = None
    rules: tuple[str, ...] = ()
    budget: int | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ExportOptions:
        """The options from click's parameters; a RoflError when they cannot be answered."""
        from rofl.questions.graph_documents import FORMATS, parse_relation

        relation = str(params["relation"])
        parse_relation(relation)  # a bad name is refused first, whatever else is missing
        facts = params.get("facts")
        if facts is None and not params.get("files"):
            raise RoflError("rofl export: give --facts DIR (a scan) or program FILES to load")
        fmt = str(params.get("fmt") or "json")
        if fmt not in FORMATS:
            raise RoflError(f"rofl export: unknown format '{fmt}'; use one of {', '.join(FORMATS)}")
        return picked(cls, params)


@dataclass(frozen=True, slots=True)
class ExportAnswer(Answer):
    """A binary relation as a graph document, with its counts."""

    QUESTION = "export"
    relation: str = doc("The relation exported, as asked (NAME or NAME[PERSPECTIVE]).")
    format: str = doc("The document's format: graphml, gexf, json (node-link), dot or mermaid.")
    nodes: int = doc("Nodes of the graph (the terms the relation's rows name).")
    edges: int = doc("Edges of the graph (the relation's rows).")
    partial: bool = doc("Whether the budget ran out before the relation was complete (the document says so too).")
    document: str = doc("The graph document in the format, as `rofl export` writes it.")
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.PARTIAL if self.partial else Exit.OK


def export(options: ExportOptions, source: Source) -> ExportAnswer:
    """The relation of ``options`` as a graph document, loaded through ``source``."""
    from rofl.questions.graph_documents import build_graph, reads, write

    notes: list[str] = []
    if options.facts is not None:  # it answers from the facts as they are: say when the sources moved on
        from rofl.questions.staleness import stale_warning

        folder = Path(options.facts)
        stale = stale_warning(lambda: source.manifest(folder), folder, "export")
        if stale is not None:
            notes.append(stale)
    asked = reads(options.relation)  # a bad relation name is said before anything loads
    inputs = KernelInputs(options.files, budget=options.budget, facts=options.facts, rules=options.rules, reads=asked)
    kernel = source.kernel(inputs)
    graph = build_graph(kernel, options.relation)
    partial = bool(graph.graph.get("partial"))
    if graph.number_of_edges() == 0 and not partial:
        notes.append(f"warning: relation '{options.relation}' has no facts; the graph is empty")
    if partial:
        notes.append(
            f"rofl export: partial: the budget ran out before '{options.relation}' was complete; raise --budget"
        )
    return ExportAnswer(
        relation=options.relation,
        format=options.fmt,
        nodes=graph.number_of_nodes(),
        edges=graph.number_of_edges(),
        partial=partial,
        document=write(graph, options.fmt),
        notes=tuple(notes),
    )
