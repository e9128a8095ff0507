"""`rofl impact`: which files a change affects, each with the chain of imports that makes it so."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..exits import Exit, fail, user_errors
from ..jsonout import emit_json
from ..loading.kernel import build_kernel, incomplete_fact_files, manifest_of
from ..options import BUDGET, FACTS, PUBLIC_KEY, RULES, examples

if TYPE_CHECKING:
    from pathlib import Path

    from ..changes import Change, Context
    from ..graph_index import View
    from ..impact import Affected, Impact

MAX_LISTED = 20  # more changed paths of one kind than this are summarised in one text line


@click.command(
    "impact",
    epilog=examples(
        "rofl impact --facts facts/generated --changed src/domain/money.ts",
        "rofl impact --facts facts/generated --git-base origin/main --tests --format names | xargs npx vitest run",
        "rofl impact --facts facts/generated --changed src/domain/money.ts:allocate --symbols",
        exit_codes="Exit codes: 0 answered, 2 user error (or a path that exists nowhere), 3 partial (the budget ran out).",
    ),
)
@FACTS
@click.option(
    "--changed",
    multiple=True,
    metavar="PATH",
    help="A changed path relative to the scanned folder: a file, a folder, a config or lock file (repeatable).",
)
@click.option(
    "--git-base",
    "git_base",
    default=None,
    metavar="REF",
    help="Take the changed paths from git: the work tree against REF, untracked included.",
)
@click.option("--runtime", is_flag=True, help="Follow runtime imports only (not `import type`, not .d.ts files).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "names"]),
    default=None,
    help="text (default), json, or names: one path per line for a test runner.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--tests",
    "tests_only",
    is_flag=True,
    help="Only affected test files (*.test.*, *.spec.*, *.test-d.*, __tests__/, test/, tests/).",
)
@click.option(
    "--test-glob",
    "test_globs",
    multiple=True,
    metavar="GLOB",
    help="What counts as a test file for --tests, instead of the conventions (repeatable).",
)
@click.option("--packages", "by_package", is_flag=True, help="Affected workspace packages instead of files.")
@click.option(
    "--symbols",
    is_flag=True,
    help="Follow only importers that use the exports the change touches (--changed FILE:NAME names one).",
)
@click.option(
    "--no-rescan",
    "no_rescan",
    is_flag=True,
    help="Answer from the facts as they are (say whether they are stale) instead of rescanning first.",
)
@RULES
@BUDGET
@PUBLIC_KEY
@user_errors
def command(
    facts: str | None,
    changed: tuple,
    git_base: str | None,
    runtime: bool,
    fmt: str | None,
    as_json: bool,
    tests_only: bool,
    test_globs: tuple,
    by_package: bool,
    no_rescan: bool,
    symbols: bool,
    rules: tuple,
    budget: int | None,
    public_key: str | None = None,
) -> None:
    """List the files affected by a change and, per file, the chain to a changed path.

    Each changed path is classified (scanned source, deleted source, asset, config, lock file, folder,
    or outside the scan) and the output says how it was treated.
    """
    from pathlib import Path

    from rofl.engine.errors import RoflError
    from rofl.scanner.manifest import src_of

    from ..changes import OUTSIDE, CodeFacts, Context, classify, in_facts_dir, suggestions
    from ..gitrefs import Git
    from ..impact import escape, impact, impact_by_demand, package_of, packages_of, scanned_changed, test_filter

    if facts is None:
        fail("rofl impact: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
    if bool(changed) == bool(git_base):
        fail("rofl impact: give either --changed PATH... or --git-base REF")
    if git_base is not None and git_base.startswith("-"):
        raise RoflError(
            f"--git-base {git_base!r}: not a git revision; give a branch, tag or commit such as origin/main"
        )
    if as_json and fmt not in (None, "json"):
        fail(f"rofl impact: --json and --format {fmt} disagree; give one of them")
    fmt = "json" if as_json else (fmt or "text")
    if test_globs and not tests_only:
        fail("rofl impact: --test-glob needs --tests; add --tests to list only the affected test files")
    facts_dir = Path(facts)
    # by demand from the graph index (rofl.graph_index) when it covers the question, else the kernel
    demand = _Demand.open(facts_dir) if not (symbols or rules or budget is not None or public_key) else None
    before = demand.before() if demand is not None else manifest_of(facts_dir)  # a server's copy, else from disk
    src = Path(src_of(before)).resolve()
    if not src.is_dir():
        raise RoflError(
            f"rofl impact: the scanned folder {src} is gone; scan the tree where it is now with `rofl scan SRC --out {facts}`"
        )
    git = Git(src)
    paths = git.changed(git_base) if git_base else list(changed)
    named: dict[str, set[str]] = {}
    if symbols and not git_base:  # FILE:NAME
        from ..symbol_impact import split_changed

        paths, named = split_changed(paths, src)
    stale: list[str] | None = None
    rescan = None
    as_they_are = no_rescan or public_key is not None  # a rescan would change what a signature vouches for
    if as_they_are:
        manifest = before
    else:
        rescan = _rescan(before, src, facts_dir)
        if demand is not None:
            opened, demand = demand, demand.after(rescan)
            if demand is None:  # the index no longer answers: the kernel does, over the manifests it reads
                before = opened.manifests()[0]
        manifest = demand.before() if demand is not None else manifest_of(facts_dir)
    if demand is None:
        kernel = build_kernel((), (), budget, facts=facts, rules=rules, public_key=public_key, refuse_forged=True)
        incomplete = incomplete_fact_files(kernel)  # listed fact files that are missing (a rescan rewrites them)
        if incomplete and not as_they_are:  # still missing after the rescan: damaged, which only --verify re-extracts
            rescan = _rescan(before, src, facts_dir, verify=True)
            manifest = manifest_of(facts_dir)
            kernel = build_kernel((), (), budget, facts=facts, rules=rules, public_key=public_key, refuse_forged=True)
            incomplete = incomplete_fact_files(kernel)
    else:
        kernel, incomplete = None, []  # the index answers only over a complete, verified scan
    if as_they_are:
        if demand is not None:
            before = manifest = demand.manifest()
        stale = _staleness(before, src, facts_dir, incomplete)
    facts_root = facts_dir.resolve()
    if git_base:
        paths = [p for p in paths if not in_facts_dir(p, _bare_context(src, facts_root))]
        if not paths:
            click.echo(f"rofl impact: git lists no changed path under {src} against {git_base}", err=True)
    simple = demand.sources(paths, src, facts_root) if demand is not None else None
    if simple is not None:  # every path a scanned source on disk: classified without the manifest
        changes, missing = simple, list[str]()
    else:
        if demand is not None:
            code = demand.code_rows()
            before, manifest = demand.manifests()
        else:
            assert kernel is not None
            code = {rel: kernel.base_rows(rel, "code") for rel in CodeFacts.RELATIONS}
        ctx = Context(src, facts_root, manifest, before, CodeFacts.from_store(code), git_base, git)
        changes, missing = classify(paths, ctx)
    if missing:
        parts = []
        for raw in missing:
            close = suggestions(raw, ctx)
            parts.append(f"{raw!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        fail(
            f"rofl impact: {'; '.join(parts)}: exists nowhere under {src}, was never scanned and no import probes it; give paths relative to the scanned folder"
        )
    outside = [c for c in changes if c.kind == OUTSIDE]
    treated = [c for c in changes if c.kind != OUTSIDE]
    if demand is not None:
        result = impact_by_demand(demand.view.graph, treated, runtime=runtime)
        scanned = set(demand.view.files)
    else:
        assert kernel is not None
        result = impact(kernel, treated, runtime=runtime)
        scanned = set(manifest.get("files", {}))
    changed_files = scanned_changed(result, scanned, lambda p: (src / p).exists())
    symbolic = None
    if symbols:
        from ..symbol_impact import affected_json, answer, as_affected, seed_lines, seeds_json, via_text

        assert kernel is not None  # --symbols keeps the kernel
        symbolic = answer(kernel, treated, named, git_base, git, runtime)
    affected = list(result.affected) if symbolic is None or kernel is None else as_affected(symbolic, kernel, runtime)
    if tests_only:
        is_test = test_filter(test_globs or None)
        affected = [a for a in affected if is_test(a.file)]
        changed_files = [f for f in changed_files if is_test(f)]
        if not affected and not changed_files and result.affected:  # a zero that says why
            how = "the --test-glob globs" if test_globs else "the usual conventions"
            click.echo(
                f"rofl impact: {len(result.affected)} file(s) affected, none a test file by {how}; "
                "say what a test is with --test-glob GLOB",
                err=True,
            )
    files = sorted(set(changed_files) | {a.file for a in affected})
    workspace = demand.view.packages if demand is not None else manifest.get("packages")
    folders = workspace if isinstance(workspace, dict) else {}
    packages = packages_of(files, folders) if by_package else None
    unpackaged = [f for f in files if package_of(f, folders) is None] if by_package else []
    if packages is not None and unpackaged:  # no package.json above them: no package to name, but not nothing
        click.echo(
            f"rofl impact: {len(unpackaged)} affected or changed file(s) lie in no package (no package.json with a "
            f"name above them), e.g. {escape(unpackaged[0])}; drop --packages to list files",
            err=True,
        )
    what = "test file(s)" if tests_only else "file(s)"
    if fmt == "json":
        data: dict = {
            "changed": [c.path for c in changes],
            "classified": [{"path": c.path, "as": c.kind, "detail": c.detail} for c in changes],
            "affected": [_affected_json(a) | (affected_json(symbolic, a.file) if symbolic else {}) for a in affected],
            "files": files,
            "runtime": runtime,
            "rescanned": rescan is not None,
            "stale": stale,
            "incomplete": incomplete,
            "unfollowed_aliases": [{"file": f, "source": s, "name": n} for f, s, n in result.aliases],
            "virtual_modules": virtual_counts(result.virtual),
            "unfollowed_workspace_imports": [
                {"file": f, "source": s, "folder": d} for f, s, d in result.unfollowed_workspace
            ],
            "partial": result.partial,
        }
        if symbolic is not None:
            data["symbols"] = seeds_json(symbolic)
        if packages is not None:
            data["packages"] = packages
            data["unpackaged"] = unpackaged
        emit_json(data)
        _notes(result.partial)
        return
    if fmt == "names":
        for line in [p["name"] for p in packages] if packages is not None else files:
            click.echo(escape(line))
        _unfollowed_note(result)
        _notes(result.partial)
        return
    by = escape(changes[0].path) if len(changes) == 1 else f"{len(changes)} changed paths"
    mode = " (runtime imports)" if runtime else ""
    if packages is not None:
        click.echo(f"{len(packages)} package(s) affected by {by}{mode}")
    else:
        click.echo(f"{len(affected)} {what} affected by {by}{mode}")
    _changed_lines(treated)
    for line in seed_lines(symbolic, escape) if symbolic is not None else ():
        click.echo(line)
    if outside:
        names = ", ".join(escape(c.path) for c in outside[:5]) + (
            f" and {len(outside) - 5} more" if len(outside) > 5 else ""
        )
        click.echo(
            f"rofl impact: {len(outside)} changed path(s) outside the scan (not a scanned file, nothing imports them): {names}",
            err=True,
        )
    if packages is not None:
        for p in packages:
            click.echo(f"  {escape(p['name'])}  {escape(p['folder'])}  ({p['files']} file(s))")
    else:
        for a in affected:
            click.echo(f"  {escape(a.file)}")
            sym = affected_json(symbolic, a.file) if symbolic is not None else {}
            click.echo(f"      via {via_text(a.via, tuple(sym['symbols']), escape) if sym else _via_text(a)}")
            for hop in a.package_wide:
                click.echo(f"      package-wide: {escape(hop.why())}")
    _unfollowed_note(result)
    _notes(result.partial)


def _manifest_bytes(root: Path) -> bytes | None:
    from ..graph_index import manifest_bytes

    return manifest_bytes(root)


def _current(root: Path, text: str, secret: bytes, raw: bytes | None) -> View | None:
    from ..graph_index import current

    return current(root, text, secret, raw)


def _bare_context(src: Path, facts_root: Path) -> Context:
    """A classification context holding only the two folders (what ``in_facts_dir`` reads)."""
    from ..changes import CodeFacts, Context

    return Context(src, facts_root, {}, {}, CodeFacts(frozenset(), frozenset(), frozenset(), {}, {}))


class _Demand:
    """An impact question answered from the graph index (``rofl.graph_index``): the manifest it was
    opened over (its bytes, or a serving session's parsed copy), the current one after a rescan, and
    the index's view of the scan."""

    __slots__ = ("root", "first", "raw", "view", "secret", "rules_text", "served")

    def __init__(
        self, root: Path, first: bytes | dict, raw: bytes | dict, view: View, secret: bytes, rules_text: str
    ) -> None:
        self.root, self.first, self.raw, self.view = root, first, raw, view
        self.secret, self.rules_text = secret, rules_text
        self.served = isinstance(first, dict)

    @staticmethod
    def open(root: Path) -> _Demand | None:
        """The index of the scan in ``root`` when it answers (verified, current), else None.  A serving
        session keeps the view while the scan's signature holds, as it keeps a loaded kernel."""
        from ..loading import cachemac
        from ..loading.kernel import CODE_RULES, serving

        secret = cachemac.secret()
        if secret is None:
            return None
        text = CODE_RULES.read_text(encoding="utf-8")
        session = serving(root)
        if session is None:
            raw = _manifest_bytes(root)
            view = _current(root, text, secret, raw)
            return None if view is None or raw is None else _Demand(root, raw, raw, view, secret, text)
        kept = session.kept("graph-index", lambda: _current(root, text, secret, _manifest_bytes(root)))
        from ..graph_index import View

        if not isinstance(kept, View):
            return None
        first = manifest_of(root)  # the session's parsed copy, once per scan
        return _Demand(root, first, first, kept, secret, text)

    def after(self, rescan: object) -> _Demand | None:
        """The index after the rescan: the same when it found nothing to do, else brought up to date."""
        quiet = rescan is True or not (rescan.parsed or rescan.removed or rescan.resolved)  # type: ignore[attr-defined]
        if self.served:
            if quiet:
                return self
            again = _Demand.open(self.root)
            return (
                None
                if again is None
                else _Demand(self.root, self.first, again.raw, again.view, self.secret, self.rules_text)
            )
        raw = _manifest_bytes(self.root)
        if quiet and raw == self.raw:
            return self
        view = _current(self.root, self.rules_text, self.secret, raw)
        if view is None or raw is None:
            return None
        return _Demand(self.root, self.first, raw, view, self.secret, self.rules_text)

    def before(self) -> dict:
        """What impact reads of the manifest when every changed path is a scanned source."""
        if isinstance(self.first, dict):
            return self.first
        return {"src": self.view.src, "options": self.view.options}

    def manifests(self) -> tuple[dict, dict]:
        """The manifest before the rescan and now, parsed (classification beyond a changed source)."""
        from rofl.scanner.manifest import ManifestError, _parse

        first = self.first if isinstance(self.first, dict) else _parse(self.first)
        if self.raw is self.first:
            now = first
        else:
            now = self.raw if isinstance(self.raw, dict) else _parse(self.raw)
        if isinstance(first, str) or isinstance(now, str):
            raise ManifestError(f"{self.root / 'manifest.json'}: changed while read; run the command again")
        return first, now

    def manifest(self) -> dict:
        return self.manifests()[1]

    def sources(self, paths: list[str], src: Path, facts_root: Path) -> list[Change] | None:
        """The changes when every path names a scanned source on disk, classified as
        ``rofl.changes.classify`` classifies them; None when one may be anything else."""
        import os
        import posixpath

        from ..changes import SOURCE, Change, in_facts_dir
        from ..lockfiles import is_lock_file

        ctx = _bare_context(src, facts_root)
        out: dict[str, Change] = {}
        for raw in paths:
            text = raw.replace("\\", "/")
            if not text or os.path.isabs(text):
                return None
            rel = posixpath.normpath(text)
            if rel not in self.view.files or rel == ".." or rel.startswith(("/", "../")):
                return None
            if in_facts_dir(rel, ctx) or is_lock_file(rel) or not os.path.lexists(src / rel):
                return None
            out.setdefault(rel, Change(rel, SOURCE, "scanned source", changed=(rel,)))
        return sorted(out.values(), key=lambda c: c.path)

    def code_rows(self) -> dict:
        """The base [code] rows classification reads (``CodeFacts.RELATIONS``), as the kernel holds them."""
        from rofl.engine.errors import RoflError
        from rofl.engine.terms import canonical_rows

        from ..graph_index import _globs

        base = self.view.base(self.secret)
        if base is None:
            raise RoflError(f"{self.root}: its graph index changed while read; run the command again")
        out = {rel: tuple(canonical_rows(dict.fromkeys(("code", *r) for r in base.get(rel, ())))) for rel in base}
        out["package_nonsource_glob"] = tuple(("code", g) for g in _globs(self.rules_text))
        return out


KIND_NAMES = {"source": "scanned sources", "config": "config files", "deleted": "deleted paths", "folder": "folders"}


def _changed_lines(treated: list) -> None:
    """One ``changed:`` line per treated path, saying how it was treated; a kind with more than
    MAX_LISTED paths (a long branch's sources, a release bumping every package.json) in one line."""
    from ..impact import escape

    by_kind: dict[str, list] = {}
    for c in treated:
        by_kind.setdefault(c.kind, []).append(c)
    for c in treated:
        same = by_kind[c.kind]
        if len(same) <= MAX_LISTED:
            click.echo(f"changed: {escape(c.path)} ({escape(c.detail)})")
        elif c is same[0]:
            names = ", ".join(escape(x.path) for x in same[:3])
            what = KIND_NAMES.get(c.kind, f"{c.kind} paths")
            how = "" if len({x.detail for x in same}) == 1 else "; --format json says how each was treated"
            click.echo(f"changed: {len(same)} {what} ({names} and {len(same) - 3} more{how})")


def _rescan(manifest: dict, src, facts_dir, verify: bool = False):
    """Bring the facts up to date with the incremental scan, with the options the manifest records
    (``verify``: every source re-hashed and every fact file checked, the damaged ones re-extracted)."""
    from rofl.engine.errors import RoflError

    from ..loading.kernel import sources_unchanged

    # a server watching the sources saw none change since its last scan:
    if not verify and sources_unchanged(facts_dir):
        return True  # up to date, as a rescan that finds nothing to do would leave them
    from rofl.scanner.api import ScanError, scan
    from rofl.scanner.manifest import options_of

    from .. import __version__

    options = options_of(manifest)
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
        from .scan import drop_signature

        dropped = drop_signature(facts_dir)  # it vouched for the facts before this rescan
        click.echo(
            f"rofl impact: rescanned {'with --verify (damaged fact files re-extracted): ' if verify else ''}{summary.parsed} changed, {summary.removed} removed, {summary.resolved} re-resolved file(s) in {summary.seconds:.2f}s"
            + ("; the earlier scan's signature no longer applies and was removed" if dropped else ""),
            err=True,
        )
    return summary


def _staleness(manifest: dict, src, facts_dir, incomplete: list[str]) -> list[str]:
    """Whether the facts as they are match the sources, said in one stderr line; the stale paths."""
    from rofl.engine.errors import RoflError

    from ..impact import escape
    from ..loading.kernel import sources_unchanged
    from ..staleness import stale_sources

    try:  # a server watching the sources knows without looking when none changed since its last scan
        stale = (
            []
            if sources_unchanged(facts_dir)
            else [f"{p}: {why}" for p, why in stale_sources(manifest, src, facts_dir)]
        )
    except RoflError as err:
        click.echo(f"warning: cannot tell whether the facts are stale ({err})", err=True)
        return ["unknown"]
    if stale:
        shown = "; ".join(stale[:3]) + (f"; and {len(stale) - 3} more" if len(stale) > 3 else "")
        click.echo(
            f"warning: the facts are stale ({len(stale)} path(s): {escape(shown)}); answering from them as they are, drop --no-rescan to rescan first",
            err=True,
        )
    elif incomplete:  # the loader has named them; "up to date" would contradict it
        click.echo(
            f"rofl impact: the facts are incomplete: {len(incomplete)} listed fact file(s) missing; drop --no-rescan to rescan",
            err=True,
        )
    else:
        click.echo("rofl impact: the facts are up to date with the sources", err=True)
    return stale


def virtual_counts(virtual: tuple[tuple[str, str, str], ...]) -> list[dict]:
    """Each virtual module imported (virtual_module in rules/code.rofl), with how many imports and
    files name it, by name."""
    imports: dict[str, int] = {}
    files: dict[str, set[str]] = {}
    for f, _, n in virtual:
        imports[n] = imports.get(n, 0) + 1
        files.setdefault(n, set()).add(f)
    return [{"name": n, "imports": imports[n], "files": len(files[n])} for n in sorted(imports)]


def _shown(names: list[str]) -> str:
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def _affected_json(a: Affected) -> dict:
    """One affected file in JSON: its chain and, when a hop of it is a package-wide dependency rather
    than an import, ``package_wide`` naming each such hop's package and why."""
    out: dict = {"file": a.file, "via": list(a.via)}
    if a.package_wide:
        out["package_wide"] = [h.as_dict() for h in a.package_wide]
    return out


def _via_text(a: Affected) -> str:
    """The chain, ``->`` for an import and ``=(package-wide NAME)=>`` for a package-wide hop."""
    from ..impact import escape

    wide = {(h.source, h.target): h.package for h in a.package_wide}
    parts = [escape(a.via[0])] if a.via else []
    for x, y in zip(a.via, a.via[1:]):
        name = wide.get((x, y))
        parts.append(f"=(package-wide {escape(name)})=> " + escape(y) if name is not None else "-> " + escape(y))
    return " ".join(parts)


def _unfollowed_note(result: Impact) -> None:
    """One stderr line when imports name what rofl does not follow: bundler aliases (unfollowed_alias in
    rules/code.rofl) and virtual modules (virtual_module): a change behind them reaches none of their
    importers, so say it, never silently."""
    from ..impact import escape

    parts = []
    if result.aliases:
        names = sorted({n for _, _, n in result.aliases})
        files = {f for f, _, _ in result.aliases}
        parts.append(
            f"{len(result.aliases)} import(s) in {len(files)} file(s) name bundler aliases rofl does not follow "
            f"({escape(_shown(names))})"
        )
    if result.virtual:
        counts = virtual_counts(result.virtual)
        files = {f for f, _, _ in result.virtual}
        counts.sort(key=lambda c: (-c["imports"], c["name"]))  # the most imported first
        shown = _shown([f"{c['name']} x{c['imports']}" for c in counts])
        parts.append(
            f"{len(result.virtual)} import(s) in {len(files)} file(s) name virtual modules rofl does not follow "
            f"({escape(shown)})"
        )
    if result.unfollowed_workspace:
        folders = sorted({d for _, _, d in result.unfollowed_workspace})
        files = {f for f, _, _ in result.unfollowed_workspace}
        parts.append(
            f"{len(result.unfollowed_workspace)} import(s) in {len(files)} file(s) name workspace packages with no "
            f"scanned file to follow ({escape(_shown(folders))})"
        )
    if not parts:
        return
    fix = " (map aliases in tsconfig paths)" if result.aliases else ""
    click.echo(
        f"rofl impact: note: {'; '.join(parts)}; a change behind them does not reach those importers{fix}", err=True
    )


def _notes(partial: bool) -> None:
    """A partial answer may miss affected files: say so and exit 3, as every answering command does."""
    if partial:
        click.echo(
            "rofl impact: partial: the budget ran out before every affected file was found; raise --budget", err=True
        )
        raise SystemExit(Exit.PARTIAL)
