"""What each changed path is (a source, a deleted source, an asset, a config, a lock file, a folder, or
outside the scan) and which files it reaches first, from the manifest, the facts and git.

``classify`` never answers a silent zero: every path ends in one class, and a path that exists
nowhere, was never scanned and no import probes is refused with the closest existing paths.
"""

from __future__ import annotations

import difflib
import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rofl.scanner.configs import ConfigStore
from rofl.scanner.files import inside, is_source
from rofl.scanner.manifest import FileEntry, Manifest, empty_manifest
from rofl.scanner.tsconfig import PACKAGE_DEP
from rofl.scanner.workspaces import PNPM_WORKSPACE

from .gitrefs import Git
from .lockfiles import (
    changed_declarations,
    changed_packages,
    declared_ranges,
    is_lock_file,
    package_json_text,
    parse_lock,
    with_dependents,
)
from .tsconfig_scope import ScopeFinder, is_tsconfig_name

WORKSPACE_FILES = frozenset({PNPM_WORKSPACE})

# kinds, in the order the output lists them
SOURCE, DELETED, ASSET, CONFIG, LOCK, FOLDER, PROBED, OUTSIDE = (
    "source",
    "deleted",
    "asset",
    "config",
    "lockfile",
    "folder",
    "probed",
    "outside",
)


@dataclass(frozen=True, slots=True)
class Change:
    """One changed path and how impact treats it.

    ``changed`` are the nodes asserted as changed (the path itself, or the scanned files under a
    folder); ``touches`` are (file, path) links for files whose resolution depended on the path
    without an import edge to it (a config it read, a deleted file its imports named, a lock file
    locking a package it imports).
    """

    path: str
    kind: str
    detail: str
    changed: tuple[str, ...] = ()
    touches: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CodeFacts:
    """The [code] facts classification needs, read from the loaded store."""

    files: frozenset[str]
    targets: frozenset[str]  # every src_resolves target
    assets: frozenset[str]
    externals: dict[str, frozenset[str]]  # package -> files importing it
    workspace: dict[str, frozenset[str]]  # workspace package folder -> files importing it unresolved
    entries: dict[str, frozenset[str]] = field(default_factory=dict)  # package folder -> files it offers by name
    package_of: dict[str, tuple[str, str]] = field(default_factory=dict)  # file -> (package folder, path inside)
    nonsource_globs: tuple[str, ...] = ()  # package_nonsource_glob: no source of a package (tests, configs, ...)

    RELATIONS = (
        "src_external",
        "src_workspace_import",
        "src_file",
        "src_resolves",
        "src_asset",
        "src_package",
        "src_package_entry",
        "package_nonsource_glob",
    )

    @staticmethod
    def from_store(base: dict) -> CodeFacts:
        """From ``{relation: rows}`` of the base [code] facts (``RELATIONS``)."""

        def rows(rel: str) -> Iterable[tuple]:
            return (r for r in base.get(rel, {}) if r and r[0] == "code")

        externals: dict[str, set[str]] = {}
        for r in rows("src_external"):
            if len(r) == 4 and isinstance(r[3], str):
                externals.setdefault(r[3], set()).add(r[1])
        workspace: dict[str, set[str]] = {}
        for r in rows("src_workspace_import"):
            if len(r) == 4 and isinstance(r[3], str):
                workspace.setdefault(r[3], set()).add(r[1])
        entries: dict[str, set[str]] = {}
        for r in rows("src_package_entry"):
            if len(r) == 4 and isinstance(r[1], str) and isinstance(r[2], str):
                entries.setdefault(r[1], set()).add(r[2])
        return CodeFacts(
            files=frozenset(r[1] for r in rows("src_file") if len(r) == 3),
            targets=frozenset(r[3] for r in rows("src_resolves") if len(r) == 4 and isinstance(r[3], str)),
            assets=frozenset(r[1] for r in rows("src_asset") if len(r) == 2 and isinstance(r[1], str)),
            externals={k: frozenset(v) for k, v in externals.items()},
            workspace={k: frozenset(v) for k, v in workspace.items()},
            entries={k: frozenset(v) for k, v in entries.items()},
            package_of={
                r[1]: (r[2], r[3])
                for r in rows("src_package")
                if len(r) == 4 and all(isinstance(x, str) for x in r[1:])
            },
            nonsource_globs=tuple(sorted(r[1] for r in rows("package_nonsource_glob") if len(r) == 2)),
        )

    def package_importers(self, path: str) -> set[str]:
        """Files importing (unresolved) a workspace package D by name for which ``path`` stands:
        D's package.json, or one of D's package-wide targets (rules/code.rofl ``package_wide_target``):
        a file D offers by name, or, when D offers none, one of its own sources (no test, fixture or
        config file, not in a nested package).  A path the facts no longer hold (deleted) is D's when
        D's folder is the nearest package folder holding it."""
        out: set[str] = set()
        for folder, importers in self.workspace.items():
            if self._stands_for(path, "" if folder == "." else folder):
                out |= importers
        return out

    def _stands_for(self, path: str, folder: str) -> bool:
        if path == posixpath.join(folder, "package.json"):
            return True
        offered = self.entries.get(folder) or self.entries.get(folder or ".")
        if offered:
            return path in offered
        known = self.package_of.get(path)
        if known is not None:
            package, inner = known
        else:  # not in the facts: the nearest package folder above it
            folders = {p for p, _ in self.package_of.values()} | set(self.workspace) | set(self.entries)
            holding = [f for f in folders if f in (".", "") or path.startswith(f + "/")]
            if not holding:
                return False
            package = max(holding, key=lambda f: 0 if f in (".", "") else len(f))
            inner = path if package in (".", "") else path[len(package) + 1 :]
        if (package if package != "." else "") != folder:
            return False
        from rofl.engine.text_builtins import glob

        return not any(glob(inner, pattern) for pattern in self.nonsource_globs)


