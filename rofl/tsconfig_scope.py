"""Which scanned files a tsconfig governs (``files``/``include``/``exclude`` through ``extends`` and
``references``), and so which files a change to a tsconfig or to a base it extends affects.

A config governs the files ``tsc -p CONFIG`` takes as its inputs: its ``files`` (exact paths, kept
even when excluded), plus the files its ``include`` globs match (``**/*`` when it sets neither
``files`` nor ``include``) that no ``exclude`` glob matches (when it sets no ``exclude``: its
``outDir`` and ``declarationDir``; ``node_modules``, ``bower_components`` and ``jspm_packages`` are
never matched by a wildcard).  The globs are TypeScript's (``getSubPatternFromSpec`` of
``compiler/utilities.ts``, ported regex for regex): ``*`` and ``?`` stay inside one name and never
match a leading ``.``, ``**/`` spans folders but not dot-folders, a last segment without ``.``,
``*`` or ``?`` is a folder (everything under it), an include ending in ``**`` or with ``..`` after
``**`` is dropped as tsc drops it; a wildcard takes only TypeScript's extensions (``.js``/``.jsx``/
``.mjs``/``.cjs`` with ``allowJs``; a ``.vue``/``.svelte``/``.astro`` file when an include names that
extension), and of ``a.ts``/``a.tsx``/``a.d.ts``/``a.js`` in one folder only the first.  Each spec is
relative to the config that declares it, ``${configDir}`` to the config that uses it; a config
that does not set ``files``, ``include`` or ``exclude`` inherits that list whole from its ``extends``
(the last base that sets it wins; its own list replaces the base's, never merged with it).  A
solution config (no input of its own, as ``"files": []`` or ``"include": []`` with ``references``) governs what its
``references`` govern.

Each config is read as the scanner reads it, through ``scanner.tsconfig.load`` over the bounded
``ConfigStore`` (``scanner.jsonc``): its ``extends`` chain (a relative path, a package name in the
``node_modules`` folders above, else the workspace package of that name), its specs made absolute
and ``${configDir}`` expanded, its own ``references``; this module adds only TypeScript's matching.
The configs considered are the ``tsconfig*.json``/``jsconfig*.json`` files in SRC and in every
folder above a scanned file, and the config keys the scan recorded.  A base no tool takes as a
project (extended, never referenced, not named ``tsconfig.json``: a ``tsconfig.base.json``) governs
only through the configs extending it.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scanner.configs import ConfigStore
from scanner.tsconfig import TSCONFIG, TsConfig, Workspace, load

MAX_REFERENCE_DEPTH = 16
MAX_CONFIGS_LISTED_PER_FOLDER = 200  # tsconfig*.json entries read from one folder (real ones: a handful)

# compiler/utilities.ts, as TypeScript 5.9 builds its file-matching regular expressions
_IMPLICIT_EXCLUDE = "(?!(node_modules|bower_components|jspm_packages)(/|$))"
_FILES_SINGLE = r"([^./]|(\.(?!min\.js$))?)*"
_FILES_DOUBLE = "(/" + _IMPLICIT_EXCLUDE + "[^/.][^/]*)*?"
_EXCLUDE_SINGLE = "[^/]*"
_EXCLUDE_DOUBLE = "(/.+?)?"
_RESERVED = re.compile(r"[^A-Za-z0-9_\s/]")
_TRAILING_RECURSION = re.compile(r"(^|/)\*\*/?$")
_DOTDOT_AFTER_RECURSION = re.compile(r"(^|/)\*\*/(.*/)?\.\.($|/)")

TS_GROUPS = ((".ts", ".tsx", ".d.ts"), (".cts", ".d.cts"), (".mts", ".d.mts"))
ALL_GROUPS = ((".ts", ".tsx", ".d.ts", ".js", ".jsx"), (".cts", ".d.cts", ".cjs"), (".mts", ".d.mts", ".mjs"))
COMPONENT_EXTENSIONS = (
    ".vue",
    ".svelte",
    ".astro",
)  # taken when an include names the extension (vue-tsc, svelte-check)


@dataclass(frozen=True, slots=True)
class Scope:
    """What a change to one config affects: the configs using it and the scanned files they govern."""

    configs: tuple[str, ...]  # keys of the configs whose extends chain holds the changed config
    files: frozenset[str]


def is_tsconfig_name(path: str) -> bool:
    base = posixpath.basename(path)
    return base.startswith(("tsconfig", "jsconfig")) and base.endswith(".json")


def _components(path: str) -> list[str]:
    """TypeScript's ``getNormalizedPathComponents`` of an absolute POSIX path: the root, then the
    names with ``.`` dropped and ``..`` applied."""
    out: list[str] = []
    for part in path.split("/")[1:]:
        if part in ("", "."):
            continue
        if part == ".." and out and out[-1] != "..":
            out.pop()
        elif part != "..":
            out.append(part)
    return ["/", *out]


def _wildcard(ch: str, single: str) -> str:
    if ch == "*":
        return single
    if ch == "?":
        return "[^/]"
    return re.escape(ch)


def sub_pattern(spec: str, usage: str) -> str | None:
    """The regular expression of one absolute spec for ``usage`` ``files`` (include) or ``exclude``."""
    single, double = (_EXCLUDE_SINGLE, _EXCLUDE_DOUBLE) if usage == "exclude" else (_FILES_SINGLE, _FILES_DOUBLE)
    components = _components(spec)
    last = components[-1]
    if usage != "exclude" and last == "**":
        return None
    components[0] = ""
    if not re.search(r"[.*?]", last):  # a folder: everything under it
        components.extend(("**", "*"))
    out = ""
    written = False
    for component in components:
        if component == "**":
            out += double
        else:
            if written:
                out += "/"
            if usage != "exclude":
                pattern = ""
                if component.startswith("*"):
                    pattern += "([^./]" + single + ")?"
                    component = component[1:]
                elif component.startswith("?"):
                    pattern += "[^./]"
                    component = component[1:]
                pattern += _RESERVED.sub(lambda m: _wildcard(m.group(), single), component)
                if pattern != component:
                    out += _IMPLICIT_EXCLUDE
                out += pattern
            else:
                out += _RESERVED.sub(lambda m: _wildcard(m.group(), single), component)
        written = True
    return out


def spec_regex(specs: Iterable[str], usage: str) -> re.Pattern[str] | None:
    """``getRegularExpressionForWildcard``: one regex for absolute specs (None when none is usable)."""
    parts = [p for p in (sub_pattern(s, usage) for s in specs) if p is not None]
    if not parts:
        return None
    end = "($|/)" if usage == "exclude" else "$"
    return re.compile("^(" + "|".join(f"({p})" for p in parts) + ")" + end, re.DOTALL)


def _base_path(spec: str) -> str:
    """The folder before a spec's first wildcard segment (what a matching path must lie under)."""
    parts = _components(spec)[1:]
    kept: list[str] = []
    for part in parts:
        if re.search(r"[*?]", part):
            break
        kept.append(part)
    if len(kept) == len(parts) and kept and re.search(r"[.*?]", kept[-1]):
        kept.pop()  # a file name: its folder
    return "/" + "/".join(kept)


