"""Which scanned files a tsconfig governs (``files``/``include``/``exclude`` through ``extends`` and
``references``), and so which files a change to a tsconfig or to a base it extends affects.

A config governs the files ``tsc -p CONFIG`` takes as its inputs, matched as TypeScript matches
them (``scanner.tsconfig_inputs``, the resolver's matcher too): its ``files``, plus what its
``include`` globs take and no ``exclude`` glob drops.  Each spec is
relative to the config that declares it, ``${configDir}`` to the config that uses it; a config
that does not set ``files``, ``include`` or ``exclude`` inherits that list whole from its ``extends``
(the last base that sets it wins; its own list replaces the base's, never merged with it).  A
solution config (no input of its own, as ``"files": []`` or ``"include": []`` with ``references``) governs what its
``references`` govern.

Each config is read as the scanner reads it, through ``scanner.tsconfig.load`` over the bounded
``ConfigStore`` (``scanner.jsonc``): its ``extends`` chain (a relative path, a package name in the
``node_modules`` folders above, else the workspace package of that name), its specs made absolute
and ``${configDir}`` expanded, its own ``references``.
The configs considered are the ``tsconfig*.json``/``jsconfig*.json`` files in SRC and in every
folder above a scanned file, and the config keys the scan recorded.  A base no tool takes as a
project (extended, never referenced, not named ``tsconfig.json``: a ``tsconfig.base.json``) governs
only through the configs extending it.
"""

from __future__ import annotations

import bisect
import os
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rofl.scanner.configs import ConfigStore
from rofl.scanner.tsconfig import TSCONFIG, TsConfig, Workspace, load
from rofl.scanner.tsconfig_inputs import Inputs

MAX_REFERENCE_DEPTH = 16
MAX_CONFIGS_LISTED_PER_FOLDER = 200  # tsconfig*.json entries read from one folder (real ones: a handful)


@dataclass(frozen=True, slots=True)
class Scope:
    """What a change to one config affects: the configs using it and the scanned files they govern."""

    configs: tuple[str, ...]  # keys of the configs whose extends chain holds the changed config
    files: frozenset[str]


def is_tsconfig_name(path: str) -> bool:
    base = posixpath.basename(path)
    return base.startswith(("tsconfig", "jsconfig")) and base.endswith(".json")


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
        inputs = Inputs.of(specs)
        under = (p for base in inputs.bases for p in self._under(base))
        found = inputs.select(under) | {p for p in inputs.files if self._is_scanned(p)}
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
