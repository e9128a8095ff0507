"""What `rofl report` shows, gathered from a scan: the import graph, its workspace packages, cycles with
their cuts, every audit finding (presets, ``forbidden`` rules, named and hand-written violation rules)
and the rule-derived findings (dead exports, orphans, unresolved imports), each with its proof, the
exported symbols (for the search box) and a change's impact.

One evaluation answers everything: the goals of the graph, the audits and the findings are asked
together, and each proof reuses that evaluation instead of evaluating every relation again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel
from rofl.engine.namespace import stored_name

from .cycles_report import CycleComponent, components
from .imports_graph import DEPENDENCY, PACKAGE_WIDE, RUNTIME_DEPENDENCY, RUNTIME_PACKAGE_WIDE, ImportGraph, import_graph

MAX_PROOFS = 50  # findings of one kind shown with a derivation tree; more get a one-line proof
MAX_DERIVED = 5000  # rule-derived findings of one kind listed (the count says how many hold)
DERIVED = ("unused_export", "orphan", "unresolved_import")
# boot's audits judge the trust of the fact folder (who asserted what; forged is most of an evaluation's
# time on a large scan), not the code, and read every relation: `rofl audit` runs them; the report says so
BOOT_AUDITS = ("breach", "claimed", "forged", "leak", "malformed", "rule_in_facts", "unmoded", "usurp")
NOT_ASKED = frozenset(stored_name(name, "audit") for name in BOOT_AUDITS)
NOT_ASKED_TEXT = (
    "The fact folder's trust audits (boot's forged, usurp, claimed, malformed, ...) are not run here: "
    "run `rofl audit --facts DIR` for them."
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the report marks: what, the files it is about, an edge when it is about an import,
    and its proof (lines of text: import statements, cycles, or the rule derivation).  An audit
    finding also has its rule, severity, message and the import's line."""

    kind: str  # cycle, violation, audit (any other [audit] row), unused_export, orphan, unresolved_import
    title: str
    files: tuple[str, ...]
    proof: tuple[str, ...]
    edge: tuple[str, str] | None = None
    rule: str | None = None
    severity: str | None = None
    message: str | None = None
    line: int | None = None


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
    packages: tuple[tuple[str, str], ...] = ()  # (name, folder) of each workspace package
    symbols: tuple[tuple[str, str], ...] = ()  # (exported name, file)
    counts: tuple[tuple[str, int], ...] = ()  # (kind, how many hold) where more hold than are listed


def cycle_title(n: int, comp: CycleComponent) -> str:
    """``import cycle 3: a.ts -> b.ts -> a.ts; 1 import(s) to remove (minimum)``: the title names the
    files (a short cycle as its path, a large component by its first files and how many more)."""
    files = comp.files
    shortest = min(comp.cycles, key=len) if comp.cycles else files
    if len(files) <= 4 and len(shortest) == len(files) + 1:
        what = " -> ".join(shortest)
    elif len(files) <= 3:
        what = ", ".join(files)
    else:
        what = f"{', '.join(files[:3])} and {len(files) - 3} more ({len(files)} files)"
    how = "minimum" if comp.exact else f"greedy, each needed; at least {comp.lower_bound} must go"
    return f"import cycle {n}: {what}; {len(comp.cut)} import(s) to remove ({how})"


def goals_of(kernel: Kernel, runtime: bool) -> set[str]:
    """Every relation the report asks: the graph's edges, the audits and the derived findings."""
    graph = {
        stored_name(RUNTIME_DEPENDENCY if runtime else DEPENDENCY, "code"),
        stored_name(RUNTIME_PACKAGE_WIDE if runtime else PACKAGE_WIDE, "code"),
    }
    return graph | (kernel.names_in("audit") - NOT_ASKED) | set(DERIVED)


def gather(
    kernel: Kernel,
    src: str,
    runtime: bool,
    impact: ImpactView | None,
    packages: Mapping[str, str] | None = None,
    rule_names: dict | None = None,
) -> ReportModel:
    """The report's model.  ``packages`` maps workspace package names to folders (the manifest's);
    ``rule_names`` renames translated rules (dependency-cruiser's names, as `rofl audit` shows them)."""
    goals = goals_of(kernel, runtime)
    result = kernel.evaluate(goals=goals)  # one evaluation; every later question reuses it
    graph = import_graph(kernel, runtime=runtime)
    cycles = tuple(components(graph.edges))
    findings: list[Finding] = []
    for n, comp in enumerate(cycles, 1):
        proof = [f"cycle: {' -> '.join(c)}" for c in comp.cycles]
        for e in comp.cut:
            sites = "; ".join(i.text() for i in graph.why(e.source, e.target))
            proof.append(f"remove {e.source} -> {e.target} ({sites}): without it {' -> '.join(e.witness)} remains")
        findings.append(Finding("cycle", cycle_title(n, comp), comp.files, tuple(proof)))
    findings += _violations(kernel, result, graph, goals, rule_names or {})
    findings += _other_audits(kernel, set(graph.files))
    counts: list[tuple[str, int]] = []
    for rel, what, text in (
        ("unused_export", "unused export", lambda r: f"{r[1]}: {r[2]}"),
        ("orphan", "orphan", lambda r: r[1]),
        ("unresolved_import", "unresolved import", lambda r: f"{r[1]}: {r[2]!r}"),
    ):
        listed, held = _derived(kernel, result, rel, what, text, goals)
        findings += listed
        if held > len(listed):
            counts.append((rel, held))
    from rofl.loading.kernel import code_rows

    files = set(graph.files)
    symbols = tuple(
        sorted({(str(n), f) for f, n in code_rows(kernel, "src_export", 2) if f in files and n not in ("*", "")})
    )
    listed_packages = tuple(sorted((packages or {}).items()))  # the manifest's, typed when it was read
    return ReportModel(src, graph, cycles, tuple(findings), impact, runtime, listed_packages, symbols, tuple(counts))