def valid_include(spec: str) -> bool:
    """tsc drops (with an error) an include ending in ``**`` or with ``..`` after a ``**``."""
    return not _TRAILING_RECURSION.search(spec) and not _DOTDOT_AFTER_RECURSION.search(spec)


def _extension(path: str, groups: tuple[tuple[str, ...], ...]) -> tuple[int, int] | None:
    """(group, priority) of the extension ``path`` ends with in TypeScript's supported groups."""
    best: tuple[int, int] | None = None
    longest = -1
    for g, group in enumerate(groups):
        for p, ext in enumerate(group):
            if path.endswith(ext) and len(ext) > longest:
                best, longest = (g, p), len(ext)
    return best


def _stem(path: str, groups: tuple[tuple[str, ...], ...]) -> str:
    ext = max((e for group in groups for e in group if path.endswith(e)), key=len, default="")
    return path[: len(path) - len(ext)]


class ScopeFinder:
    """Effective configs and governed files of the configs of one scan, memoised per config file."""

    def __init__(
        self,
        src: str,
        scanned: Iterable[str],
        store: ConfigStore,
        packages: Mapping[str, str] | None = None,
        known: Iterable[str] = (),
        overrides: Mapping[str, object] | None = None,
    ) -> None:
        self.src = os.path.normpath(os.path.abspath(src))
        self.store = store
        self.packages = dict(packages or {})  # workspace package name -> folder relative to SRC
        self.scanned = sorted(self.src + "/" + f for f in scanned)
        self.known = tuple(known)
        self._workspace = Workspace(self.src, self.packages)
        # config key -> its parsed content as it was (a version at --git-base REF), read instead of the file
        self._overrides = {self.absolute(k): v for k, v in (overrides or {}).items()}
        if self._overrides:
            self.store = _Pinned(store, self._overrides)
        self._specs: dict[str, TsConfig | None] = {}
        self._governed: dict[str, frozenset[str]] = {}
        self._candidates: tuple[str, ...] | None = None
        self._bases_only: frozenset[str] | None = None

    # -- reading configs ---------------------------------------------------------------------------

    def absolute(self, key: str) -> str:
        return os.path.normpath(os.path.join(self.src, key))

    def key(self, absolute: str) -> str:
        return self.store.key(absolute)

    def specs(self, config: str) -> TsConfig | None:
        """The effective config in the file at ``config`` (absolute; ``scanner.tsconfig.load``, its
        specs absolute and ``${configDir}`` expanded); None when it holds no config object."""
        config = os.path.normpath(config)
        if config not in self._specs:
            loaded = None
            if isinstance(self.store.read(config, jsonc=True), dict):
                loaded = load(config, self.store, self._workspace)
            self._specs[config] = loaded
        return self._specs[config]

    # -- governed files ----------------------------------------------------------------------------

    def governed(self, config: str, depth: int = 0) -> frozenset[str]:
        """The scanned files (relative to SRC) ``tsc -p config`` takes as inputs, through references
        for a solution config."""
        config = os.path.normpath(config)
        known = self._governed.get(config)
        if known is not None:
            return known
        self._governed[config] = frozenset()  # a reference cycle ends here
        specs = self.specs(config)
        out: set[str] = set()
        if specs is not None:
            out = self._matched(specs)
            if not out and depth < MAX_REFERENCE_DEPTH:  # a solution (no input of its own): its references
                for ref in specs.references:
                    out |= self.governed(ref, depth + 1)
        result = frozenset(out)
        self._governed[config] = result
        return result

    def _matched(self, specs: TsConfig) -> set[str]:
        include = specs.include
        if specs.file_list is None and include is None:
            include = (os.path.join(os.path.dirname(specs.path), "**", "*"),)
        includes = [s for s in include or () if valid_include(s)]
        if specs.exclude is not None:
            excludes = list(specs.exclude)
        else:  # TypeScript's default: the build output (a wildcard never enters node_modules anyway)
            excludes = [d for d in (specs.out_dir, specs.declaration_dir) if d]
        literal = {os.path.normpath(f) for f in specs.file_list or ()}
        groups = ALL_GROUPS if specs.allow_js else TS_GROUPS
        extra = tuple(e for e in COMPONENT_EXTENSIONS if any(s.endswith(e) for s in includes))
        include_re = spec_regex(includes, "files")
        exclude_re = spec_regex(excludes, "exclude")
        wildcard: set[str] = set()
        if include_re is not None:
            for base in {_base_path(s) for s in includes}:
                for path in self._under(base):
                    if _extension(path, groups) is None and not path.endswith(extra or ("\0",)):
                        continue
                    if include_re.match(path) and not (exclude_re is not None and exclude_re.match(path)):
                        wildcard.add(path)
        kept = {p for p in wildcard if not _lower_priority(p, literal | wildcard, groups)}
        found = kept | {p for p in literal if self._is_scanned(p)}
        return {p[len(self.src) + 1 :] for p in found}

    def _under(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        start = bisect.bisect_left(self.scanned, prefix)
        end = bisect.bisect_left(self.scanned, prefix[:-1] + "0")  # "0" sorts right after "/"
        return self.scanned[start:end]

    def _is_scanned(self, path: str) -> bool:
        i = bisect.bisect_left(self.scanned, path)
        return i < len(self.scanned) and self.scanned[i] == path

    # -- configs and changes -----------------------------------------------------------------------

    def candidates(self) -> tuple[str, ...]:
        """Absolute paths of the tsconfig/jsconfig files in SRC and in every folder above a scanned file."""
        if self._candidates is None:
            folders = {self.src}
            for path in self.scanned:
                folder = os.path.dirname(path)
                while folder not in folders and len(folder) > len(self.src):
                    folders.add(folder)
                    folder = os.path.dirname(folder)
            found: set[str] = {self.absolute(k) for k in self.known if is_tsconfig_name(k)}
            for folder in sorted(folders):
                try:
                    with os.scandir(folder) as entries:
                        names = [e.name for e in entries if is_tsconfig_name(e.name) and e.is_file()]
                except OSError:
                    continue
                found.update(os.path.join(folder, n) for n in sorted(names)[:MAX_CONFIGS_LISTED_PER_FOLDER])
            found = {p for p in found if os.path.isfile(p)} | set(self._overrides)
            self._candidates = tuple(sorted(found))
        return self._candidates

    def users(self, changed: str) -> tuple[str, ...]:
        """The configs (absolute) whose extends chain holds the config key ``changed`` (itself included)."""
        out = []
        for config in self.candidates():
            specs = self.specs(config)
            if specs is not None and changed in specs.files:
                out.append(config)
        return tuple(out)

    def bases_only(self) -> frozenset[str]:
        """Candidates that are only bases: another config extends them, no ``references`` names them,
        and no tool takes them as a project by name (not ``tsconfig.json``/``jsconfig.json``), as a
        ``tsconfig.base.json`` is.  Such a config governs files only through the configs using it."""
        if self._bases_only is not None:
            return self._bases_only
        extended: set[str] = set()
        referenced: set[str] = set()
        for config in self.candidates():
            specs = self.specs(config)
            if specs is None:
                continue
            extended |= {c for c in specs.files if c != self.key(config)}
            referenced |= {self.key(r) for r in specs.references}
        self._bases_only = frozenset(
            c
            for c in self.candidates()
            if self.key(c) in extended
            and self.key(c) not in referenced
            and os.path.basename(c) not in (TSCONFIG, "jsconfig.json")
        )
        return self._bases_only

    def scope(self, changed: str) -> Scope:
        """What a change to the config key ``changed`` affects: every file governed by a config whose
        extends chain holds it (a base-only config counts through its users alone)."""
        bases = self.bases_only()
        users = tuple(c for c in self.users(changed) if c not in bases)
        files: set[str] = set()
        for config in users:
            files |= self.governed(config)
        return Scope(tuple(self.key(c) for c in users), frozenset(files))


class _Pinned(ConfigStore):
    """A config store that reads given configs as given (their version at REF) and the rest as ``inner`` does."""

    def __init__(self, inner: ConfigStore, pinned: Mapping[str, object]) -> None:
        super().__init__(inner.src, inner.top)
        self._pinned = dict(pinned)

    def read(self, absolute: str, jsonc: bool = False) -> object:
        absolute = os.path.normpath(absolute)
        if absolute in self._pinned:
            return self._pinned[absolute]
        return super().read(absolute, jsonc)


def _lower_priority(path: str, matched: set[str], groups: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a file with the same stem and a higher-priority extension of its group is matched too
    (``hasFileWithHigherPriorityExtension``; a ``.d.ts`` never beats a ``.js``/``.jsx``)."""
    where = _extension(path, groups)
    if where is None:
        return False
    group, priority = where
    stem = _stem(path, groups)
    for ext in groups[group][:priority]:
        if ext == ".d.ts" and path.endswith((".js", ".jsx")):
            continue
        if stem + ext in matched:
            return True
    return False