@dataclass
class Context:
    """Everything classification reads; built once per impact question."""

    src: Path
    facts_dir: Path
    manifest: Manifest  # after the rescan (or as it is, with --no-rescan)
    before: Manifest  # the manifest before the rescan
    facts: CodeFacts
    ref: str | None = None  # --git-base REF: the changed paths are the ones git lists against it
    git: Git | None = None
    _deps: dict[str, set[str]] | None = field(default=None, repr=False)
    _old: dict[str, bytes | None] = field(default_factory=dict, repr=False)  # path -> its bytes at REF
    _scopes: ScopeFinder | None = field(default=None, repr=False)
    _store: ConfigStore | None = field(default=None, repr=False)

    @property
    def files(self) -> Mapping[str, FileEntry]:
        return self.manifest.files

    def deps_index(self) -> dict[str, set[str]]:
        """resolution dependency -> files whose resolution consulted it."""
        if self._deps is None:
            index: dict[str, set[str]] = {}
            for path, entry in self.files.items():
                for dep in entry.resolution_deps:
                    index.setdefault(dep, set()).add(path)
            self._deps = index
        return self._deps

    def exists(self, path: str) -> bool:
        return os.path.lexists(self.src / path)

    def store(self) -> ConfigStore:
        """The scanner's bounded config reader over SRC (configs read as the scan reads them)."""
        if self._store is None:
            from rofl.scanner.files import git_top

            self._store = ConfigStore(str(self.src), git_top(str(self.src)))
        return self._store

    def scopes(self) -> ScopeFinder:
        """Which scanned files each tsconfig governs (``rofl.questions.tsconfig_scope``), built once."""
        if self._scopes is None:
            manifest = self.manifest
            self._scopes = ScopeFinder(str(self.src), self.files, self.store(), manifest.packages, manifest.configs)
        return self._scopes

    def scopes_with(self, path: str, content: dict) -> ScopeFinder:
        """A scope finder reading ``content`` as the config at ``path`` (its version at REF)."""
        base = self.scopes()
        return ScopeFinder(
            str(self.src), self.files, self.store(), base.packages, base.known, overrides={path: content}
        )

    def package_scopes(self) -> set[str]:
        """Folders holding a package.json the scan listed (each a package scope; "." the root)."""
        listed = [*self.manifest.workspace, *self.before.workspace]
        return {_folder_of(p) for p in listed if posixpath.basename(p) == "package.json"}

    def old_bytes(self, path: str) -> bytes | None:
        if self.ref is None or self.git is None:
            return None
        if path not in self._old:  # a package.json is read for its name and for its ranges
            self._old[path] = self.git.show(self.ref, path)
        return self._old[path]

    def new_bytes(self, path: str) -> bytes | None:
        from rofl.engine.base.safe_write import read_regular

        if not inside(os.path.realpath(self.src / path), os.path.realpath(self.src)):
            return None  # a link out of SRC: what it points at is not the repository's to declare
        try:  # a package.json or lock file of the repository: a link to /dev/zero or a FIFO is not read
            return read_regular(self.src / path, MAX_MANIFEST_FILE_BYTES)
        except OSError:
            return None

    def under(self, folder: str) -> list[str]:
        if folder in (".", ""):
            return sorted(self.files)
        prefix = folder.rstrip("/") + "/"
        return sorted(p for p in self.files if p.startswith(prefix))


