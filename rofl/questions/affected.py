"""Impact of a change: the files that transitively depend on the changed paths, each with its chain.

The changed paths arrive classified (``rofl.questions.changes``); this module asserts ``changed(C)``,
``touches(F, C)`` and, for --runtime, ``impact_via(runtime)`` in [main], evaluates ``affected`` from
rules/code.rofl, and reads each file's chain from the witnesses of ``impact_reach``.  A hop of a chain
that is no import but a package-wide dependency (``package_wide_dependency[code]``: an import of a
workspace package that led to no file, taken as depending on its entry files) is labelled with the
package and why.  It also picks test files and workspace packages out of the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass

from rofl.engine.kernel import Kernel
from rofl.engine.namespace import stored_name

from ..loading.graph_rules import Graph
from .changes import Change

CHANGED = "changed"
TOUCHES = "touches"
VIA = "impact_via"
REACH = "impact_reach"
AFFECTED = "affected"
ALIAS = "unfollowed_alias"  # [code]: imports under a bundler alias rofl does not follow (rules/code.rofl)
VIRTUAL = (
    "virtual_module"  # [code]: imports of a virtual module (astro:content, virtual:x, ~icons/...) (rules/code.rofl)
)
PACKAGE_WIDE = "package_wide_dependency"  # [code]: (importer, file, package folder) (rules/code.rofl)
PACKAGE_WIDE_TARGET = "package_wide_target"  # [code]: (package folder, file, entry | source)
UNFOLLOWED_WORKSPACE = "unfollowed_workspace_import"  # [code]: a workspace import no scanned file stands for

# the usual test file conventions (jest, vitest and its type tests, mocha, node:test)
TEST_GLOBS = ("*.test.*", "*.spec.*", "*.test-d.*", "*.spec-d.*", "**/__tests__/**", "**/test/**", "**/tests/**")


@dataclass(frozen=True, slots=True)
class PackageHop:
    """A hop of a chain that is a package-wide dependency, not an import: ``source`` imports
    ``specifiers`` of the workspace package in ``folder``, which led to no file, and ``target`` stands
    for the package (``kind`` ``entry``: a file the package offers by name; ``source``: the package
    offers none, one of its source files)."""

    source: str
    target: str
    package: str  # the package's name, as the import spells it
    folder: str
    specifiers: tuple[str, ...]
    kind: str

    def why(self) -> str:
        what = (
            "a file the package offers by name (its package.json main, module, types or exports)"
            if self.kind == "entry"
            else "one of its source files (the package offers no file by name; tests, fixtures and configs left out)"
        )
        names = ", ".join(repr(s) for s in self.specifiers)
        return f"{self.source} imports {names}, which leads to no file of {self.package} ({self.folder}); {self.target} is {what}"


@dataclass(frozen=True, slots=True)
class Affected:
    file: str
    via: tuple[str, ...]  # the affected file, the files it imports along the chain, the changed path
    package_wide: tuple[PackageHop, ...] = ()  # the hops of via that are package-wide dependencies


@dataclass(frozen=True, slots=True)
class Impact:
    changes: tuple[Change, ...]
    affected: tuple[Affected, ...]
    partial: bool
    aliases: tuple[tuple[str, str, str], ...] = ()  # (file, specifier, name) of every unfollowed alias import
    virtual: tuple[tuple[str, str, str], ...] = ()  # (file, specifier, name) of every virtual module import
    unfollowed_workspace: tuple[tuple[str, str, str], ...] = ()  # (file, specifier, folder): no file stands for it

    @property
    def changed(self) -> tuple[str, ...]:
        return tuple(c.path for c in self.changes)


def impact(kernel: Kernel, changes: list[Change], runtime: bool = False) -> Impact:
    """Assert the changes, evaluate ``affected``, and return each affected file with its shortest chain."""
    for change in changes:
        for node in change.changed:
            kernel.assert_fact(CHANGED, "main", (node,), who="user")
        for f, node in change.touches:
            kernel.assert_fact(TOUCHES, "main", (f, node), who="user")
    if runtime:
        kernel.assert_fact(VIA, "main", (("runtime",),), who="user")
    goals = {
        AFFECTED,
        *(stored_name(r, "code") for r in (ALIAS, VIRTUAL, PACKAGE_WIDE, PACKAGE_WIDE_TARGET, UNFOLLOWED_WORKSPACE)),
    }
    result = kernel.evaluate(goals=goals)
    files = sorted(row[1] for row in result.rows(AFFECTED, "main") if type(row[1]) is str)
    tails: dict[tuple, tuple[str, ...]] = {}  # shared by the chains: most end in the same few links
    label = hop_labeller(kernel, result, runtime)
    chains = [(f, chain(result, f, tails)) for f in files]
    return Impact(
        tuple(changes),
        tuple(Affected(f, via, label(via)) for f, via in chains),
        result.partial,
        _unfollowed(result, ALIAS),
        _unfollowed(result, VIRTUAL),
        _unfollowed(result, UNFOLLOWED_WORKSPACE),
    )


def hop_labeller(kernel: Kernel, result, runtime: bool) -> Callable[[tuple[str, ...]], tuple[PackageHop, ...]]:
    """A function from a chain to its package-wide hops: each hop (A, B) that no import of A resolves to
    B (at runtime, no import that is not type-only, of a B that is no declaration file) but a
    package-wide dependency of A on B makes."""
    wide: dict[tuple[str, str], set[str]] = {}
    for row in result.rows(PACKAGE_WIDE, "code"):
        if len(row) == 4 and all(type(v) is str for v in row[1:]):
            wide.setdefault((row[1], row[2]), set()).add(row[3])
    if not wide:
        return lambda via: ()
    kinds: dict[tuple[str, str], set[object]] = {}
    for _, f, s, k in kernel.rows("src_import_kind", "code"):
        kinds.setdefault((f, s), set()).add(k[0] if type(k) is tuple and len(k) == 1 else k)
    declarations = {row[1] for row in kernel.rows("src_declaration", "code")}
    imports: set[tuple[str, str]] = set()
    for _, f, s, t in kernel.rows("src_resolves", "code"):
        if (f, t) in wide and (not runtime or (kinds.get((f, s), set()) - {"type"} and t not in declarations)):
            imports.add((f, t))
    specifiers: dict[tuple[str, str], list[str]] = {}
    for _, f, s, d in kernel.rows("src_workspace_import", "code"):
        if not runtime or kinds.get((f, s), set()) - {"type"}:
            specifiers.setdefault((f, d), []).append(s)
    why: dict[tuple[str, str], str] = {}
    for row in result.rows(PACKAGE_WIDE_TARGET, "code"):
        if len(row) == 4 and type(row[3]) is tuple and len(row[3]) == 1:
            kind = str(row[3][0])
            if why.get((row[1], row[2])) != "entry":
                why[(row[1], row[2])] = kind
    return labeller({k: tuple(v) for k, v in wide.items()}, imports, specifiers, why)


def labeller(
    wide: Mapping[tuple[str, str], Iterable[str]],
    imports: Container[tuple[str, str]],
    specifiers: Mapping[tuple[str, str], Iterable[str]],
    why: Mapping[tuple[str, str], str],
) -> Callable[[tuple[str, ...]], tuple[PackageHop, ...]]:
    """A chain's package-wide hops from their ingredients: the package folders of each package-wide
    pair, the pairs an import also resolves, each importer's specifiers of a package, and why each
    file stands for its package."""
    from rofl.scanner.resolve import package_name

    if not wide:
        return lambda via: ()
    known: dict[tuple[str, str], tuple[PackageHop, ...]] = {}

    def hops(a: str, b: str) -> tuple[PackageHop, ...]:
        key = (a, b)
        if key not in known:
            found = []
            for d in sorted(wide.get(key, ()) if key not in imports else ()):
                specs = tuple(sorted(specifiers.get((a, d), ())))
                if specs:
                    found.append(PackageHop(a, b, package_name(specs[0]), d, specs, why.get((d, b), "entry")))
            known[key] = tuple(found)
        return known[key]

    return lambda via: tuple(h for a, b in zip(via, via[1:]) for h in hops(a, b)[:1])


def _unfollowed(result, relation: str) -> tuple[tuple[str, str, str], ...]:
    """The (file, specifier, name) rows of a [code] relation of imports rofl does not follow, sorted."""
    rows = sorted(tuple(map(str, row[1:4])) for row in result.rows(relation, "code") if len(row) == 4)
    return tuple((a, b, c) for a, b, c in rows)


def chain(result, file: str, tails: dict[tuple, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """Follow the witnesses of impact_reach from ``file`` down to a changed path: each rule's first
    premise is ``changed(C)`` or ``impact_reach(G)``, and C or G is the next link.  ``tails`` keeps,
    for each row of a chain that reached a changed path, the links after it, so a chain that meets
    that row again stops there (the same witnesses give the same rest)."""
    out = [file]
    row = ("main", file)
    seen = {row}
    path = [row]
    complete = False
    while True:
        if tails is not None and row in tails:
            out.extend(tails[row])
            complete = True
            break
        record = result.provenance(REACH, row)
        if record is None:
            break
        rel, first = record.witness[0]
        out.append(first[1])
        if rel == CHANGED:
            complete = True
            break
        if first in seen:
            break
        seen.add(first)
        row = first
        path.append(row)
    if tails is not None and complete:  # the links after the i-th row of the path are out[i + 1:]
        for i, visited in enumerate(path):
            tails.setdefault(visited, tuple(out[i + 1 :]))
    return tuple(out)


def scanned_changed(result: Impact, scanned: set[str], exists) -> list[str]:
    """The changed nodes that are scanned files still on disk (a test runner should run those too)."""
    return sorted({n for c in result.changes for n in c.changed if n in scanned and exists(n)})


def test_filter(globs: tuple[str, ...] | None):
    """A predicate over paths: the given globs, or the usual test conventions."""
    from rofl.scanner.files import glob_to_regex

    patterns = [glob_to_regex(g) for g in (globs or TEST_GLOBS)]
    return lambda path: any(p.match(path) for p in patterns)


def package_of(path: str, packages: dict[str, str]) -> str | None:
    """The workspace package (by name) whose folder holds ``path``: the deepest one."""
    best: tuple[int, str] | None = None
    for name, folder in packages.items():
        if not isinstance(folder, str):
            continue
        prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
        if path.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), name)
    return best[1] if best else None


def packages_of(paths: list[str], packages: dict[str, str]) -> list[dict]:
    """Affected workspace packages: name, folder and how many of the paths lie in each."""
    counts: dict[str, int] = {}
    for p in paths:
        name = package_of(p, packages)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return [{"name": n, "folder": packages[n] or ".", "files": counts[n]} for n in sorted(counts)]


def escape(text: str) -> str:
    """Control characters, line separators and lone surrogates as \\u{hex}, so that one path is one line."""
    if all(
        32 <= ord(c) < 127 or (ord(c) >= 160 and not 0xD800 <= ord(c) <= 0xDFFF and c not in "\u2028\u2029")
        for c in text
    ):
        return text
    return "".join(
        f"\\u{{{ord(c):x}}}"
        if ord(c) < 32 or 127 <= ord(c) < 160 or 0xD800 <= ord(c) <= 0xDFFF or c in "\u2028\u2029"
        else c
        for c in text
    )


@dataclass(frozen=True, slots=True)
class _Witness:
    """The first premise of the rule that first derived an ``impact_reach`` row (what ``chain`` reads)."""

    witness: tuple[tuple[str, tuple[str, str]], ...]


class _Reach:
    """``impact_reach`` walked by demand over a derived graph, answering ``chain``'s provenance questions."""

    def __init__(self, first: dict[str, tuple[str, str]]) -> None:
        self.first = first  # file -> (CHANGED or REACH, the next link)

    def provenance(self, rel: str, row: tuple) -> _Witness | None:
        found = self.first.get(row[1]) if rel == REACH and len(row) == 2 else None
        return None if found is None else _Witness(((found[0], ("main", found[1])),))


