"""The scanned import graph read from a kernel: edges of ``dependency`` (or ``runtime_dependency``, both
defined in rules/code.rofl) and, for each edge, the import statements behind it (the edge's proof): the
imports that resolve to its target or, for a package-wide edge (``package_wide_dependency``), the imports
of the package that led to no file."""

from __future__ import annotations

from dataclasses import dataclass

from rofl.engine.kernel import Kernel
from rofl.engine.namespace import stored_name

from .answer import doc, to_json

DEPENDENCY = "dependency"
RUNTIME_DEPENDENCY = "runtime_dependency"
PACKAGE_WIDE = "package_wide_dependency"  # (importer, file standing for the package, package folder)
RUNTIME_PACKAGE_WIDE = "runtime_package_wide_dependency"


@dataclass(frozen=True, slots=True)
class ImportSite:
    """One import statement: in ``file``, ``source`` as written, resolved to the edge's target, or (with
    ``package``, the package's folder) an import of a workspace package that led to no file, the edge's
    target standing for the package (a package-wide dependency)."""

    file: str = doc("The importing file.")
    source: str = doc("The specifier as written.")
    line: int | None = doc("Its line, when known.")
    kinds: tuple[str, ...] = doc("Import kinds: static, dynamic, require, type, reexport, ...")
    package: str | None = doc(
        "The package's folder when the import leads to no file of it (a package-wide dependency).",
        json="package_wide",
        omit_none=True,
        default=None,
    )

    def text(self) -> str:
        at = f"{self.file}:{self.line}" if self.line is not None else self.file
        wide = f", package-wide: it leads to no file of {self.package}" if self.package is not None else ""
        return f"{at} imports {self.source!r} ({', '.join(self.kinds) or 'import'}{wide})"

    def as_dict(self) -> dict:
        out = to_json(self)
        assert isinstance(out, dict)
        return out


@dataclass(frozen=True, slots=True)
class ImportGraph:
    files: tuple[str, ...]  # every scanned file
    edges: tuple[tuple[str, str], ...]
    sites: dict  # (from, to) -> tuple[ImportSite, ...]
    partial: bool

    def why(self, a: str, b: str) -> tuple[ImportSite, ...]:
        return self.sites.get((a, b), ())

    @property
    def assets(self) -> tuple[str, ...]:
        """The import targets that are no scanned file: assets (css, svg, json, ...) the imports resolve to."""
        scanned = set(self.files)
        return tuple(sorted({f for e in self.edges for f in e if f not in scanned}))

    def size_text(self) -> str:
        """How many files the graph has, as the report says it: the scanned files (the number `rofl scan`
        says it saw) and, apart, the imported assets, so neither is read as the other."""
        assets = len(self.assets)
        return f"{len(self.files)} files" + (f" (and {assets} imported asset(s))" if assets else "")


# every relation ``import_graph`` reads: the edges it evaluates and the scanner rows it attaches to them
# (a question that builds the graph over a scan alone loads only these and what they depend on)
READS = frozenset(
    {
        DEPENDENCY,
        RUNTIME_DEPENDENCY,
        PACKAGE_WIDE,
        RUNTIME_PACKAGE_WIDE,
        "src_import_line",
        "src_import_kind",
        "src_resolves",
        "src_workspace_import",
        "src_file",
    }
)


def _atom(term: object) -> str:
    return term[0] if isinstance(term, tuple) and len(term) == 1 else str(term)


def import_graph(kernel: Kernel, runtime: bool = False) -> ImportGraph:
    """Evaluate the edge relation and attach each edge's import statements (for --runtime, only the
    statements that are not type-only)."""
    rel = RUNTIME_DEPENDENCY if runtime else DEPENDENCY
    wide_rel = RUNTIME_PACKAGE_WIDE if runtime else PACKAGE_WIDE
    result = kernel.evaluate(goals={stored_name(rel, "code"), stored_name(wide_rel, "code")})
    edges = tuple(
        sorted({(row[1], row[2]) for row in result.rows(rel, "code") if type(row[1]) is str and type(row[2]) is str})
    )
    wanted = set(edges)
    lines: dict[tuple[str, str], int] = {}
    for _, f, s, n in kernel.rows("src_import_line", "code"):
        if type(n) is int and ((f, s) not in lines or n < lines[(f, s)]):
            lines[(f, s)] = n
    kinds: dict[tuple[str, str], set[str]] = {}
    for _, f, s, k in kernel.rows("src_import_kind", "code"):
        kinds.setdefault((f, s), set()).add(_atom(k))
    sites: dict[tuple[str, str], list[ImportSite]] = {}
    for _, f, s, t in kernel.rows("src_resolves", "code"):
        if (f, t) not in wanted:
            continue
        ks = kinds.get((f, s), set())
        if runtime and ks and ks <= {"type"}:
            continue
        sites.setdefault((f, t), []).append(ImportSite(f, s, lines.get((f, s)), tuple(sorted(ks))))
    wide: dict[tuple[str, str], set[str]] = {}  # (importer, package folder) -> the files standing for it
    for row in result.rows(wide_rel, "code"):
        if len(row) == 4 and all(type(v) is str for v in row[1:]) and (row[1], row[2]) not in sites:
            wide.setdefault((row[1], row[3]), set()).add(row[2])
    for _, f, s, d in kernel.rows("src_workspace_import", "code") if wide else ():
        ks = kinds.get((f, s), set())
        if (f, d) not in wide or (runtime and ks and ks <= {"type"}):
            continue
        for t in wide[(f, d)]:
            sites.setdefault((f, t), []).append(ImportSite(f, s, lines.get((f, s)), tuple(sorted(ks)), d))
    files = tuple(sorted({row[1] for row in kernel.rows("src_file", "code") if type(row[1]) is str}))
    return ImportGraph(
        files,
        edges,
        {k: tuple(sorted(v, key=lambda i: (i.line or 0, i.source))) for k, v in sites.items()},
        result.partial,
    )
