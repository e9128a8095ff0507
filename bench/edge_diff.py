"""Every edge on which rofl and dependency-cruiser disagree, sorted into a category with its evidence.

An edge is a (from, to) pair of repo-relative files.  For each edge only one side has, the
specifier(s) behind it are looked up on both sides (rofl's answers per (file, specifier), and
dependency-cruiser's dependency with the same ``module`` string), and the pair of answers names the
category.  The categories are worded as what happens, so a reader can tell a rofl mistake (to fix)
from a deliberate difference (the issue asks for both ``x.js`` and ``x.d.ts``, for assets, ...).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.depcruise_graph import CruiseGraph
from bench.rofl_facts import RoflFacts

SFC = (".vue", ".svelte", ".astro")
# Categories where rofl differs on purpose (the rules) or dependency-cruiser cannot see the
# import at all; every other category counts as a disagreement to fix or to argue about.
BY_DESIGN = (
    "declaration and runtime file: rofl has an edge to each",
    "x.js and x.ts both exist: rofl has an edge to each",
    "workspace package whose exports/main name build output",
    "type-only import in a",
    "script block of a",
)


# The by-design categories where dependency-cruiser has an edge from the same import to a sibling of
# rofl's extra target (``x.d.ts`` beside ``x.js``, ``x.ts`` beside ``x.js``): one module, two files.
SIBLINGS = BY_DESIGN[:2]


def by_design(category: str) -> bool:
    return category.startswith(BY_DESIGN)


def sibling(category: str) -> bool:
    """The extra edge goes to another file of a module dependency-cruiser also reaches from that import."""
    return category.startswith(SIBLINGS)


CODE = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


@dataclass(frozen=True, slots=True)
class Difference:
    """One edge only one tool has, and why."""

    side: str  # "rofl" or "depcruise": who has the edge
    category: str
    importer: str
    specifier: str
    target: str
    ours: str  # rofl's answer(s) for (importer, specifier), as text
    theirs: str  # dependency-cruiser's answer
    line: str = ""  # the importer's first source line naming the specifier (evidence)


def _text(answers: set[tuple[str, ...]] | tuple[str, ...] | None) -> str:
    if not answers:
        return "nothing (no import extracted)"
    if isinstance(answers, tuple):
        answers = {answers}
    return "; ".join(":".join(a) for a in sorted(answers))


def _is_declaration(path: str) -> bool:
    return path.endswith((".d.ts", ".d.mts", ".d.cts")) or ".d." in os.path.basename(path)


def _strip_ext(path: str) -> str:
    for ext in (".d.ts", ".d.mts", ".d.cts", *CODE):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _bare(spec: str) -> bool:
    return not spec.startswith((".", "/")) and not spec.startswith("#")


def package_name(spec: str) -> str:
    parts = spec.split("/")
    return "/".join(parts[:2]) if spec.startswith("@") else parts[0]


def _symlinked(root: Path, a: str, b: str) -> bool:
    """One of the two paths is a symlink (or lies under one) whose real path is the other."""
    real_a, real_b = os.path.realpath(root / a), os.path.realpath(root / b)
    return real_a == real_b or real_a == str(root / b) or real_b == str(root / a)


def _pair(ours: str, theirs: str, root: Path) -> str | None:
    """The category when both tools resolve the specifier, to different files (``ours`` vs ``theirs``)."""
    if _symlinked(root, ours, theirs):
        return "symlink: dependency-cruiser follows it to the real file, rofl keeps the link's path"
    if _strip_ext(ours) == _strip_ext(theirs):
        if _is_declaration(ours) and not _is_declaration(theirs):
            return ".d.ts sibling: rofl's declaration vs dependency-cruiser's runtime file"
        if ours.endswith((".ts", ".tsx", ".mts", ".cts")) and theirs.endswith((".js", ".jsx", ".mjs", ".cjs")):
            return "x.js and x.ts both exist: rofl takes TypeScript's x.ts, dependency-cruiser the runtime x.js"
        return "same module, another extension chosen"
    return None


class BuildMapping:
    """Whether rofl's edge needs the build-folder mapping (tsconfig ``outDir`` -> ``rootDir``): the same
    resolution, with that mapping switched off, must not reach the target.  An edge that resolves without
    it came through ``exports``/``main`` and is not set aside as by design."""

    def __init__(self, root: Path, files: set[str]) -> None:
        self.root = root
        self.files = frozenset(files)
        self._resolver: Any = None

    def needed(self, importer: str, spec: str, target: str) -> bool:
        if self._resolver is None:
            from rofl.scanner.configs import ConfigStore
            from rofl.scanner.files import PathFilter, list_files
            from rofl.scanner.resolve import Resolver
            from rofl.scanner.workspaces import workspace_packages

            src = str(self.root)
            listing = list_files(src, PathFilter())
            store = ConfigStore(src, listing.top)
            packages = workspace_packages(src, listing.packages, store)
            self._resolver = Resolver(src, self.files, packages, store, build_mapping=False)
        results, _deps = self._resolver.resolve_all(importer, [spec])
        return target not in results[0].targets


def _only_ours(
    importer: str,
    spec: str,
    target: str,
    facts: RoflFacts,
    graph: CruiseGraph,
    workspace: dict[str, str],
    root: Path,
    build: BuildMapping,
) -> str:
    theirs = graph.answers.get((importer, spec))
    kinds = facts.kinds.get((importer, spec), set())
    if theirs is None and importer.endswith((".vue", ".svelte")) and kinds == {"type"}:
        return (
            f"type-only import in a {os.path.splitext(importer)[1]} file: dependency-cruiser reads the "
            "compiler's output, where it is gone"
        )
    if theirs is None and importer.endswith(SFC):
        return f"script block of a {os.path.splitext(importer)[1]} file that dependency-cruiser does not read"
    if theirs is None:
        if "?" in spec:
            return "?query suffix (dependency-cruiser keeps it in the name and drops the import)"
        return f"import dependency-cruiser does not extract ({'/'.join(sorted(kinds)) or 'unknown kind'})"
    if theirs[0] == "file":
        if "#" in spec and spec.startswith("."):
            return "'#' inside a relative path: rofl strips it as a #hash suffix, require() and dependency-cruiser read it literally"
        if ("file", theirs[1]) in facts.answers.get((importer, spec), set()):
            if _is_declaration(target) or _is_declaration(theirs[1]):
                return "declaration and runtime file: rofl has an edge to each, dependency-cruiser to one"
            return "x.js and x.ts both exist: rofl has an edge to each, dependency-cruiser to the runtime x.js"
        return _pair(target, theirs[1], root) or "both resolve, to different files"
    if theirs[0] == "unresolved":
        if "?" in spec:
            return "?query suffix (stripped by rofl, not by dependency-cruiser)"
        if spec.startswith("#"):
            return "#imports (package.json imports) dependency-cruiser cannot resolve"
        if _bare(spec) and package_name(spec) in workspace:
            if not build.needed(importer, spec, target):
                return "workspace package: rofl resolves it through exports/main, dependency-cruiser cannot"
            return (
                "workspace package whose exports/main name build output that is not there: rofl maps it "
                "back to source (tsconfig outDir -> rootDir), dependency-cruiser cannot resolve it"
            )
        if target in facts.assets or not target.endswith(CODE):
            return "asset or non-code file dependency-cruiser cannot resolve"
        return "dependency-cruiser cannot resolve it"
    if theirs[0] == "node_modules":
        return "dependency-cruiser resolves into node_modules"
    if theirs[0] == "outside":
        return "dependency-cruiser resolves outside the repository"
    if theirs[0] == "core":
        return "dependency-cruiser takes it for a Node core module"
    return "other"


def _only_theirs(importer: str, spec: str, target: str, facts: RoflFacts, workspace: dict[str, str], root: Path) -> str:
    ours = facts.answers.get((importer, spec), set())
    if not ours:
        if importer not in facts.imports:
            return (
                "rofl extracts no import from the file (parse error?)"
                if importer in facts.errors
                else "rofl extracts no import from the file"
            )
        if importer in facts.errors:
            return "import not extracted by rofl (file has a parse error)"
        return "import not extracted by rofl"
    kinds = {a[0] for a in ours}
    if "file" in kinds:
        if "#" in spec and spec.startswith("."):
            return "'#' inside a relative path: rofl strips it as a #hash suffix, require() and dependency-cruiser read it literally"
        for other in sorted(a[1] for a in ours if a[0] == "file"):
            category = _pair(other, target, root)
            if category:
                return category
        return "both resolve, to different files"
    if "external" in kinds:
        if _bare(spec) and package_name(spec) in workspace:
            return "workspace package left external by rofl"
        return "rofl calls it an external package"
    if "workspace" in kinds:
        return "rofl: workspace import without a scanned file (src_workspace_import)"
    if "unresolved" in kinds:
        if spec.startswith("#"):
            return "#imports (package.json imports) rofl leaves unresolved"
        if "?" in spec:
            return "?query suffix rofl leaves unresolved"
        if not target.endswith(CODE) and not _is_declaration(target):
            return "rofl: unresolved asset (" + (os.path.splitext(target)[1] or "no extension") + ")"
        return "rofl: unresolved"
    return "other"


def _line(root: Path, importer: str, spec: str) -> str:
    try:
        with open(root / importer, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if spec and spec in text:
                    return f"{number}: {text.strip()[:140]}"
    except OSError:
        pass
    return ""


def _difference(
    side: str, category: str, importer: str, spec: str, target: str, facts: RoflFacts, graph: CruiseGraph, root: Path
) -> Difference:
    """One edge only ``side`` has, with what each side answers for its specifier and the line that imports it."""
    ours, theirs = facts.answers.get((importer, spec)), graph.answers.get((importer, spec))
    return Difference(side, category, importer, spec, target, _text(ours), _text(theirs), _line(root, importer, spec))


def differences(facts: RoflFacts, graph: CruiseGraph, workspace: dict[str, str], root: Path) -> list[Difference]:
    """Every edge of one side missing from the other, categorised (one row per edge)."""
    out: list[Difference] = []
    build = BuildMapping(root, facts.files)
    for importer, target in sorted(facts.edges - graph.edges):
        if importer not in graph.sources:
            out.append(Difference("rofl", "importer not analysed by dependency-cruiser", importer, "", target, "", ""))
            continue
        spec = sorted(facts.by_edge[(importer, target)])[0]
        category = _only_ours(importer, spec, target, facts, graph, workspace, root, build)
        out.append(_difference("rofl", category, importer, spec, target, facts, graph, root))
    theirs_by_edge: dict[tuple[str, str], list[str]] = {}
    for (importer, spec), answer in graph.answers.items():
        if answer[0] == "file":
            theirs_by_edge.setdefault((importer, answer[1]), []).append(spec)
    for importer, target in sorted(graph.edges - facts.edges):
        spec = sorted(theirs_by_edge.get((importer, target), [""]))[0]
        category = _only_theirs(importer, spec, target, facts, workspace, root)
        out.append(_difference("depcruise", category, importer, spec, target, facts, graph, root))
    return out


def by_category(diffs: list[Difference]) -> list[tuple[str, str, int, list[Difference]]]:
    """(side, category, count, examples) sorted by count, most first."""
    counts = Counter((d.side, d.category) for d in diffs)
    groups: dict[tuple[str, str], list[Difference]] = {}
    for d in diffs:
        groups.setdefault((d.side, d.category), []).append(d)
    return [(side, cat, n, groups[(side, cat)]) for (side, cat), n in counts.most_common()]
