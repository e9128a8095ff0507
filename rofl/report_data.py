"""What `rofl report` shows, gathered from a scan: the import graph, cycles with their cuts, findings
(violations, dead exports, orphans, unresolved imports) each with its proof, and a change's impact."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rofl.engine.errors import RoflError
from rofl.engine.kernel import Kernel

from .cycles_report import CycleComponent, components
from .imports_graph import ImportGraph, import_graph

MAX_PROOFS = 400  # findings of one kind shown with a derivation tree; more are listed with a one-line proof


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the report marks: what, the files it is about, an edge when it is about an import,
    and its proof (lines of text: import statements, cycles, or the rule derivation)."""

    kind: str  # cycle, violation, unused_export, orphan, unresolved
    title: str
    files: tuple[str, ...]
    proof: tuple[str, ...]
    edge: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class ImpactView:
    changed: tuple[str, ...]  # the changed paths as given (classified)
    details: tuple[str, ...]  # one line per change: how it was treated
    affected: dict  # file -> chain (the file, ..., a changed path)


@dataclass(frozen=True, slots=True)
class ReportModel:
    src: str
    graph: ImportGraph
    cycles: tuple[CycleComponent, ...]
    findings: tuple[Finding, ...]
    impact: ImpactView | None
    runtime: bool


def gather(kernel: Kernel, src: str, runtime: bool, impact: ImpactView | None) -> ReportModel:
    graph = import_graph(kernel, runtime=runtime)
    cycles = tuple(components(graph.edges))
    findings: list[Finding] = []
    for n, comp in enumerate(cycles, 1):
        proof = [f"cycle: {' -> '.join(c)}" for c in comp.cycles]
        for e in comp.cut:
            sites = "; ".join(i.text() for i in graph.why(e.source, e.target))
            proof.append(f"remove {e.source} -> {e.target} ({sites}): without it {' -> '.join(e.witness)} remains")
        how = "minimum" if comp.exact else f"greedy, each needed; at least {comp.lower_bound} must go"
        title = f"import cycle {n}: {len(comp.files)} files; {len(comp.cut)} import(s) to remove ({how})"
        findings.append(Finding("cycle", title, comp.files, tuple(proof)))
    result = kernel.evaluate(goals={"audit$violation", "unused_export", "orphan", "unresolved_import"})
    findings += _violations(kernel, result, graph)
    findings += _derived(
        kernel, result, "unused_export", "unused export", lambda r: (r[1],), lambda r: f"{r[1]}: {r[2]}"
    )
    findings += _derived(kernel, result, "orphan", "orphan", lambda r: (r[1],), lambda r: r[1])
    findings += _derived(
        kernel, result, "unresolved_import", "unresolved import", lambda r: (r[1],), lambda r: f"{r[1]}: {r[2]!r}"
    )
    return ReportModel(src, graph, cycles, tuple(findings), impact, runtime)


def _violations(kernel: Kernel, result, graph: ImportGraph) -> list[Finding]:
    from .findings import _plain, named_violation

    out = []
    for row in sorted(result.rows("violation", "audit"), key=repr)[: MAX_PROOFS * 4]:
        args = row[1:]
        named = named_violation(args)
        if named is not None:
            rule, a, b = named
        elif len(args) == 2:
            rule, a, b = "violation", _plain(args[0]), _plain(args[1])
        else:
            continue
        lines = [i.text() for i in graph.why(a, b)]
        lines += _why(kernel, "violation", "audit", args)
        out.append(Finding("violation", f"{rule}: {a} -> {b}", (a, b) if a != b else (a,), tuple(lines), (a, b)))
    return out


def _derived(kernel: Kernel, result, rel: str, what: str, files, text) -> list[Finding]:
    rows = sorted(result.rows(rel, "main"), key=repr)
    out = []
    for i, row in enumerate(rows):
        if not all(type(v) is str for v in row[1:]):
            continue
        proof = _why(kernel, rel, "main", row[1:]) if i < MAX_PROOFS else (f"{rel}{row[1:]!r} holds",)
        out.append(Finding(rel, f"{what}: {text(row)}", files(row), tuple(proof)))
    return out


def _why(kernel: Kernel, rel: str, persp: str, args: tuple) -> tuple[str, ...]:
    try:
        node = kernel.why(rel, persp, tuple(args))
    except RoflError:
        return ()
    return tuple(node.lines()) if node is not None else ()


def impact_view(
    kernel: Kernel, facts: str, changed: tuple[str, ...], git_base: str | None, runtime: bool
) -> ImpactView:
    """The impact of the changed paths (or of the work tree against ``git_base``), from the facts as
    they are, classified as `rofl impact` classifies them."""
    from .changes import OUTSIDE, CodeFacts, Context, classify
    from .gitrefs import Git
    from .impact import impact

    facts_dir = Path(facts)
    from rofl.scanner.manifest import read, src_of

    manifest = read(facts_dir)
    src = Path(src_of(manifest)).resolve()
    git = Git(src)
    paths = git.changed(git_base) if git_base else list(changed)
    code = {rel: kernel.base_rows(rel, "code") for rel in CodeFacts.RELATIONS}
    ctx = Context(src, facts_dir.resolve(), manifest, manifest, CodeFacts.from_store(code), git_base, git)
    changes, missing = classify(paths, ctx)
    if missing:
        raise RoflError(
            f"rofl report: {', '.join(map(repr, missing))}: exists nowhere under {src} and was never scanned; give paths relative to the scanned folder"
        )
    treated = [c for c in changes if c.kind != OUTSIDE]
    result = impact(kernel, treated, runtime=runtime)
    return ImpactView(
        tuple(c.path for c in changes),
        tuple(f"{c.path}: {c.detail}" for c in changes),
        {a.file: a.via for a in result.affected},
    )