def normalise(raw: str, ctx: Context) -> str:
    """A changed path as the scan names it: relative to SRC when it lies inside SRC (given relative to
    SRC, relative to the working folder, or absolute), POSIX separators; otherwise as given, normalised."""
    text = raw.replace("\\", "/")
    if not text:
        return text
    rel = posixpath.normpath(text)
    if not os.path.isabs(text):
        if rel in ctx.files or rel in ctx.before.files or rel in ctx.deps_index() or ctx.exists(rel):
            return rel
    try:
        return Path(os.path.abspath(raw)).relative_to(ctx.src).as_posix()
    except ValueError:
        return rel


def _inside_src(path: str) -> bool:
    return not (path.startswith("/") or path == ".." or path.startswith("../"))


def _real_folder_inside(src: Path, folder: str) -> bool:
    """Whether SRC/folder is, once every link is resolved, a folder inside SRC (never /etc through a link)."""
    root = os.path.realpath(src)
    real = os.path.realpath(os.path.join(root, folder))
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def folders_only(src: Path, facts_dir: Path) -> Context:
    """A classification context holding only the two folders (what ``in_facts_dir`` reads)."""
    nothing = empty_manifest(str(src))
    return Context(src, facts_dir, nothing, nothing, CodeFacts(frozenset(), frozenset(), frozenset(), {}, {}))


def in_facts_dir(path: str, ctx: Context) -> bool:
    """Whether ``path`` (relative to SRC) lies in the fact folder: never a change, even listed by git."""
    try:
        rel = ctx.facts_dir.resolve().relative_to(ctx.src).as_posix()
    except ValueError:
        return False
    return rel != "." and (path == rel or path.startswith(rel + "/"))


def _count(n: int, what: str) -> str:
    if n == 1:
        return f"{n} {what}"
    return f"{n} {what[:-1]}ies" if what.endswith("y") else f"{n} {what}s"


def _names(items: Iterable[str], limit: int = 5) -> str:
    items = sorted(items)
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _folder_of(path: str) -> str:
    folder = posixpath.dirname(path)
    return folder or "."


def _importers_of(packages: Iterable[str], ctx: Context, folder: str) -> set[str]:
    """Files under ``folder`` importing one of ``packages`` by name: as an external package, or a
    workspace package their resolution looked up by that name (a range change may swap the link for
    a published version)."""
    out: set[str] = set()
    prefix = "" if folder == "." else folder + "/"
    deps = ctx.deps_index()
    for name in packages:
        for f in (*ctx.facts.externals.get(name, ()), *deps.get(PACKAGE_DEP + name, ())):
            if f.startswith(prefix):
                out.add(f)
    return out


def _all_external_importers(ctx: Context, folder: str) -> set[str]:
    return _importers_of(ctx.facts.externals, ctx, folder)