def _violations(kernel: Kernel, result, graph: ImportGraph, goals: set[str], names: dict) -> list[Finding]:
    """Each ``violation[audit]`` row: a named rule's (presets, ``forbidden``, translated and written
    rules) with its severity, message and import line, and a two-place hand-written one."""
    from .findings import _plain, declared_rules, import_lines, named_violation

    rules = declared_rules(kernel)
    rows = sorted(result.rows("violation", "audit"), key=repr)
    ends: list[tuple[str, str, str, tuple]] = []
    for row in rows:
        args = row[1:]
        named = named_violation(args)
        if named is not None:
            ends.append((*named, args))
        elif len(args) == 2:
            ends.append(("violation", _plain(args[0]), _plain(args[1]), args))
    lines = import_lines(kernel, {(a, b) for _, a, b, _ in ends if a != b})
    out = []
    for i, (rule, a, b, args) in enumerate(ends):
        info = rules.get(rule)
        shown = names.get(rule, (rule,))[0] if rule in names else rule
        proof = [s.text() for s in graph.why(a, b)]
        if i < MAX_PROOFS:
            proof += _why(kernel, "violation", "audit", args, goals)
        else:
            proof.append(f"violation[audit]{args!r} holds")
        what = a if a == b else f"{a} -> {b}"
        out.append(
            Finding(
                "violation",
                f"{shown}: {what}",
                (a, b) if a != b else (a,),
                tuple(proof),
                (a, b),
                shown,
                info.severity if info else "error",
                info.message if info else None,
                lines.get((a, b)),
            )
        )
    severity = {"error": 0, "warn": 1, "info": 2}
    return sorted(out, key=lambda f: (severity.get(f.severity or "error", 0), f.rule or "", f.title))


def _other_audits(kernel: Kernel, files: set[str]) -> list[Finding]:
    """Every other [audit] row (forged or stale facts, boot's audits), one finding each, linked to the
    scanned files its fact names."""
    from rofl.engine.namespace import display_name
    from rofl.engine.terms import canonical_rows, format_fact

    result = kernel.evaluate(goals=kernel.names_in("audit") - NOT_ASKED)  # the report's evaluation, reused
    out = []
    for rel in sorted(result.relations()):
        name = display_name(rel)
        if name == "violation":
            continue
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == "audit"):
            text = format_fact(rel, row[0], row[1:])
            named = tuple(sorted(f for f in files if f'"{f}"' in text))[:12] if len(text) < 2000 else ()
            out.append(Finding("audit", f"{name}: {text}", named, (text,), rule=name, severity="error"))
    return out


def _derived(kernel: Kernel, result, rel: str, what: str, text, goals: set[str]) -> tuple[list[Finding], int]:
    """The rows of a rule-derived finding (at most MAX_DERIVED), the first MAX_PROOFS with their
    derivation; and how many hold."""
    rows = sorted((r for r in result.rows(rel, "main") if all(type(v) is str for v in r[1:])), key=repr)
    out = []
    for i, row in enumerate(rows[:MAX_DERIVED]):
        proof = _why(kernel, rel, "main", row[1:], goals) if i < MAX_PROOFS else ()
        out.append(Finding(rel, f"{what}: {text(row)}", (row[1],), proof or (f"{rel}{row[1:]!r} holds",)))
    return out, len(rows)


def _why(kernel: Kernel, rel: str, persp: str, args: tuple, goals: set[str]) -> tuple[str, ...]:
    try:
        node = kernel.why(rel, persp, tuple(args), goals=goals)
    except RoflError:
        return ()
    return tuple(node.lines()) if node is not None else ()


def impact_view(
    kernel: Kernel, facts: str, changed: tuple[str, ...], git_base: str | None, runtime: bool
) -> ImpactView:
    """The impact of the changed paths (or of the work tree against ``git_base``), from the facts as
    they are: `rofl impact`'s question (``rofl.questions.impact``) answered by this kernel."""
    from .impact import ImpactOptions, impact_over

    options = ImpactOptions(facts, tuple(changed), git_base, runtime)
    try:
        answer = impact_over(kernel, options)
    except RoflError as err:  # the report was asked: its name on the error
        text = str(err)
        if not text.startswith("rofl impact: "):
            raise
        raise RoflError("rofl report: " + text.removeprefix("rofl impact: ")) from None
    return ImpactView(
        answer.changed,
        tuple(f"{c.path}: {c.detail}" for c in answer.classified),
        {a.file: a.via for a in answer.affected},
    )
