"""The impact question: which files a change affects, each with the chain of imports to a changed path.

One pipeline for `rofl impact`, the report's impact and the servers: the changed paths (given, or the work
tree against a git ref) are classified (``rofl.questions.changes``), the facts brought up to date by an incremental
rescan (or checked for staleness with ``no_rescan``), and the affected files answered by demand from the
graph index (``rofl.questions.impact_index``) when it covers the question, else by the kernel (``rofl.questions.affected``,
``rofl.questions.symbol_impact`` for ``symbols``).  Everything is loaded through the ``Source`` it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.scanner.manifest import Manifest, ScanOptions, ScanOrigin

from ..loading.source import KernelInputs, Source
from .answer import Answer, doc, skip
from .impact_index import Demand
from .params import picked
from .status import Exit

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel
    from rofl.scanner.api import ScanSummary

    from .affected import Affected, PackageHop
    from .changes import Change
    from .gitrefs import Git

FORMATS = ("text", "json", "names")
PARTIAL_NOTE = "rofl impact: partial: the budget ran out before every affected file was found; raise --budget"


@dataclass(frozen=True, slots=True)
class ImpactOptions:
    """`rofl impact`'s options (its click parameters' names); ``fmt`` is text, json or names."""

    facts: str
    changed: tuple[str, ...] = ()
    git_base: str | None = None
    runtime: bool = False
    fmt: str = "text"
    as_json: bool = False
    tests_only: bool = False
    test_globs: tuple[str, ...] = ()
    by_package: bool = False
    no_rescan: bool = False
    symbols: bool = False
    rules: tuple[str, ...] = ()
    budget: int | None = None
    public_key: str | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ImpactOptions:
        """The options of click's ``params``, refusing the combinations `rofl impact` refuses."""
        changed, git_base = params.get("changed") or (), params.get("git_base")
        fmt, as_json = params.get("fmt"), bool(params.get("as_json"))
        if params.get("facts") is None:
            raise RoflError("rofl impact: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
        if bool(changed) == bool(git_base):
            raise RoflError("rofl impact: give either --changed PATH... or --git-base REF")
        if git_base is not None and str(git_base).startswith("-"):
            raise RoflError(
                f"--git-base {git_base!r}: not a git revision; give a branch, tag or commit such as origin/main"
            )
        if as_json and fmt not in (None, "json"):
            raise RoflError(f"rofl impact: --json and --format {fmt} disagree; give one of them")
        if params.get("test_globs") and not params.get("tests_only"):
            raise RoflError("rofl impact: --test-glob needs --tests; add --tests to list only the affected test files")
        return picked(cls, params, fmt="json" if as_json else (fmt or "text"))

    @property
    def by_demand(self) -> bool:
        """Whether the graph index may answer (the kernel answers symbols, rules, a budget, a signature)."""
        return not (self.symbols or self.rules or self.budget is not None or self.public_key)


@dataclass(frozen=True, slots=True)
class Classified:
    """One changed path and how impact treated it."""

    path: str = doc("The changed path.")
    kind: str = doc("source, deleted, asset, config, lock, folder or outside.", json="as")
    detail: str = doc("What that means for this path.")


@dataclass(frozen=True, slots=True)
class WideHop:
    """A hop of a chain that is a package-wide dependency, not an import."""

    source: str = doc("The importing file.", json="from")
    target: str = doc("The file standing for the package.", json="to")
    package: str = doc("The package's name, as the import spells it.")
    folder: str = doc("The package's folder.")
    specifiers: tuple[str, ...] = doc("The import specifiers of the package that led to no file.")
    kind: str = doc("entry: a file the package offers by name; source: one of its source files.")
    why: str = doc("Why the hop is there, in one sentence.")

    @staticmethod
    def of(hop: PackageHop) -> WideHop:
        return WideHop(hop.source, hop.target, hop.package, hop.folder, hop.specifiers, hop.kind, hop.why())


@dataclass(frozen=True, slots=True)
class AffectedFile:
    """One affected file and its chain to a changed path."""

    file: str = doc("The affected file.")
    via: tuple[str, ...] = doc("The chain of imports from it to a changed path: file, what it imports, ..., changed.")
    package_wide: tuple[WideHop, ...] | None = doc(
        "The hops of the chain that are package-wide dependencies (absent when none is).", omit_none=True
    )
    symbols: tuple[str, ...] | None = doc(
        "With symbols: per hop, the export of the next file used (* the whole module).", omit_none=True
    )
    touched: tuple[str, ...] | None = doc(
        "With symbols: the affected file's exports the change touches.", omit_none=True
    )


@dataclass(frozen=True, slots=True)
class UnfollowedAlias:
    """An import under a bundler alias rofl does not follow."""

    file: str = doc("The importing file.")
    source: str = doc("The import specifier.")
    name: str = doc("The alias.")


@dataclass(frozen=True, slots=True)
class VirtualModule:
    """A virtual module (a bundler id with no file) and how often it is imported."""

    name: str = doc("The virtual module.")
    imports: int = doc("Imports naming it.")
    files: int = doc("Files importing it.")


@dataclass(frozen=True, slots=True)
class UnfollowedWorkspace:
    """A workspace import no scanned file stands for."""

    file: str = doc("The importing file.")
    source: str = doc("The import specifier.")
    folder: str = doc("The workspace package's folder.")


@dataclass(frozen=True, slots=True)
class SeedExports:
    """A changed file and the exports the change touches."""

    file: str = doc("The changed file.")
    exports: tuple[str, ...] = doc("Its exports the change touches.")


@dataclass(frozen=True, slots=True)
class AffectedPackage:
    """A workspace package holding affected or changed files."""

    name: str = doc("The package's name.")
    folder: str = doc("Its folder (. for the root).")
    files: int = doc("Affected or changed files in it.")


@dataclass(frozen=True, slots=True)
class ImpactAnswer(Answer):
    """The files a change affects, each with its chain to a changed path, and how each changed path was treated."""

    QUESTION = "impact"
    changed: tuple[str, ...] = doc("The changed paths, as given or as git listed them (classified).")
    classified: tuple[Classified, ...] = doc("How each changed path was treated.")
    affected: tuple[AffectedFile, ...] = doc(
        "The files the change affects (changed files themselves not included), sorted by path."
    )
    files: tuple[str, ...] = doc("Changed and affected files (with tests: the affected test files), sorted.")
    runtime: bool = doc("Whether only runtime imports were followed.")
    rescanned: bool = doc("Whether the sources were rescanned first.")
    stale: tuple[str, ...] | None = doc(
        'With no_rescan: the stale paths ("path: why"; ["unknown"] when it cannot be told), else null.'
    )
    incomplete: tuple[str, ...] = doc("Listed fact files that are missing: the answer may miss files.")
    unfollowed_aliases: tuple[UnfollowedAlias, ...] = doc("Imports under bundler aliases rofl does not follow.")
    virtual_modules: tuple[VirtualModule, ...] = doc("Virtual modules (bundler ids with no file) imported.")
    unfollowed_workspace_imports: tuple[UnfollowedWorkspace, ...] = doc(
        "Workspace imports with no scanned file to follow."
    )
    partial: bool = doc("Whether the budget ran out before every affected file was found.")
    symbols: tuple[SeedExports, ...] | None = doc(
        "With symbols: each changed file and the exports the change touches.", default=None, omit_none=True
    )
    packages: tuple[AffectedPackage, ...] | None = doc(
        "With packages: the affected workspace packages.", default=None, omit_none=True
    )
    unpackaged: tuple[str, ...] | None = doc(
        "With packages: affected or changed files in no package.", default=None, omit_none=True
    )
    tests_only: bool = skip(False)
    virtual_imports: tuple[tuple[str, str, str], ...] = skip(())  # (file, specifier, name): the text note's counts
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.PARTIAL if self.partial else Exit.OK


def impact(options: ImpactOptions, source: Source) -> ImpactAnswer:
    """The impact of the changed paths of ``options`` over the scan in ``options.facts``, through ``source``."""
    from .gitrefs import Git

    notes: list[str] = []
    facts_dir = Path(options.facts)
    demand = Demand.open(facts_dir, source) if options.by_demand else None
    before = demand.before() if demand is not None else source.manifest(facts_dir)  # a server's copy, else disk
    src = Path(before.src).resolve()
    if not src.is_dir():
        raise RoflError(
            f"rofl impact: the scanned folder {src} is gone; scan the tree where it is now with `rofl scan SRC --out {options.facts}`"
        )
    git = Git(src)
    paths = git.changed(options.git_base) if options.git_base else list(options.changed)
    named: dict[str, set[str]] = {}
    if options.symbols and not options.git_base:  # FILE:NAME
        from .symbol_impact import split_changed

        paths, named = split_changed(paths, src)
    facts = _load(options, source, demand, before, src, notes)
    if options.git_base:
        from .changes import folders_only, in_facts_dir

        paths = [p for p in paths if not in_facts_dir(p, folders_only(src, facts.root))]
        if not paths:
            notes.append(f"rofl impact: git lists no changed path under {src} against {options.git_base}")
    changes = _classify(paths, facts, git, options.git_base)
    return _answer(options, facts, changes, named, notes, git)


@dataclass(slots=True)
class _Facts:
    """The facts a question answers over once loaded: by the index (``demand``) or the kernel, the manifest
    before the rescan and now, and what loading found (rescanned, stale, incomplete)."""

    src: Path
    root: Path  # the fact folder, resolved
    demand: Demand | None
    kernel: Kernel | None
    before: Manifest | ScanOrigin  # a scan origin only while the index answers
    manifest: Manifest | ScanOrigin
    rescanned: bool
    stale: tuple[str, ...] | None
    incomplete: list[str]


def _load(
    options: ImpactOptions,
    source: Source,
    demand: Demand | None,
    before: Manifest | ScanOrigin,
    src: Path,
    notes: list[str],
) -> _Facts:
    """The facts brought up to date by a rescan (or, as they are, checked for staleness), and the kernel
    that answers when the index does not."""
    from ..loading.kernel import incomplete_fact_files

    facts_dir = Path(options.facts)
    stale: tuple[str, ...] | None = None
    rescan = None
    as_they_are = options.no_rescan or options.public_key is not None  # a rescan changes what a signature vouches for
    if as_they_are:
        manifest = before
    else:
        rescan = _rescan(before.options, src, facts_dir, source, notes)
        if demand is not None:
            opened, demand = demand, demand.after(rescan)
            if demand is None:  # the index no longer answers: the kernel does, over the manifests it reads
                before = opened.manifests()[0]
        manifest = demand.before() if demand is not None else source.manifest(facts_dir)
    kernel: Kernel | None = None
    incomplete: list[str] = []  # the index answers only over a complete, verified scan
    if demand is None:
        kernel = _kernel(options, source)
        incomplete = incomplete_fact_files(kernel)  # listed fact files that are missing (a rescan rewrites them)
        if incomplete and not as_they_are:  # still missing after the rescan: damaged, which only --verify re-extracts
            rescan = _rescan(before.options, src, facts_dir, source, notes, verify=True)
            manifest = source.manifest(facts_dir)
            kernel = _kernel(options, source)
            incomplete = incomplete_fact_files(kernel)
    if as_they_are:
        if demand is not None:
            before = manifest = demand.manifest()
        assert isinstance(before, Manifest)  # read whole: the index's copy or the disk's
        stale = _staleness(before, src, facts_dir, incomplete, source, notes)
    return _Facts(src, facts_dir.resolve(), demand, kernel, before, manifest, rescan is not None, stale, incomplete)


def _classify(paths: list[str], facts: _Facts, git: Git, git_base: str | None) -> list[Change]:
    """How each changed path is treated (``rofl.questions.changes.classify``; by the index alone when every path is a
    scanned source on disk); a path that exists nowhere is refused, with the paths it may have meant."""
    from .changes import CodeFacts, Context, classify, suggestions

    demand = facts.demand
    simple = demand.sources(paths, facts.src, facts.root) if demand is not None else None
    if simple is not None:  # every path a scanned source on disk: classified without the manifest
        return simple
    if demand is not None:
        code = demand.code_rows()
        before, manifest = demand.manifests()
    else:
        assert facts.kernel is not None
        code = {rel: facts.kernel.rows(rel, "code") for rel in CodeFacts.RELATIONS}
        assert isinstance(facts.before, Manifest) and isinstance(facts.manifest, Manifest)  # no index: both read
        before, manifest = facts.before, facts.manifest
    ctx = Context(facts.src, facts.root, manifest, before, CodeFacts.from_store(code), git_base, git)
    changes, missing = classify(paths, ctx)
    if missing:
        parts = []
        for raw in missing:
            close = suggestions(raw, ctx)
            parts.append(f"{raw!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        raise RoflError(
            f"rofl impact: {'; '.join(parts)}: exists nowhere under {facts.src}, was never scanned and no import probes it; give paths relative to the scanned folder"
        )
    return changes


def _answer(
    options: ImpactOptions,
    facts: _Facts,
    changes: list[Change],
    named: dict[str, set[str]],
    notes: list[str],
    git: Git,
) -> ImpactAnswer:
    """The affected files of the classified changes (by the index or the kernel; by symbol with ``symbols``),
    filtered to tests, grouped by package, with the notes that say what the answer leaves out."""
    from . import affected as library
    from .changes import OUTSIDE

    treated = [c for c in changes if c.kind != OUTSIDE]
    demand, kernel, src = facts.demand, facts.kernel, facts.src
    if demand is not None:
        result = library.impact_by_demand(demand.view.graph, treated, runtime=options.runtime)
        scanned = set(demand.view.files)
    else:
        assert kernel is not None and isinstance(facts.manifest, Manifest)
        result = library.impact(kernel, treated, runtime=options.runtime)
        scanned = set(facts.manifest.files)
    changed_files = library.scanned_changed(result, scanned, lambda p: (src / p).exists())
    symbolic = None
    if options.symbols:
        from .symbol_impact import answer, as_affected

        assert kernel is not None  # --symbols keeps the kernel
        symbolic = answer(kernel, treated, named, options.git_base, git, options.runtime)
    affected = (
        list(result.affected) if symbolic is None or kernel is None else as_affected(symbolic, kernel, options.runtime)
    )
    if options.tests_only:
        is_test = library.test_filter(options.test_globs or None)
        affected = [a for a in affected if is_test(a.file)]
        changed_files = [f for f in changed_files if is_test(f)]
        if not affected and not changed_files and result.affected:  # a zero that says why
            how = "the --test-glob globs" if options.test_globs else "the usual conventions"
            notes.append(
                f"rofl impact: {len(result.affected)} file(s) affected, none a test file by {how}; "
                "say what a test is with --test-glob GLOB"
            )
    files = sorted(set(changed_files) | {a.file for a in affected})
    if demand is not None:
        folders = dict(demand.view.packages)
    else:
        assert isinstance(facts.manifest, Manifest)
        folders = dict(facts.manifest.packages)
    packages = unpackaged = None
    if options.by_package:
        packages = tuple(AffectedPackage(**p) for p in library.packages_of(files, folders))
        unpackaged = tuple(f for f in files if library.package_of(f, folders) is None)
        if unpackaged:  # no package.json above them: no package to name, but not nothing
            notes.append(
                f"rofl impact: {len(unpackaged)} affected or changed file(s) lie in no package (no package.json with a "
                f"name above them), e.g. {library.escape(unpackaged[0])}; drop --packages to list files"
            )
    if result.partial:
        notes.append(PARTIAL_NOTE)  # a partial answer may miss affected files: said, and exit 3
    by_file = symbolic.by_file if symbolic is not None else {}
    return ImpactAnswer(
        changed=tuple(c.path for c in changes),
        classified=tuple(Classified(c.path, c.kind, c.detail) for c in changes),
        affected=tuple(_affected(a, by_file.get(a.file)) for a in affected),
        files=tuple(files),
        runtime=options.runtime,
        rescanned=facts.rescanned,
        stale=facts.stale,
        incomplete=tuple(facts.incomplete),
        unfollowed_aliases=tuple(UnfollowedAlias(*row) for row in result.aliases),
        virtual_modules=tuple(VirtualModule(**c) for c in virtual_counts(result.virtual)),
        unfollowed_workspace_imports=tuple(UnfollowedWorkspace(*row) for row in result.unfollowed_workspace),
        partial=result.partial,
        symbols=None if symbolic is None else tuple(SeedExports(f, tuple(names)) for f, names in symbolic.seeds),
        packages=packages,
        unpackaged=unpackaged,
        tests_only=options.tests_only,
        virtual_imports=tuple(result.virtual),
        notes=tuple(notes),
    )


def impact_over(kernel: Kernel, options: ImpactOptions) -> ImpactAnswer:
    """The impact answered by a kernel the caller loaded over ``options.facts`` (`rofl report`'s, which has
    said whether the facts are stale): from the facts as they are, no rescan, no graph index, no second look
    at the sources."""
    from dataclasses import replace

    return impact(replace(options, no_rescan=True), _Lent(kernel))


class _Lent(Source):
    """A source lending one loaded kernel: no index kept, the sources' staleness said by its caller."""

    __slots__ = ("loaded",)

    def __init__(self, kernel: Kernel) -> None:
        super().__init__()
        self.loaded = kernel

    def kernel(self, inputs: KernelInputs) -> Kernel:
        return self.loaded

    def kept(self, facts: Path, name: str, build: Callable[[], Any]) -> Any:
        return None

    def sources_unchanged(self, facts: Path) -> bool:
        return True


def _kernel(options: ImpactOptions, source: Source) -> Kernel:
    return source.kernel(
        KernelInputs(
            budget=options.budget,
            facts=options.facts,
            rules=options.rules,
            public_key=options.public_key,
            refuse_forged=True,
        )
    )


def _affected(a: Affected, symbolic: Any) -> AffectedFile:
    """One affected file: its chain, its package-wide hops, and with --symbols the exports used and touched."""
    return AffectedFile(
        a.file,
        a.via,
        tuple(WideHop.of(h) for h in a.package_wide) or None,
        None if symbolic is None else tuple(symbolic.symbols),
        None if symbolic is None else tuple(symbolic.touched),
    )


def virtual_counts(virtual: tuple[tuple[str, str, str], ...]) -> list[dict]:
    """Each virtual module imported (virtual_module in rules/code.rofl), with how many imports and
    files name it, by name."""
    imports: dict[str, int] = {}
    files: dict[str, set[str]] = {}
    for f, _, n in virtual:
        imports[n] = imports.get(n, 0) + 1
        files.setdefault(n, set()).add(f)
    return [{"name": n, "imports": imports[n], "files": len(files[n])} for n in sorted(imports)]


def _rescan(
    options: ScanOptions, src: Path, facts_dir: Path, source: Source, notes: list[str], verify: bool = False
) -> ScanSummary | bool:
    """Bring the facts up to date with the incremental scan, with the options the manifest records
    (``verify``: every source re-hashed and every fact file checked, the damaged ones re-extracted);
    True when a watcher saw no source change (up to date, as a rescan that finds nothing to do leaves them)."""
    if not verify and source.sources_unchanged(facts_dir):
        return True
    from rofl.scanner.api import ScanError, scan

    from .. import __version__
    from ..loading.signing import drop_signature

    try:
        summary = scan(
            str(src),
            str(facts_dir),
            max_bytes=options.max_bytes,
            include=options.include,
            exclude=options.exclude,
            tool_version=__version__,
            verify=verify,
        )
    except ScanError as err:
        raise RoflError(
            f"rofl impact: the rescan failed: {err} (or answer from the facts as they are with --no-rescan)"
        ) from None
    if summary.parsed or summary.removed or summary.resolved:
        dropped = drop_signature(facts_dir)  # it vouched for the facts before this rescan
        notes.append(
            f"rofl impact: rescanned {'with --verify (damaged fact files re-extracted): ' if verify else ''}{summary.parsed} changed, {summary.removed} removed, {summary.resolved} re-resolved file(s) in {summary.seconds:.2f}s"
            + ("; the earlier scan's signature no longer applies and was removed" if dropped else "")
        )
    return summary


def _staleness(
    manifest: Manifest, src: Path, facts_dir: Path, incomplete: list[str], source: Source, notes: list[str]
) -> tuple[str, ...]:
    """Whether the facts as they are match the sources, said in one note; the stale paths (["unknown"]
    when it cannot be told)."""
    from .affected import escape
    from .staleness import staleness

    fix = "answering from them as they are, drop --no-rescan to rescan first"
    # a server watching the sources knows without looking when none changed since its last scan
    said = staleness(manifest, src, facts_dir, fix, escape=escape, unchanged=source.sources_unchanged(facts_dir))
    if said.line is not None:
        notes.append(said.line)
    elif incomplete:  # the loader has named them; "up to date" would contradict it
        notes.append(
            f"rofl impact: the facts are incomplete: {len(incomplete)} listed fact file(s) missing; drop --no-rescan to rescan"
        )
    else:
        notes.append("rofl impact: the facts are up to date with the sources")
    return ("unknown",) if said.stale is None else said.stale