def classify_one(path: str, ctx: Context) -> Change | None:
    """How one changed path (relative to SRC) is treated; None when it exists nowhere (the caller
    refuses it with suggestions)."""
    files = ctx.files
    if not _inside_src(path) or in_facts_dir(path, ctx):
        outside = ctx.exists(path) or os.path.lexists(path)  # relative to SRC or to the working folder
        return Change(path, OUTSIDE, "outside the scanned folder") if outside else None
    base = posixpath.basename(path)
    if is_lock_file(path):
        return _lock_change(path, ctx)
    if path in files and ctx.exists(path):  # the common case; a source is never a config or lock file
        return Change(path, SOURCE, "scanned source", changed=(path,))
    deps = ctx.deps_index()  # built only for the cases below (a walk over every file's resolution)
    readers = sorted(deps.get(path, ()))
    if base == "package.json" or base in WORKSPACE_FILES or is_tsconfig_name(path):
        return _config_change(path, ctx, readers)
    if path.endswith(".json") and ctx.scopes().users(path):  # a base some tsconfig extends (@acme/tsconfig/base.json)
        return _config_change(path, ctx, readers)
    if path in files:  # and gone from disk
        return _deleted(path, "deleted source (the facts still hold it)", readers, ctx)
    linked = _through_link(path, ctx)
    if linked is not None:
        return linked
    if os.path.isdir(ctx.src / path) or (not ctx.exists(path) and ctx.under(path)):
        inside = ctx.under(path)
        gone = [
            p
            for p in ctx.before.files
            if p not in files and (path in (".", "") or p.startswith(path.rstrip("/") + "/"))
        ]
        touches = tuple((f, g) for g in gone for f in deps.get(g, ()) if f != g)
        if inside or gone:
            detail = f"folder, {_count(len(inside), 'scanned file')} under it"
            if gone:
                detail += f" and {_count(len(gone), 'deleted source')}"
            return Change(path, FOLDER, detail, changed=tuple(inside) + tuple(gone), touches=touches)
        probing = sorted({f for dep, fs in deps.items() if dep.startswith(path.rstrip("/") + "/") for f in fs})
        if probing:
            what = f"folder no scanned file lies in, probed by the imports of {_count(len(probing), 'file')}"
            return _named(path, PROBED, what, probing)
        return Change(path, OUTSIDE, "folder with no scanned file") if ctx.exists(path) else None
    if path in ctx.facts.assets or path in ctx.facts.targets:
        what = "asset" + ("" if ctx.exists(path) else ", deleted")
        return _named(path, ASSET, what, [f for f in readers if f != path])
    if path in ctx.before.files:
        return _deleted(path, "deleted source", readers, ctx)
    if readers and not ctx.exists(path):  # deleted before this scan (or rescanned since): the probes remember it
        how = "not on disk (deleted, or not created yet)" if ctx.ref is None else f"deleted since {ctx.ref}"
        return _deleted(path, how, readers, ctx)
    if readers:
        what = f"not scanned, probed by the imports of {_count(len(readers), 'file')}"
        return _named(path, PROBED, what, [f for f in readers if f != path])
    if ctx.exists(path):
        return Change(path, OUTSIDE, "not a scanned file and no import probes it")
    importers = sorted(ctx.facts.package_importers(path) - {path}) if is_source(path) else []
    if importers and _known_to_git(path, ctx):  # a deleted source of a package imported by name only
        state = "not on disk" if ctx.ref is None else f"deleted since {ctx.ref}"
        what = f"{state}, a source of a workspace package {_count(len(importers), 'file')} import by name"
        return _named(path, DELETED, what, importers)
    prefix = path.rstrip("/") + "/"
    probing = sorted({f for dep, fs in deps.items() if dep.startswith(prefix) for f in fs if not f.startswith(prefix)})
    if probing:  # a deleted folder whose files are already out of the facts
        return _named(path, DELETED, f"deleted folder, named by the imports of {_count(len(probing), 'file')}", probing)
    if _known_to_git(path, ctx):  # git listed it (its blob may be absent here), or HEAD has it
        since = f" since {ctx.ref}" if ctx.ref is not None else ""
        return Change(path, OUTSIDE, f"deleted{since}, never scanned and no import probes it")
    return None


