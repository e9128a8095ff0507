"""`rofl summary`: counts over a scan's import graph (madge --summary and --leaves, dependency-cruiser's metrics).

The numbers come from rules/summary.rofl (aggregates over ``dependency[code]`` and
``src_package[code]``); this module asks them and prints the top of each list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from ..session import BUDGET, FACTS, RULES, build_kernel, emit_json, examples, fail, user_errors

if TYPE_CHECKING:  # pragma: no cover
    from rofl.engine.kernel import Kernel


@dataclass(frozen=True, slots=True)
class FileCount:
    """One file's imports (fan-out) and importers (fan-in)."""

    file: str
    imports: int
    importers: int


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


def _rows(kernel: Kernel, query: str) -> list[tuple]:
    return [tuple(_value(x) for x in row) for row in kernel.query(query).rows]


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


def _top(items: list, key: Callable, n: int) -> list:
    return sorted(items, key=key)[:n]


@click.command(
    "summary",
    epilog=examples(
        "rofl summary --facts facts/generated",
        "rofl summary --facts facts/generated --top 5 --leaves",
        "rofl summary --facts facts/generated --json",
    ),
)
@FACTS
@click.option(
    "--top", "top", type=click.IntRange(min=0), default=10, show_default=True, help="How many of each list to show."
)
@click.option("--leaves", is_flag=True, help="Also list the files that import no file (madge --leaves).")
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON: {totals, files: [...], packages: [...], leaves: [...]}."
)
@RULES
@BUDGET
@user_errors
def command(facts: str | None, top: int, leaves: bool, as_json: bool, rules: tuple, budget: int | None) -> None:
    """Per file, how many files it imports and how many import it; per package (a folder whose
    package.json has a name), its files, the imports inside it, leaving it and entering it, and its
    instability Ce / (Ca + Ce) (Ce: files outside it its files import; Ca: files outside it that
    import its files); the top of each list, and the leaves."""
    from rofl.rules import path as shipped

    if facts is None:
        fail("rofl summary: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
    from rofl.scanner.manifest import read

    from ..staleness import warn_if_stale

    warn_if_stale(read(facts), facts, "summary")
    kernel = build_kernel((), (), budget, facts=facts, rules=(str(shipped("summary.rofl")), *rules))
    s = summarize(kernel)
    by_imports = _top(list(s.files), lambda f: (-f.imports, f.file), top)
    by_importers = _top(list(s.files), lambda f: (-f.importers, f.file), top)
    by_files = _top(list(s.packages), lambda p: (-p.files, p.package), top)
    by_instability = _top(
        [p for p in s.packages if p.instability is not None], lambda p: (-(p.instability or 0.0), p.package), top
    )
    if as_json:
        emit_json(
            {
                "totals": {
                    "files": len(s.files),
                    "imports": s.edges,
                    "leaves": len(s.leaves),
                    "packages": len(s.packages),
                },
                "most_imports": [{"file": f.file, "imports": f.imports, "importers": f.importers} for f in by_imports],
                "most_importers": [
                    {"file": f.file, "imports": f.imports, "importers": f.importers} for f in by_importers
                ],
                "packages": [_package_json(p) for p in by_files],
                "most_unstable": [_package_json(p) for p in by_instability],
                **({"leaves": list(s.leaves)} if leaves else {}),
            }
        )
        return
    click.echo(f"{len(s.files)} files, {s.edges} imports, {len(s.leaves)} leaves, {len(s.packages)} packages")
    _section("files importing the most files", [(f.file, f.imports) for f in by_imports])
    _section("files imported by the most files", [(f.file, f.importers) for f in by_importers])
    if s.packages:
        click.echo("")
        click.echo("packages by files (files, imports inside / out / in, Ce, Ca, instability):")
        for p in by_files:
            click.echo(
                f"  {p.package}: {p.files} files, {p.internal} / {p.outgoing} / {p.incoming} imports, "
                f"Ce {p.efferent}, Ca {p.afferent}, instability {_fmt(p.instability)}"
            )
        _section("most unstable packages (Ce / (Ca + Ce))", [(p.package, _fmt(p.instability)) for p in by_instability])
    if leaves:
        click.echo("")
        click.echo(f"leaves (import no file): {len(s.leaves)}")
        for f in s.leaves:
            click.echo(f"  {f}")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _section(title: str, rows: list[tuple[str, object]]) -> None:
    if not rows:
        return
    click.echo("")
    click.echo(f"{title}:")
    width = max(len(str(n)) for _, n in rows)
    for name, n in rows:
        click.echo(f"  {str(n).rjust(width)}  {name}")


def _package_json(p: PackageMetrics) -> dict:
    return {
        "package": p.package,
        "files": p.files,
        "internal_imports": p.internal,
        "outgoing_imports": p.outgoing,
        "incoming_imports": p.incoming,
        "efferent": p.efferent,
        "afferent": p.afferent,
        "instability": p.instability,
    }
