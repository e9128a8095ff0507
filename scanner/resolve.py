"""Module resolution as Node and TypeScript do it, answering against the set of scanned files.

A specifier resolves to scanned files and assets (``targets``), to an external package, to a
workspace package none of whose files could be found (``workspace``), or to nothing
(``unresolved``).  Every answer comes with what it depended on: each candidate path probed (found
or not), each config file read or looked for, each asset path checked on disk, and
``package:<name>`` for bare specifiers (so that a workspace package appearing under that name
re-resolves the importer).

* A ``?query`` or ``#hash`` suffix is cut before resolving (``./w.js?worker``); a leading ``#`` is
  a package import.
* relative (``./``, ``../``, ``.``, ``..``): a ``.js``/``.jsx``/``.mjs``/``.cjs`` specifier first tries
  the TypeScript sources it names (``.ts .tsx .d.ts`` / ``.tsx .ts .d.ts`` / ``.mts .d.mts`` /
  ``.cts .d.cts``), a ``.ts``/``.tsx``/``.mts``/``.cts`` one the path and then what TypeScript tries
  in its place (``./x.ts`` is ``x.d.ts`` when only that exists), then the path as written, then the
  path plus ``.ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts``; then a file that exists at the path as
  written but is not scanned: a symlink to a scanned file (its real path is the target) or an asset
  (css, json, svg, ...); then the path as a folder: its package.json ``types``/``typings``/``main``,
  then ``index.*``; then, for a path into a package's build output (``../dist/core/x.js`` from the
  package's test; the package is the scope of the path's folder), the source it was built from,
  mapped as below.  When that finds a declaration file, the runtime file beside it (``x.js`` for
  ``x.d.ts``, ``X.svelte`` for ``X.svelte.d.ts``) is a second target; so is ``x.js`` itself when
  ``./x.js`` led to ``x.ts`` and both are scanned, and the declaration TypeScript reads for a
  component named as written (``X.svelte.d.ts`` for ``./X.svelte``; ``scanner.probe``).
* ``#name``: tsconfig ``paths`` first, then the ``imports`` of the nearest package.json above the
  importer (Node's package scope), under the condition set.
* bare: the governing tsconfig's ``paths`` (longest matching pattern), then its ``baseUrl``; then the
  package Node finds from the importer, through its package scope (the nearest package.json): the
  scope itself when it is named so and has ``exports`` (self-reference, as Node and TypeScript need
  it), else the scope's declared dependency on the name (``scanner.dependencies``: a ``file:``,
  ``link:`` or ``workspace:`` path is that folder, a ``workspace:alias@*`` the member ``alias``),
  else the workspace member of that name (the workspace links every member; the first in path
  order when two share it).  A package folder that is no member and that no dependency names is
  never the target of its name (a test fixture named ``typescript``), and a nested package is its
  own package.  In the package: its ``exports`` under the condition set, or without ``exports`` its
  ``types``, ``typings``, ``module``, ``main`` fields, then (not for the repository's own
  package.json at SRC, which is only its entry fields) its index; or the subpath itself.  A target that is not a scanned
  file is build output mapped to the source it is built from (``Resolver._build_map``): through
  the configs that build the package (its tsconfig.json and the configs its ``references`` lead to
  inside the package, e.g. a solution file's ``tsconfig.src.json``, then ``tsconfig.build.json``,
  ``tsconfig.lib.json``, ``tsconfig.src.json``, ``tsconfig.esm.json``, ``tsconfig.cjs.json``,
  ``tsconfig.prod.json``), ``outDir`` or ``declarationDir`` -> ``rootDir`` (``${configDir}``
  expanded; without a ``rootDir``: the config's folder when ``composite``, the common folder of its
  ``files``/``include``, the package's ``src``, the package), e.g. ``dist/esm/index.js`` ->
  ``src/index.ts``; else, for a path in a build folder (``dist``, ``lib``, ``build``, ``out``,
  ``esm``, ``cjs``, ...), the one module with its stem (``Resolver._same_stem``:
  ``dist/esm/x.mjs`` -> ``src/x.ts`` or ``x.ts``, never a guess between two).  A workspace
  package where none of this finds a file is a ``workspace`` answer, never external; the
  repository's own package is then unresolved (with a reason), never the whole tree.  Anything else
  is external: the package is the first segment, or ``@scope/name``; ``node:fs`` (and
  ``node:fs/promises``) is package ``node:fs`` and a bare builtin like ``fs`` is package ``fs``.
* The condition set is the governing tsconfig's ``customConditions`` plus ``types``, ``import``,
  ``require``, ``node``, ``default`` and ``module``; a ``.cjs``/``.cts`` importer drops ``import`` and
  a ``.mjs``/``.mts`` importer drops ``require`` (it can only use the other).  A declaration that
  ``types`` leads to gets the runtime file a later condition or field names as a second target.
  That set is what a bundler or Node reads; tsc reads ``exports`` with fewer conditions
  (``typescript_conditions``: ``types``, ``import``/``require``, ``default`` and the custom
  conditions, no ``node`` or ``module``; and that with ``import`` only, as under ``moduleResolution:
  bundler``).  Only where one of those sets leads to another file (``{"module": "./true.js",
  "default": "./false.js"}``: rofl's set takes ``true.js``, tsc's ``false.js``) are both targets, so
  that a change to either reaches the importer (conservative: impact never misses the file tsc
  type-checks against).  Every path probed for either answer is recorded.
* absolute paths, URLs and empty specifiers are unresolved.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from rofl.scanner.configs import ConfigStore
from rofl.scanner.dependencies import declared
from rofl.scanner.files import is_source
from rofl.scanner.package_exports import export_targets, import_targets
from rofl.scanner.probe import DECLARATION_RUNTIME, EXTENSIONS, file_candidates, probe_file, probe_index, with_runtime
from rofl.scanner.tsconfig import PACKAGE_DEP, TsConfig, TsConfigFinder
from rofl.scanner.workspaces import PACKAGE_JSON, PNPM_WORKSPACE, Membership, membership

BASE_CONDITIONS = frozenset({"types", "import", "require", "node", "default", "module"})
# a .cjs/.cts file can only require(), a .mjs/.mts file only import: the other condition does not apply
MODE_OF_SUFFIX = {".cjs": "require", ".cts": "require", ".mjs": "import", ".mts": "import"}
PACKAGE_FIELDS = ("types", "typings", "module", "main")
MEMBERSHIP_KEYS = (PACKAGE_JSON, PNPM_WORKSPACE)  # the root package.json and pnpm-workspace.yaml name the members
ROOT_UNFOUND = "the repository's own package.json names no scanned file in its exports or main fields"
# the configs a package may build with besides what its tsconfig.json references (a small fallback list)
BUILD_CONFIGS = (
    "tsconfig.json",
    "tsconfig.build.json",
    "tsconfig.lib.json",
    "tsconfig.src.json",
    "tsconfig.esm.json",
    "tsconfig.cjs.json",
    "tsconfig.prod.json",
)
MAX_BUILD_CONFIGS = 32  # configs read per package through references
# the first folder of a build output path, and the folders a build nests under it (dist/esm/x.js)
BUILD_DIRS = frozenset({"dist", "lib", "build", "out", "output", "esm", "cjs", "es", "mjs", "types", "umd", "module"})
BUILD_SUBDIRS = frozenset({"esm", "cjs", "es", "mjs", "types", "typings", "umd", "module", "commonjs", "dts", "lib"})
# what a build file's stem may have been compiled from: TypeScript anywhere, JavaScript only under src/
# (a JavaScript or declaration file beside the build folder is an entry stub that points into it)
BUILD_OUTPUT_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx")
STEM_TS = (".ts", ".tsx", ".mts", ".cts")
STEM_JS = (".js", ".jsx", ".mjs", ".cjs")


Governing = tuple[TsConfig | None, tuple[str, ...]]  # the importer's tsconfig and the config keys that chose it


@dataclass(frozen=True, slots=True)
class Resolution:
    """What one specifier resolves to; ``kind`` tells which of the fields answers."""

    specifier: str
    targets: tuple[str, ...] = ()  # scanned files and assets, relative to SRC, sorted
    assets: tuple[str, ...] = ()  # the targets that are not scanned sources
    package: str | None = None  # the external package
    workspace: str | None = None  # the folder of a workspace package none of whose files was found
    reason: str | None = None  # why an unresolved specifier could not even be looked for

    @property
    def kind(self) -> str:
        if self.targets:
            return "file"
        if self.workspace is not None:
            return "workspace"
        return "external" if self.package is not None else "unresolved"


@dataclass(frozen=True, slots=True)
class Found:
    """Targets a path led to: scanned files, or one asset."""

    targets: tuple[str, ...]
    asset: bool = False


def typescript_conditions(conditions: frozenset[str]) -> tuple[frozenset[str], ...]:
    """The condition sets TypeScript may read ``exports`` with where rofl uses ``conditions`` (never ``conditions``).

    Without ``node`` and ``module`` (tsc has neither under ``moduleResolution: bundler``), and that
    with only ``import`` of ``import``/``require`` (an ESM importer under ``bundler``)."""
    typescript = conditions - {"node", "module"}
    sets = (typescript, typescript - {"require"} if "import" in typescript else typescript)
    unique: list[frozenset[str]] = []
    for candidate in sets:
        if candidate != conditions and candidate not in unique:
            unique.append(candidate)
    return tuple(unique)


def _union(found: Found | None, other: Found | None) -> Found | None:
    """The targets of both answers (an asset answer stays as it is: one asset, no files beside it)."""
    if found is None:
        return other
    if other is None or found.asset or other.asset or found.targets == other.targets:
        return found
    return Found(tuple(sorted({*found.targets, *other.targets})))


def package_name(spec: str) -> str:
    """The package a bare specifier names: ``@scope/name`` or its first segment."""
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) > 1:
        return parts[0] + "/" + parts[1]
    return parts[0]


def is_relative(spec: str) -> bool:
    return spec in (".", "..") or spec.startswith(("./", "../"))


def request_path(spec: str) -> str:
    """The specifier without its ``?query`` or ``#hash`` suffix (a leading ``#`` is kept)."""
    start = 1 if spec.startswith("#") else 0
    cut = len(spec)
    for mark in "?#":
        at = spec.find(mark, start)
        if at != -1 and at < cut:
            cut = at
    return spec[:cut]