def _named(path: str, kind: str, detail: str, importers: Sequence[str]) -> Change:
    """A change of ``path`` alone that touches each of ``importers`` (the files whose imports name or probe it)."""
    return Change(path, kind, detail, changed=(path,), touches=tuple((f, path) for f in importers))


def _deleted(path: str, what: str, readers: Iterable[str], ctx: Context) -> Change:
    """A deleted ``path`` (``what`` says how it is known), named by the imports of ``readers`` and of the files
    importing by name a workspace package it stands for."""
    importers = [f for f in sorted(set(readers) | ctx.facts.package_importers(path)) if f != path]
    return _named(path, DELETED, f"{what}, named by the imports of {_count(len(importers), 'file')}", importers)


def _through_link(path: str, ctx: Context) -> Change | None:
    """A path that reaches a scanned file or folder through a symlink (the scan knows files by their
    real path): what its real path is, plus the files whose imports named the link itself."""
    if not ctx.exists(path):
        return None
    real = os.path.relpath(os.path.realpath(ctx.src / path), ctx.src).replace(os.sep, "/")
    if real == path or not _inside_src(real) or real == "." or in_facts_dir(real, ctx):
        return None
    target = classify_one(real, ctx)
    if target is None or target.kind not in (SOURCE, FOLDER):
        return None
    deps = ctx.deps_index()
    prefix = path.rstrip("/") + "/"
    probing = sorted({f for dep, fs in deps.items() if dep == path or dep.startswith(prefix) for f in fs})
    return Change(
        path,
        target.kind,
        f"{'symlink to' if os.path.islink(ctx.src / path) else 'through a symlink,'} {real} ({target.detail})"
        + (f", named by the imports of {_count(len(probing), 'file')}" if probing else ""),
        changed=target.changed + (path,),
        touches=target.touches + tuple((f, path) for f in probing if f != path),
    )


def _known_to_git(path: str, ctx: Context) -> bool:
    """Evidence that a path not on disk existed (a typo never did): git listed it against REF, or HEAD has it."""
    return ctx.ref is not None or (ctx.git is not None and ctx.git.knows("HEAD", path))


def _config_change(path: str, ctx: Context, readers: list[str]) -> Change:
    """A package.json, workspace list or tsconfig (or a base one extends): the files whose resolution
    read it, plus what it governs.  A file whose tsconfig lookup only checked the config and found it
    did not take the file (``tsconfig-scope:`` + the key) counts only when the config now takes it,
    or took it at --git-base REF: then it is one of the files the config governs."""
    base = posixpath.basename(path)
    touched: dict[str, str] = {f: "resolution" for f in readers if f != path}
    notes: list[str] = [f"read by the resolution of {_count(len(touched), 'file')}"]
    deps = ctx.deps_index()
    if base == "package.json":
        notes.extend(_package_json_notes(path, ctx, touched))
    elif base in WORKSPACE_FILES:  # which folder a bare name means may change for any of them
        bare = {f for dep, fs in deps.items() if dep.startswith(PACKAGE_DEP) for f in fs} - {path}
        for f in bare:
            touched.setdefault(f, "workspace")
        notes = [f"workspace list: every file with a bare import counts ({_count(len(touched), 'file')})"]
    else:  # a tsconfig, or a base one extends: every file the configs using it govern (or governed at REF)
        scope = ctx.scopes().scope(path)
        files = set(scope.files)
        before = _config_at_ref(path, ctx)
        if before is not None:
            files |= ctx.scopes_with(path, before).scope(path).files
        for f in files:
            touched.setdefault(f, "governed")
        users = [c for c in scope.configs if c != path]
        through = f", through {_count(len(users), 'tsconfig')} using it ({_names(users, 3)})" if users else ""
        more = len(files) - len(scope.files)
        at_ref = f" (+{more} it governed at {ctx.ref})" if more else ""
        notes.append(f"tsconfig: governs {_count(len(scope.files), 'file')}{at_ref}{through}")
    return Change(
        path, CONFIG, "config, " + "; ".join(notes), changed=(path,), touches=tuple((f, path) for f in sorted(touched))
    )


