"""tsconfig.json: finding the one that governs a folder and reading its resolution options through extends.

The governing tsconfig is the nearest ``tsconfig.json`` in the folder or its ancestors, up to a
stop folder (the git work tree's root, else the filesystem root), as editors and ``tsc`` do.
``extends`` may be a relative path (with or without ``.json``), a package name looked up in the
``node_modules`` folders above the config (``@tsconfig/node20``, a workspace package a package
manager linked there), or a list of them.  ``baseUrl`` is relative to the config that
sets it; ``paths`` are relative to ``baseUrl`` when one is set, else to the config that sets them.
``customConditions`` (package.json ``exports``/``imports`` conditions) and the build folders
``outDir``, ``rootDir`` and ``declarationDir`` (each relative to the config that sets it) are read
through the same chain, a child's value replacing its base's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from scanner.configs import ConfigStore

TSCONFIG = "tsconfig.json"
MAX_EXTENDS_DEPTH = 16
BUILD_FOLDERS = ("outDir", "rootDir", "declarationDir")


@dataclass(frozen=True, slots=True)
class TsConfig:
    """The resolution-relevant part of one effective tsconfig."""

    base_url: str | None  # absolute folder
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    paths_base: str  # absolute folder that ``paths`` substitutions are relative to
    files: tuple[str, ...]  # config keys read to build it (the file and its extends chain)
    custom_conditions: tuple[str, ...] = ()
    out_dir: str | None = None  # absolute folders, None when not set
    root_dir: str | None = None
    declaration_dir: str | None = None


def _extends_targets(config_path: str, extends: object, store: ConfigStore, files: list[str]) -> list[str]:
    items = extends if isinstance(extends, list) else [extends]
    targets = []
    for item in items:
        if not isinstance(item, str) or not item:
            continue
        if not item.startswith("."):
            found = _package_extends(config_path, item, store, files)
            if found is not None:
                targets.append(found)
            continue
        target = os.path.normpath(os.path.join(os.path.dirname(config_path), item))
        if not target.endswith(".json") and not os.path.isfile(target):
            target += ".json"
        targets.append(target)
    return targets


def _package_extends(config_path: str, item: str, store: ConfigStore, files: list[str]) -> str | None:
    """A package-name ``extends`` (``@tsconfig/node20``, ``@repo/tsconfig/base.json``): the first
    ``node_modules`` folder at or above the config that holds it, as TypeScript looks: the path, the
    path plus ``.json``, then the folder's ``tsconfig.json``.  Every candidate looked at is recorded
    (in ``files``, the keys the config depends on), so that installing the package re-resolves what
    the config governs."""
    if os.path.isabs(item) or "\0" in item:
        return None
    folder = os.path.dirname(config_path)
    while True:
        base = os.path.normpath(os.path.join(folder, "node_modules", item))
        for candidate in (base, base + ".json", os.path.join(base, TSCONFIG)):
            if os.path.isfile(candidate):
                return candidate
            store.read(candidate)  # records that it is absent
            files.append(store.key(candidate))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load(config_path: str, store: ConfigStore) -> TsConfig:
    """The effective baseUrl/paths of ``config_path`` after following its extends chain."""
    state: dict[str, object] = {"base_url": None, "paths": None, "paths_dir": None, "conditions": ()}
    files: list[str] = []
    _apply(config_path, store, state, files, 0, set())
    base_url = state["base_url"]
    paths_dir = state["paths_dir"]
    raw_paths = state["paths"] if isinstance(state["paths"], dict) else {}
    paths = tuple(
        (pattern, tuple(t for t in targets if isinstance(t, str)))
        for pattern, targets in raw_paths.items()
        if isinstance(pattern, str) and isinstance(targets, list)
    )
    paths_base = base_url if isinstance(base_url, str) else (paths_dir or os.path.dirname(config_path))
    return TsConfig(
        base_url if isinstance(base_url, str) else None,
        paths,
        str(paths_base),
        tuple(files),
        tuple(state["conditions"]),  # type: ignore[arg-type]
        _folder(state.get("outDir")),
        _folder(state.get("rootDir")),
        _folder(state.get("declarationDir")),
    )


def _folder(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _apply(
    config_path: str,
    store: ConfigStore,
    state: dict[str, object],
    files: list[str],
    depth: int,
    visiting: set[str],
) -> None:
    if depth > MAX_EXTENDS_DEPTH or config_path in visiting:
        return
    visiting.add(config_path)
    data = store.read(config_path, jsonc=True)
    files.append(store.key(config_path))
    if not isinstance(data, dict):
        return
    if "extends" in data:  # bases first, so that this config's own options win
        for base in _extends_targets(config_path, data["extends"], store, files):
            _apply(base, store, state, files, depth + 1, visiting)
    options = data.get("compilerOptions")
    if not isinstance(options, dict):
        return
    here = os.path.dirname(config_path)
    if isinstance(options.get("baseUrl"), str):
        state["base_url"] = os.path.normpath(os.path.join(here, options["baseUrl"]))
    if isinstance(options.get("paths"), dict):
        state["paths"] = options["paths"]
        state["paths_dir"] = here
    conditions = options.get("customConditions")
    if isinstance(conditions, list):
        state["conditions"] = tuple(c for c in conditions if isinstance(c, str))
    for option in BUILD_FOLDERS:
        if isinstance(options.get(option), str):
            state[option] = os.path.normpath(os.path.join(here, options[option]))


class TsConfigFinder:
    """Nearest-tsconfig lookups, memoised per folder; each answer lists the config keys it consulted."""

    def __init__(self, store: ConfigStore, src: str) -> None:
        self._store = store
        self._src = src
        self._stop: str | None = None
        self._by_dir: dict[str, tuple[TsConfig | None, tuple[str, ...]]] = {}
        self._loaded: dict[str, TsConfig] = {}

    def stop(self) -> str:
        """The folder lookups stop at: the git work tree's root (``ConfigStore.tree``), else the filesystem root."""
        if self._stop is None:
            self._stop = self._store.tree() or os.path.abspath(os.sep)
        return self._stop

    def at(self, config_path: str) -> tuple[TsConfig | None, tuple[str, ...]]:
        """The config in the file ``config_path`` (None when absent) and the keys consulted for it."""
        config_path = os.path.normpath(config_path)
        config = self._loaded.get(config_path)
        if config is not None:
            return config, config.files
        if not os.path.isfile(config_path):
            self._store.read(config_path)  # records that it is absent
            return None, (self._store.key(config_path),)
        config = self._loaded[config_path] = load(config_path, self._store)
        return config, config.files

    def for_dir(self, folder: str) -> tuple[TsConfig | None, tuple[str, ...]]:
        """(governing config or None, keys of every tsconfig path probed or read for the answer)."""
        folder = os.path.normpath(folder)
        known = self._by_dir.get(folder)
        if known is not None:
            return known
        candidate = os.path.join(folder, TSCONFIG)
        key = self._store.key(candidate)
        if os.path.isfile(candidate):
            config = self._loaded.get(candidate)
            if config is None:
                config = self._loaded[candidate] = load(candidate, self._store)
            answer: tuple[TsConfig | None, tuple[str, ...]] = (config, config.files)
        else:
            self._store.read(candidate)  # records that it is absent
            parent = os.path.dirname(folder)
            if folder == self.stop() or parent == folder:
                answer = (None, (key,))
            else:
                config, keys = self.for_dir(parent)
                answer = (config, (key, *keys))
        self._by_dir[folder] = answer
        return answer