MAX_SPECIFIER = 4096  # PATH_MAX: no longer specifier names a file


def unnameable(spec: str) -> str | None:
    """Why ``spec`` cannot name a file (a NUL, a lone surrogate, too long), or None when it may."""
    if "\0" in spec:
        return "specifier holds a NUL character, which no file name can"
    if len(spec) > MAX_SPECIFIER:
        return f"specifier is {len(spec)} characters long, over the {MAX_SPECIFIER} a path may have"
    try:
        spec.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"specifier holds a lone surrogate (U+{ord(spec[err.start]):04X}), which no file name can"
    return None


def _outside(rel: str) -> bool:
    return rel == ".." or rel.startswith("../")


WILDCARDS = frozenset("*?[")


def _common_folder(inputs: tuple[str, ...] | None) -> str | None:
    """The common folder of absolute ``files``/``include`` specs' literal prefixes: the segments before
    the first wildcard, a spec's last segment dropped when it is a file (it has an extension) or a
    wildcard.  ``None`` when there is no spec (``files: []`` alone)."""
    folders: list[str] = []
    for spec in inputs or ():
        segments = spec.replace("\\", "/").split("/")
        literal: list[str] = []
        for segment in segments:
            if WILDCARDS & set(segment):
                break
            literal.append(segment)
        if len(literal) == len(segments) and "." in segments[-1]:
            literal = literal[:-1]  # a file: its folder
        folders.append("/".join(literal) or "/")
    if not folders:
        return None
    try:
        return os.path.commonpath(folders)
    except ValueError:
        return None