def impact_by_demand(graph: Graph, changes: list[Change], runtime: bool = False) -> Impact:
    """``impact`` answered from a derived graph (``rofl.loading.graph_rules``) instead of the kernel: the reverse
    cone of the changed nodes only, each file's first witness met where the kernel's semi-naive
    evaluation meets it (changed nodes in canonical order, each node's importers in impact_edge's
    order, a touch after the imports), so the chains are the kernel's."""
    changed = sorted({n for c in changes for n in c.changed})
    touched: dict[str, list[str]] = {}
    for f, node in sorted({t for c in changes for t in c.touches}):
        touched.setdefault(node, []).append(f)
    base = graph.runtime_importers if runtime else graph.importers

    def importers(node: str) -> tuple[str, ...] | list[str]:
        own = base.get(node, ())
        extra = touched.get(node)
        if not extra:
            return own
        known = set(own)
        return [*own, *(f for f in extra if f not in known)]

    first: dict[str, tuple[str, str]] = {}
    frontier, how = changed, CHANGED  # the changed nodes' importers first (changed), then breadth first (reach)
    while frontier:
        nxt: list[str] = []
        for node in frontier:
            for f in importers(node):
                if f not in first:
                    first[f] = (how, node)
                    nxt.append(f)
        frontier, how = nxt, REACH
    gone = set(changed)
    files = sorted(f for f in first if f not in gone)
    reach = _Reach(first)
    tails: dict[tuple, tuple[str, ...]] = {}
    label = labeller(
        graph.wide,
        graph.runtime_imports if runtime else graph.imports,
        graph.runtime_specifiers if runtime else graph.specifiers,
        graph.why,
    )
    chains = [(f, chain(reach, f, tails)) for f in files]
    return Impact(
        tuple(changes),
        tuple(Affected(f, via, label(via)) for f, via in chains),
        False,
        graph.aliases,
        graph.virtual,
        graph.unfollowed_workspace,
    )