def _config_at_ref(path: str, ctx: Context) -> dict | None:
    """The tsconfig at ``path`` as it was at --git-base REF, parsed as tsc parses it; None without a
    REF, when it did not exist there or does not parse, or when it is unchanged."""
    from rofl.scanner.configs import MAX_NESTING, nesting_depth
    from rofl.scanner.jsonc import parse_tsconfig

    old = ctx.old_bytes(path)
    if old is None or old == ctx.new_bytes(path) or nesting_depth(old) > MAX_NESTING:
        return None
    try:
        return parse_tsconfig(old.decode("utf-8-sig"), MAX_NESTING)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _package_json_notes(path: str, ctx: Context, touched: dict[str, str]) -> list[str]:
    """What a package.json governs beyond the files whose resolution read it: the files of its package
    scope (not those of a package nested in it) when its ``type`` changed, the files its name resolves
    for when it is a workspace member (a package.json outside the member globs is no target of its
    name: a test fixture named ``typescript`` is not what ``import ts from "typescript"`` means), and
    the importers in its scope of the dependencies it declares that changed."""
    from rofl.scanner.workspaces import membership

    folder = _folder_of(path)
    deps = ctx.deps_index()
    notes: list[str] = []
    scopes = ctx.package_scopes() | {folder}
    governed = [f for f in ctx.under(folder) if _scope_of(f, scopes) == folder]
    member = membership(str(ctx.src), ctx.store()).holds("" if folder == "." else folder)
    new_bytes = ctx.new_bytes(path)
    new, old = package_json_text(new_bytes), package_json_text(ctx.old_bytes(path))
    names = {m["name"] for m in (new, old) if m is not None and isinstance(m.get("name"), str)}
    for recorded in (ctx.manifest.packages, ctx.before.packages):  # the name it had
        names.update(n for n, f in recorded.items() if (f or ".") == folder)
    if not governed:
        notes.append("package scope holding no scanned file")
    elif _module_format_changed(new, old, ctx.ref is not None):  # "type" decides how each of its files loads
        for f in governed:
            touched.setdefault(f, "package scope")
        since = f" since {ctx.ref}" if ctx.ref is not None else " (no --git-base: counts as changed)"
        notes.append(f"its type{since} sets the module format of {_count(len(governed), 'scanned file')}")
    if names and member:  # files whose bare imports name this package (the workspace links members by name)
        by_name = {f for name in names for f in deps.get(PACKAGE_DEP + name, ()) if f != path}
        for f in by_name:
            touched.setdefault(f, "package name")
        notes.append(f"workspace package {_names(names, 2)}, imported by name by {_count(len(by_name), 'file')}")
    elif names:
        notes.append(f"{_names(names, 2)} is no workspace member: no import of that name resolves to it")
    if ctx.ref is not None:
        changed = changed_declarations(declared_ranges(ctx.old_bytes(path)), declared_ranges(new_bytes))
        how = f"{_count(len(changed), 'dependency')} changed since {ctx.ref}"
    else:
        changed = changed_declarations({}, declared_ranges(new_bytes))
        how = f"no --git-base: all {_count(len(changed), 'declared dependency')} count as changed"
    importers = {f for f in _importers_of(changed, ctx, folder) if _scope_of(f, scopes) == folder}
    for f in importers:
        touched.setdefault(f, "dependency")
    notes.append(
        f"{how}" + (f" ({_names(changed, 4)})" if changed else "") + f", imported by {_count(len(importers), 'file')}"
    )
    return notes


def _module_format_changed(new: dict | None, old: dict | None, against_git: bool) -> bool:
    """Whether a package.json's ``type`` (ESM or CommonJS for the files of its scope) may have changed:
    it differs from REF's, or, with nothing to compare with, the file declares one."""
    if against_git:
        return (new or {}).get("type") != (old or {}).get("type")
    return new is not None and "type" in new