class Resolver:
    """Resolves specifiers of files under ``src`` against ``files``; memoised per (folder, specifier)."""

    def __init__(
        self,
        src: str,
        files: frozenset[str],
        packages: dict[str, str],
        store: ConfigStore,
        build_mapping: bool = True,
    ) -> None:
        self.src = src
        self.build_mapping = build_mapping  # off: a package's build output is not mapped back to its sources
        self.files = files
        self.packages = packages  # workspace package name -> folder relative to SRC ("" for SRC)
        self.store = store
        self._tsconfigs = TsConfigFinder(store, src, packages)
        self._memo: dict[tuple[str, str, str, tuple[str, ...]], tuple[Resolution, tuple[str, ...]]] = {}
        self._package_memo: dict[tuple[str, str, frozenset[str]], tuple[Found | None, tuple[str, ...]]] = {}
        self._scopes: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        self._builds: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {}
        self._real_root = os.path.realpath(src)
        self._membership: Membership | None = None

    # -- entry points ----------------------------------------------------------------------------

    def resolve_all(self, importer: str, specs: tuple[str, ...] | list[str]) -> tuple[list[Resolution], list[str]]:
        """Resolutions for each specifier of ``importer`` and the sorted union of their dependencies."""
        folder = posixpath.dirname(importer)
        mode = MODE_OF_SUFFIX.get(posixpath.splitext(importer)[1], "")
        results: list[Resolution] = []
        deps: set[str] = set()
        governing: Governing | None = None
        for spec in specs:
            if is_relative(request_path(spec)):
                key: tuple[str, str, str, tuple[str, ...]] = (folder, spec, mode, ())  # no tsconfig is read
                config: Governing = (None, ())
            else:
                if governing is None:  # the importer's tsconfig, as tsserver picks it (only a bare name reads it)
                    governing = self._tsconfigs.for_file(os.path.join(self.src, importer))
                config = governing
                key = (folder, spec, mode, governing[1])
            known = self._memo.get(key)
            if known is None:
                probed: list[str] = []
                problem = unnameable(spec)
                if problem is None:
                    try:
                        result = self._resolve(folder, spec, mode, probed, config)
                    except (OSError, ValueError) as err:  # a config value that names no file, a path too long
                        result = Resolution(spec, reason=f"resolution failed: {type(err).__name__}: {err}")
                        probed = [p for p in probed if unnameable(p) is None]
                else:
                    result = Resolution(spec, reason=problem)
                known = self._memo[key] = (result, tuple(probed))
            results.append(known[0])
            deps.update(known[1])
        return results, sorted(deps)

    # -- the cases ---------------------------------------------------------------------------------

    def _resolve(self, folder: str, spec: str, mode: str, probed: list[str], governing: Governing) -> Resolution:
        path = request_path(spec)
        if path != spec and spec[len(path)] == "#" and not spec.startswith("#"):
            # require() reads "#" literally (folders named "#" exist): a file there wins over the cut path
            literal = self._resolve_path(folder, spec, spec, mode, probed, governing)
            if literal.kind == "file":
                return literal
        return self._resolve_path(folder, spec, path, mode, probed, governing)

    def _resolve_path(
        self, folder: str, spec: str, path: str, mode: str, probed: list[str], governing: Governing
    ) -> Resolution:
        if not path or path.startswith("/"):
            return Resolution(spec)
        if path.startswith("#"):
            return self._resolve_import(folder, spec, path, mode, probed, governing)
        if is_relative(path):
            base = posixpath.normpath(posixpath.join(folder, path))
            if path.endswith("/") or _outside(base):
                return _answer(spec, self._locate(base, probed, directory_only=True))
            # files first, then what exists at the path (an asset: no folder can be there), then the folder
            found = (
                self._locate(base, probed, directory_only=False, folder=False)
                or self._on_disk(base, probed)
                or self._probe_folder(base, probed)
                or self._linked(base, probed)
                or self._own_build(base, probed)
            )
            return _answer(spec, found)
        if path.startswith("node:"):
            return Resolution(spec, package=path.split("/")[0])  # node:fs/promises is package node:fs
        if ":" in path.split("/")[0] or "\\" in path:
            return Resolution(spec)
        return self._resolve_bare(folder, spec, path, mode, probed, governing)

    @staticmethod
    def _conditions(config: TsConfig | None, mode: str) -> frozenset[str]:
        conditions = BASE_CONDITIONS | frozenset(config.custom_conditions) if config is not None else BASE_CONDITIONS
        if mode:
            conditions = conditions - {"import" if mode == "require" else "require"}
        return conditions

    def _resolve_bare(
        self, folder: str, spec: str, path: str, mode: str, probed: list[str], governing: Governing
    ) -> Resolution:
        config, config_keys = governing
        probed.extend(config_keys)
        if config is not None:
            found = self._via_tsconfig(config, path, probed)
            if found is not None:
                return _answer(spec, found)
        name = package_name(path)
        probed.append(PACKAGE_DEP + name)
        package_dir = self._package_dir(folder, name, probed)
        if package_dir is None:
            return Resolution(spec, package=name)
        subpath = "." + path[len(name) :] if path != name else "."
        found = self._in_package(package_dir, subpath, self._conditions(config, mode), probed)
        if found is not None:
            return _answer(spec, found)
        if package_dir == "":
            return Resolution(spec, reason=ROOT_UNFOUND)
        return Resolution(spec, workspace=package_dir)

    def _package_dir(self, folder: str, name: str, probed: list[str]) -> str | None:
        """The folder of the package a bare ``name`` imported from ``folder`` is, as Node finds it; None: external.

        The importer's package scope first: itself when it is named ``name`` and has ``exports``
        (self-reference); then its declared dependency on ``name`` (a path it names, or the workspace
        member of the name it means); then the workspace member of that name (the workspace links
        every member).  A package folder that is no member and that no dependency names is never it.
        """
        scope, scope_keys = self._scope(folder)
        probed.extend(scope_keys)
        data = self.store.read(os.path.join(self.src, scope, "package.json")) if scope is not None else None
        if scope is not None and isinstance(data, dict) and data.get("name") == name and "exports" in data:
            return scope  # a package importing its own name (Node and TypeScript need its "exports")
        dependency = declared(data, name)
        if dependency is not None and dependency.folder is not None:
            return self._linked_package(scope or "", dependency.folder, probed)
        wanted = dependency.name if dependency is not None and dependency.name is not None else name
        if wanted != name:
            probed.append(PACKAGE_DEP + wanted)
        member = self.packages.get(wanted)
        if member is None:
            return None  # a package of that name appearing changes PACKAGE_DEP + wanted
        probed.extend(MEMBERSHIP_KEYS)  # membership decides whether the folder of that name is its target
        return member if self._members().holds(member) else None

    def _linked_package(self, scope: str, target: str, probed: list[str]) -> str | None:
        """The package folder a ``file:``/``link:``/``workspace:`` path of the package at ``scope`` names, inside SRC."""
        if target.startswith("/") or "\\" in target or unnameable(target) is not None:
            return None
        package_dir = posixpath.normpath(posixpath.join(scope, target))
        if _outside(package_dir):
            return None
        package_dir = "" if package_dir == "." else package_dir
        key = posixpath.join(package_dir, "package.json") if package_dir else "package.json"
        probed.append(key)
        if not isinstance(self.store.read(os.path.join(self.src, key)), dict):
            return None
        return package_dir

    def _members(self) -> Membership:
        if self._membership is None:
            self._membership = membership(self.src, self.store)
        return self._membership

    def _resolve_import(
        self, folder: str, spec: str, path: str, mode: str, probed: list[str], governing: Governing
    ) -> Resolution:
        """A ``#name`` specifier: tsconfig ``paths`` first (as TypeScript), then the ``imports`` of the package scope."""
        config, config_keys = governing
        probed.extend(config_keys)
        if config is not None and config.paths:
            found = self._via_tsconfig(config, path, probed, base_url=False)
            if found is not None:
                return _answer(spec, found)
        scope, scope_keys = self._scope(folder)
        probed.extend(scope_keys)
        if scope is None:
            return Resolution(spec)
        data = self.store.read(os.path.join(self.src, scope, "package.json"))
        if not isinstance(data, dict):
            return Resolution(spec)
        for target in import_targets(data.get("imports"), path, self._conditions(config, mode)):
            if target.startswith("./"):
                found = self._package_target(scope, target, probed)
                if found is not None:
                    return _answer(spec, found)
                continue
            answer = self._resolve_bare(scope, spec, request_path(target), mode, probed, governing)
            if answer.kind != "unresolved":
                return answer
        return Resolution(spec)

    def _scope(self, folder: str) -> tuple[str | None, tuple[str, ...]]:
        """The nearest folder at or above ``folder`` (inside SRC) with a package.json, and the keys looked at.

        A package scope is a regular file named package.json (one that is not valid JSON too), never a
        folder of that name (a route folder of a file-system router)."""
        known = self._scopes.get(folder)
        if known is not None:
            return known
        key = posixpath.join(folder, "package.json") if folder not in ("", ".") else "package.json"
        absolute = os.path.join(self.src, key)
        if self.store.read(absolute) is not None or os.path.isfile(absolute):  # read, or there but not JSON
            answer: tuple[str | None, tuple[str, ...]] = ("" if folder in ("", ".") else folder, (key,))
        elif folder in ("", "."):
            answer = (None, (key,))
        else:
            parent, keys = self._scope(posixpath.dirname(folder))
            answer = (parent, (key, *keys))
        self._scopes[folder] = answer
        return answer

    def _via_tsconfig(self, config: TsConfig, spec: str, probed: list[str], base_url: bool = True) -> Found | None:
        best: tuple[int, str, tuple[str, ...]] | None = None
        for pattern, targets in config.paths:
            if "*" in pattern:
                head, _, tail = pattern.partition("*")
                if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
                    star = spec[len(head) : len(spec) - len(tail)]
                    if best is None or len(head) > best[0]:
                        best = (len(head), star, targets)
            elif pattern == spec:
                best = (len(pattern) + 1 << 16, "", targets)
                break
        if best is not None:
            for target in best[2]:
                found = self._locate_absolute(os.path.join(config.paths_base, target.replace("*", best[1])), probed)
                if found is not None:
                    return found
        if config.base_url is not None and base_url:
            last = spec.rsplit("/", 1)[-1]
            return self._locate_absolute(os.path.join(config.base_url, spec), probed, on_disk="." in last)
        return None

    # -- packages ----------------------------------------------------------------------------------

    def _in_package(
        self, package_dir: str, subpath: str, conditions: frozenset[str], probed: list[str]
    ) -> Found | None:
        key = (package_dir, subpath, conditions)
        known = self._package_memo.get(key)
        if known is None:
            own: list[str] = []
            known = self._package_memo[key] = (self._search_package(package_dir, subpath, conditions, own), tuple(own))
        probed.extend(known[1])
        return known[0]

    def _search_package(
        self, package_dir: str, subpath: str, conditions: frozenset[str], probed: list[str]
    ) -> Found | None:
        manifest_key = posixpath.join(package_dir, "package.json") if package_dir else "package.json"
        probed.append(manifest_key)
        data = self.store.read(os.path.join(self.src, manifest_key))
        if not isinstance(data, dict):
            data = {}
        exports = data.get("exports")
        if exports is not None:
            candidates = list(export_targets(exports, subpath, conditions))
            found = self._first_package_target(package_dir, candidates, probed)
            tried = [candidates]
            for narrower in typescript_conditions(conditions):
                other = list(export_targets(exports, subpath, narrower))
                if other not in tried:  # TypeScript's conditions lead elsewhere: name both
                    tried.append(other)
                    found = _union(found, self._first_package_target(package_dir, other, probed))
            return found
        if subpath == ".":
            candidates = [data[f] for f in PACKAGE_FIELDS if isinstance(data.get(f), str) and data[f]]
            if package_dir:  # the repository's own package is its entry fields, never its index or the whole tree
                candidates.append(".")
        else:
            candidates = [subpath]
        return self._first_package_target(package_dir, candidates, probed)

    def _first_package_target(self, package_dir: str, candidates: list[str], probed: list[str]) -> Found | None:
        """The first of ``candidates`` (paths in the package) that leads to a file, with its runtime twin."""
        for index, target in enumerate(candidates):
            found = self._package_target(package_dir, target, probed)
            if found is not None:
                return self._with_package_runtime(package_dir, found, candidates[index + 1 :], probed)
        return None

    def _with_package_runtime(self, package_dir: str, found: Found, rest: list[str], probed: list[str]) -> Found:
        """A declaration found through ``types`` plus the runtime file a later condition or field names."""
        if found.asset or not all(t.endswith(tuple(DECLARATION_RUNTIME)) for t in found.targets):
            return found
        for target in rest:
            more = self._package_target(package_dir, target, probed)
            if more is not None and not more.asset:
                runtime = [t for t in more.targets if not t.endswith(tuple(DECLARATION_RUNTIME))]
                if runtime:
                    return Found(tuple(sorted({*found.targets, *runtime})))
        return found

    def _package_target(self, package_dir: str, target: str, probed: list[str]) -> Found | None:
        """A path inside a package: a scanned file, its source through the build mapping, or an asset."""
        base = posixpath.normpath(posixpath.join(package_dir, target)) if package_dir else posixpath.normpath(target)
        if _outside(base):
            return None
        found = self._locate(base, probed, directory_only=target in (".", "./"))
        if found is not None:
            return found
        found = self._from_build(package_dir, base, probed)
        if found is not None:
            return found
        if not is_source(base):
            return self._on_disk(base, probed)
        return self._linked(base, probed)  # a build file that is not there stays unresolved

    def _from_build(self, package_dir: str, base: str, probed: list[str]) -> Found | None:
        """The source a build output path ``base`` of the package at ``package_dir`` was compiled from.

        Through the build map of the package's tsconfigs first; else, when ``base`` lies in a build
        folder (``dist/``, ``lib/``, ...), the one module with the same stem (``_same_stem``)."""
        if not self.build_mapping:
            return None
        for out_dir, root_dir in self._build_map(package_dir, probed):
            if base == out_dir or base.startswith(out_dir + "/") or out_dir == ".":
                rest = base if out_dir == "." else base[len(out_dir) + 1 :] if base != out_dir else "."
                mapped = posixpath.normpath(posixpath.join(root_dir, rest))
                found = self._locate(mapped, probed, directory_only=False, from_build=True)
                if found is not None:
                    return found
        return self._same_stem(package_dir, base, probed)

    def _same_stem(self, package_dir: str, base: str, probed: list[str]) -> Found | None:
        """The one scanned module that a build file with no tsconfig saying was built from.

        ``base`` relative to the package must start with a build folder (``BUILD_DIRS``); that and any
        build subfolders after it (``BUILD_SUBDIRS``: ``dist/esm/``) are dropped and the build suffix
        cut (``.d.ts``, ``.js``, ...): ``dist/esm/core/x.js`` is the stem ``core/x``.  The candidates
        are ``src/STEM`` and ``STEM`` with a TypeScript extension, or that folder's ``index``, and
        ``src/STEM`` with a JavaScript one (a JavaScript or declaration file beside the build folder is
        an entry stub pointing into it, never its source).  Only when the candidates found are one
        module (one path without its extension) is it the answer: never a guess between two."""
        prefix = package_dir + "/" if package_dir else ""
        if not base.startswith(prefix):
            return None
        parts = base[len(prefix) :].split("/")
        if len(parts) < 2 or parts[0] not in BUILD_DIRS:
            return None
        parts = parts[1:]
        while len(parts) > 1 and parts[0] in BUILD_SUBDIRS:
            parts = parts[1:]
        stem = "/".join(parts)
        for suffix in BUILD_OUTPUT_SUFFIXES:
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        if not stem or stem.endswith("/") or stem in (".", ".."):
            return None
        candidates: list[str] = []
        for folder, suffixes in (("src/", STEM_TS + STEM_JS), ("", STEM_TS)):
            module = prefix + folder + stem
            candidates.extend(module + ext for ext in suffixes)
            candidates.extend(module + "/index" + ext for ext in suffixes)
        hits: list[str] = []
        for candidate in candidates:
            probed.append(candidate)
            if candidate in self.files:
                hits.append(candidate)
        modules = {posixpath.splitext(hit)[0] for hit in hits}
        if len(modules) != 1:
            return None
        return self._with_runtime(hits[0], probed)

    def _own_build(self, base: str, probed: list[str]) -> Found | None:
        """A relative path into a package's own build output (``../dist/core/x.js`` from its test),
        mapped as that package's ``exports`` would be: the package is the scope of the path's folder."""
        if not self.build_mapping or base == "." or not is_source(base) and posixpath.splitext(base)[1]:
            return None
        package_dir, keys = self._scope(posixpath.dirname(base))
        probed.extend(keys)
        if package_dir is None or base == package_dir:
            return None
        return self._from_build(package_dir, base, probed)

    def _build_map(self, package_dir: str, probed: list[str]) -> tuple[tuple[str, str], ...]:
        """(build folder, source folder) pairs of the configs that build the package, relative to SRC.

        The configs: the package's tsconfig.json and every config its ``references`` lead to inside
        the package (a solution file with ``files: []``), then the fallback names of
        ``BUILD_CONFIGS`` (``tsconfig.build.json``, ...).  Each config's ``outDir`` and
        ``declarationDir`` map to its ``rootDir``; without one, to what TypeScript would compute,
        approximated: the config's own folder when ``composite`` is set, then the common folder of
        its ``files``/``include`` specs' literal prefixes (``include: ["src"]`` is ``src``), then the
        package's ``src``, then the package folder."""
        if not self.build_mapping:
            return ()
        known = self._builds.get(package_dir)
        if known is None:
            pairs: list[tuple[str, str]] = []
            keys: list[str] = []
            folder = os.path.normpath(os.path.join(self.src, package_dir))
            queue = [os.path.join(folder, BUILD_CONFIGS[0])]
            fallbacks = [os.path.join(folder, name) for name in BUILD_CONFIGS[1:]]
            seen: set[str] = set()
            while len(seen) < MAX_BUILD_CONFIGS:
                if not queue:
                    queue, fallbacks = [f for f in fallbacks if f not in seen], []
                    if not queue:
                        break
                path = queue.pop(0)
                if path in seen:
                    continue
                seen.add(path)
                config, config_keys = self._tsconfigs.at(path)
                keys.extend(config_keys)
                if config is None:
                    continue
                self._build_pairs(config, path, folder, pairs)
                queue[0:0] = [
                    r for r in config.references if r not in seen and self._builds_package(r, package_dir, keys)
                ]
            known = self._builds[package_dir] = (tuple(pairs), tuple(keys))
        probed.extend(known[1])
        return known[0]

    def _builds_package(self, config_path: str, package_dir: str, keys: list[str]) -> bool:
        """True when the referenced config at ``config_path`` lies in the package at ``package_dir`` (not in
        a package nested in it, nor outside it: a solution's reference to another package builds that one)."""
        rel = self._rel(os.path.dirname(config_path))
        if _outside(rel):
            return False
        scope, scope_keys = self._scope("" if rel == "." else rel)
        keys.extend(scope_keys)
        return scope == package_dir

    def _build_pairs(self, config: TsConfig, path: str, folder: str, pairs: list[tuple[str, str]]) -> None:
        """Append the (build folder, source folder) pairs of one config, relative to SRC, to ``pairs``."""
        outs = [out for out in (config.out_dir, config.declaration_dir) if out is not None]
        if not outs:
            return
        if config.root_dir:
            roots = [config.root_dir]
        else:
            roots = [os.path.dirname(path)] if config.composite else []
            common = _common_folder(config.inputs)
            roots.extend(r for r in (common, os.path.join(folder, "src"), folder) if r is not None)
        for out in outs:
            for root in roots:
                pair = (self._rel(out), self._rel(root))
                if not _outside(pair[0]) and not _outside(pair[1]) and pair[0] != pair[1] and pair not in pairs:
                    pairs.append(pair)

    def _rel(self, absolute: str) -> str:
        rel = os.path.relpath(os.path.normpath(absolute), self.src)
        return rel.replace(os.sep, "/") if os.sep != "/" else rel

    # -- probing -----------------------------------------------------------------------------------

    def _locate_absolute(self, absolute: str, probed: list[str], on_disk: bool = True) -> Found | None:
        rel = posixpath.normpath(self._rel(absolute))
        if _outside(rel):
            return None
        found = self._locate(rel, probed, directory_only=False)
        return found if found is not None or not on_disk else self._on_disk(rel, probed)

    def _locate(
        self, base: str, probed: list[str], directory_only: bool, from_build: bool = False, folder: bool = True
    ) -> Found | None:
        """The scanned file ``base`` names (as a file, then as a folder unless ``folder`` is off), recording every probe."""
        if _outside(base):
            return None  # outside SRC: never a scanned file
        if not directory_only and base != ".":
            hits = probe_file(base, self.files, probed, from_build)
            if hits:
                return Found(hits)
        return self._probe_folder(base, probed) if folder else None

    def _with_runtime(self, hit: str, probed: list[str]) -> Found:
        return Found(with_runtime(hit, self.files, probed))

    def _probe_folder(self, folder: str, probed: list[str]) -> Found | None:
        prefix = "" if folder == "." else folder + "/"
        manifest_path = os.path.join(self.src, prefix + "package.json")
        probed.append(prefix + "package.json")
        data = self.store.read(manifest_path)
        files = self.files
        if isinstance(data, dict):
            for field in ("types", "typings", "main"):
                entry = data.get(field)
                if isinstance(entry, str) and entry:
                    base = posixpath.normpath(prefix + entry)
                    if _outside(base):
                        continue
                    for candidate in file_candidates(base):
                        probed.append(candidate)
                        if candidate in files:
                            return self._with_runtime(candidate, probed)
        hits = probe_index(folder, files, probed)
        return Found(hits) if hits else None

    def _on_disk(self, base: str, probed: list[str]) -> Found | None:
        """A file that exists at ``base`` but is not scanned: a symlink to a scanned file, or an asset.

        Its signature is recorded (``ConfigStore.is_file``), so that it appearing, disappearing or
        changing re-resolves the importer.
        """
        if _outside(base) or base == ".":
            return None
        absolute = os.path.join(self.src, base)
        probed.append(base)
        if not self.store.is_file(absolute):
            return None
        real = self._real_path(absolute)
        if real is not None and real in self.files:
            return self._with_runtime(real, probed)
        return Found((real or base,), asset=True)  # an asset reached through a link is its real file

    def _real_path(self, absolute: str) -> str | None:
        """The path under SRC that a symlink (or a path through a linked folder) really is, else None."""
        real = os.path.realpath(absolute)
        if real == os.path.normpath(absolute) or not real.startswith(self._real_root + os.sep):
            return None
        rel = os.path.relpath(real, self._real_root)
        return rel.replace(os.sep, "/") if os.sep != "/" else rel

    def _real_target(self, absolute: str) -> str | None:
        """The scanned file a symlink (or a path through a linked folder) really is, else None."""
        real = self._real_path(absolute)
        return real if real is not None and real in self.files else None

    def _linked(self, base: str, probed: list[str]) -> Found | None:
        """``base`` (or it plus a source extension) naming, through a symlink, a scanned file (a path dedup dropped)."""
        for ext in ("", *EXTENSIONS):
            absolute = os.path.join(self.src, base + ext)
            if os.path.exists(absolute):
                real = self._real_target(absolute)
                if real is not None:
                    probed.append(base + ext)
                    self.store.is_file(absolute)  # recorded: removing the link re-resolves the importer
                    return self._with_runtime(real, probed)
        return None


def _answer(spec: str, found: Found | None) -> Resolution:
    if found is None:
        return Resolution(spec)
    return Resolution(spec, targets=found.targets, assets=found.targets if found.asset else ())