def _scope_of(path: str, scopes: set[str]) -> str | None:
    """The package scope of a file: the nearest folder above it holding a package.json."""
    folder = posixpath.dirname(path)
    while True:
        if (folder or ".") in scopes:
            return folder or "."
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def _lock_change(path: str, ctx: Context) -> Change:
    """Files importing a package whose locked version changed, or that requires (transitively) one
    that did; every file importing a package when there is nothing to compare with."""
    folder = _folder_of(path)
    if ctx.ref is None:
        importers = _all_external_importers(ctx, folder)
        detail = f"lock file, no --git-base to compare with: every file importing a package counts ({_count(len(importers), 'file')})"
        return Change(path, LOCK, detail, changed=(path,), touches=tuple((f, path) for f in sorted(importers)))
    before = parse_lock(path, ctx.old_bytes(path))
    after = parse_lock(path, ctx.new_bytes(path))
    if before is None or after is None:
        importers = _all_external_importers(ctx, folder)
        detail = f"lock file that cannot be read (here or at {ctx.ref}): every file importing a package counts ({_count(len(importers), 'file')})"
        return Change(path, LOCK, detail, changed=(path,), touches=tuple((f, path) for f in sorted(importers)))
    direct = changed_packages(before.versions, after.versions) or set()
    changed = with_dependents(direct, before, after)
    importers = _importers_of(changed, ctx, folder)
    imported = {p for p in changed if _importers_of((p,), ctx, folder)}
    detail = f"lock file, {_count(len(direct), 'package')} locked differently since {ctx.ref}"
    if len(changed) > len(direct):
        detail += f" (+{len(changed) - len(direct)} requiring them)"
    detail += f", {_count(len(imported), 'imported one')} ({_names(imported, 4)})" if imported else ", none imported"
    detail += f": {_count(len(importers), 'file')}"
    return Change(path, LOCK, detail, changed=(path,), touches=tuple((f, path) for f in sorted(importers)))


def classify(paths: list[str], ctx: Context) -> tuple[list[Change], list[str]]:
    """Each path's Change, and the paths that exist nowhere (for the caller to refuse)."""
    seen: dict[str, Change] = {}
    missing: list[str] = []
    for raw in paths:
        path = normalise(raw, ctx)
        if not path.strip():
            missing.append(raw)
            continue
        if path in seen:
            continue
        change = classify_one(path, ctx)
        if change is None:
            missing.append(raw)
        else:
            seen[path] = change
    return sorted(seen.values(), key=lambda c: c.path), missing


MAX_MANIFEST_FILE_BYTES = 1 << 28  # a package.json or lock file read for its declarations (real ones: megabytes)
MAX_SIBLINGS = 2000  # entries read from the folder a mistyped path names


def suggestions(raw: str, ctx: Context, limit: int = 3) -> list[str]:
    """The existing paths closest to a path that exists nowhere (scanned files, their folders, configs,
    and what lies on disk in the folder it names: a README.md or a lock file is no scanned file)."""
    candidates: set[str] = set(ctx.files)
    for p in ctx.files:
        folder = posixpath.dirname(p)
        while folder:
            candidates.add(folder)
            folder = posixpath.dirname(folder)
    candidates.update(k for k, v in ctx.manifest.configs.items() if v is not None)
    target = posixpath.normpath(raw.replace("\\", "/"))
    folder = posixpath.dirname(target)
    if _inside_src(target) and _real_folder_inside(ctx.src, folder):
        try:
            with os.scandir(ctx.src / folder) as entries:
                for _, entry in zip(range(MAX_SIBLINGS), entries, strict=False):
                    rel = posixpath.join(folder, entry.name) if folder else entry.name
                    if not in_facts_dir(rel, ctx):
                        candidates.add(rel)
        except OSError:
            pass
    close = difflib.get_close_matches(target, sorted(candidates), n=limit, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(posixpath.basename(target), sorted(candidates), n=limit, cutoff=0.5)
    return close
