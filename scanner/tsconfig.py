"""tsconfig.json: finding the one that governs a folder and reading its resolution options through extends.

The governing tsconfig is the nearest ``tsconfig.json`` in the folder or its ancestors, up to a
stop folder (the git work tree's root, else the filesystem root), as editors and ``tsc`` do.
``extends`` may be a relative path (with or without ``.json``), a package name looked up in the
``node_modules`` folders above the config (``@tsconfig/node20``, a workspace package a package
manager linked there; when nothing is installed, the workspace package of that name, as the package
manager would link it), or a list of them.  ``baseUrl`` is relative to the config that
sets it; ``paths`` are relative to ``baseUrl`` when one is set, else to the config that sets them.
``customConditions`` (package.json ``exports``/``imports`` conditions), ``composite``, the build
folders ``outDir``, ``rootDir`` and ``declarationDir`` (each relative to the config that sets it)
and the input specs ``files`` and ``include`` (the list of the last config in the chain that sets
it, whole) are read through the same chain, a child's value replacing its base's.  A path option
that starts with ``${configDir}`` (TypeScript 5.5; any letter case) is relative to the folder of
the config being loaded, not of the base that sets it: ``"outDir": "${configDir}/dist"`` in a
shared base gives each package that extends it its own ``dist``.  That holds for ``baseUrl``,
``paths`` targets, the build folders and the input specs.  ``references`` are the leaf config's own
(never inherited): each ``path`` is the config file it names, or that folder's ``tsconfig.json``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from rofl.scanner.configs import ConfigStore
from rofl.scanner.tsconfig_inputs import Inputs

TSCONFIG = "tsconfig.json"
PACKAGE_DEP = "package:"  # the resolver's token for "the workspace package of this name" (scanner.resolve)
# "checked whether the config with this key takes the file as an input, and it did not" (``for_file``)
SCOPE_DEP = "tsconfig-scope:"
MAX_EXTENDS_DEPTH = 16
MAX_REFERENCES = 256  # configs one solution's references may lead to
MAX_APPLIED = 512  # config keys one extends graph may read (a base extended twice is applied twice, as tsc does)
BUILD_FOLDERS = ("outDir", "rootDir", "declarationDir")
INPUT_SPECS = ("files", "include", "exclude")
CONFIG_DIR = "${configdir}"  # compared in lower case, as TypeScript does


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
    composite: bool = False
    file_list: tuple[str, ...] | None = None  # absolute ``files``, ``include``, ``exclude`` specs; None: not set
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    references: tuple[str, ...] = ()  # absolute paths of the config files ``references`` names
    allow_js: bool = False
    path: str = ""  # the config file itself (absolute)

    @property
    def inputs(self) -> tuple[str, ...] | None:
        """The ``files`` and ``include`` specs together; None when neither is set."""
        if self.file_list is None and self.include is None:
            return None
        return (*(self.file_list or ()), *(self.include or ()))


def expand(value: str, here: str, config_dir: str) -> str:
    """An absolute, normalised path for a path option ``value`` set in a config in ``here``: relative to
    ``here``, or to ``config_dir`` (the folder of the config being loaded) when it starts with ``${configDir}``."""
    if value[: len(CONFIG_DIR)].lower() == CONFIG_DIR:
        return os.path.normpath(os.path.join(config_dir, "./" + value[len(CONFIG_DIR) :].lstrip("/\\")))
    return os.path.normpath(os.path.join(here, value))


def _references(value: object, here: str, config_dir: str) -> tuple[str, ...]:
    """The config files a ``references`` list names: a ``.json`` path as written, else that folder's tsconfig.json."""
    out: list[str] = []
    for ref in value if isinstance(value, list) else ():
        path = ref.get("path") if isinstance(ref, dict) else None
        if not isinstance(path, str) or not path or "\0" in path:
            continue
        target = expand(path, here, config_dir)
        if not target.endswith(".json"):
            target = os.path.join(target, TSCONFIG)
        if target not in out:
            out.append(target)
    return tuple(out)


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


@dataclass(frozen=True, slots=True)
class Workspace:
    """The workspace packages an ``extends`` may name when nothing installed them: name -> folder under ``src``."""

    src: str
    packages: Mapping[str, str]


def _workspace_extends(item: str, store: ConfigStore, files: list[str], workspace: Workspace) -> list[str]:
    """``@acme/tsconfig/base.json`` from the workspace package ``@acme/tsconfig`` (``tooling/typescript``),
    as a package manager links it: the path, the path plus ``.json``, then that folder's tsconfig.json.
    Each candidate and ``package:NAME`` are recorded, so that the package moving re-resolves the config."""
    parts = item.split("/")
    count = 2 if item.startswith("@") else 1
    name, rest = "/".join(parts[:count]), "/".join(parts[count:])
    files.append(PACKAGE_DEP + name)
    folder = workspace.packages.get(name)
    if folder is None or ".." in parts or "\0" in item or os.path.isabs(item):
        return []
    base = os.path.normpath(os.path.join(workspace.src, folder, rest))
    for candidate in (base, base + ".json", os.path.join(base, TSCONFIG)):
        if os.path.isfile(candidate):
            return [candidate]
        store.read(candidate)  # records that it is absent
        files.append(store.key(candidate))
    return []


def load(config_path: str, store: ConfigStore, workspace: Workspace | None = None) -> TsConfig:
    """The effective resolution and build options of ``config_path`` after following its extends chain
    (a package-name ``extends`` that nothing installed is the workspace package of that name, when given)."""
    state: dict[str, object] = {"base_url": None, "paths": None, "paths_dir": None, "conditions": ()}
    files: list[str] = []
    config_dir = os.path.dirname(config_path)
    _apply(config_path, store, state, files, 0, frozenset(), config_dir, workspace)
    files = list(dict.fromkeys(files))
    base_url = state["base_url"]
    paths_dir = state["paths_dir"]
    raw_paths = state["paths"] if isinstance(state["paths"], dict) else {}
    paths = tuple(
        (pattern, tuple(_target(t, config_dir) for t in targets if isinstance(t, str)))
        for pattern, targets in raw_paths.items()
        if isinstance(pattern, str) and isinstance(targets, list)
    )
    paths_base = base_url if isinstance(base_url, str) else (paths_dir or config_dir)
    return TsConfig(
        base_url if isinstance(base_url, str) else None,
        paths,
        str(paths_base),
        tuple(files),
        tuple(state["conditions"]),  # type: ignore[arg-type]
        _folder(state.get("outDir")),
        _folder(state.get("rootDir")),
        _folder(state.get("declarationDir")),
        state.get("composite") is True,
        _spec_list(state, "files"),
        _spec_list(state, "include"),
        _spec_list(state, "exclude"),
        _references(state.get("references"), config_dir, config_dir),
        state.get("allowJs") is True,
        config_path,
    )


def _spec_list(state: dict[str, object], name: str) -> tuple[str, ...] | None:
    return tuple(_specs(state[name])) if name in state else None


def _target(value: str, config_dir: str) -> str:
    """A ``paths`` target: ``${configDir}`` expanded to an absolute path, any other kept as written."""
    return expand(value, config_dir, config_dir) if value[: len(CONFIG_DIR)].lower() == CONFIG_DIR else value


def _specs(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _folder(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _apply(
    config_path: str,
    store: ConfigStore,
    state: dict[str, object],
    files: list[str],
    depth: int,
    visiting: frozenset[str],
    config_dir: str,
    workspace: Workspace | None = None,
) -> None:
    if depth > MAX_EXTENDS_DEPTH or config_path in visiting or len(files) > MAX_APPLIED:
        return
    visiting = visiting | {config_path}  # the chain down to here: a base two parents extend is applied twice
    data = store.read(config_path, jsonc=True)
    files.append(store.key(config_path))
    if not isinstance(data, dict):
        return
    if "extends" in data:  # bases first, so that this config's own options win
        extends = data["extends"]
        for item in extends if isinstance(extends, list) else [extends]:
            bases = _extends_targets(config_path, item, store, files)
            if not bases and workspace is not None and isinstance(item, str) and not item.startswith("."):
                bases = _workspace_extends(item, store, files, workspace)
            for base in bases:
                _apply(base, store, state, files, depth + 1, visiting, config_dir, workspace)
    here = os.path.dirname(config_path)
    if depth == 0:
        state["references"] = data.get("references")
    for spec in INPUT_SPECS:
        if isinstance(data.get(spec), list):  # the whole list of the last config that sets it
            state[spec] = [expand(v, here, config_dir) for v in data[spec] if isinstance(v, str) and "\0" not in v]
    options = data.get("compilerOptions")
    if not isinstance(options, dict):
        return
    if isinstance(options.get("baseUrl"), str):
        state["base_url"] = expand(options["baseUrl"], here, config_dir)
    if isinstance(options.get("paths"), dict):
        state["paths"] = options["paths"]
        state["paths_dir"] = here
    conditions = options.get("customConditions")
    if isinstance(conditions, list):
        state["conditions"] = tuple(c for c in conditions if isinstance(c, str))
    for flag in ("composite", "allowJs"):
        if isinstance(options.get(flag), bool):
            state[flag] = options[flag]
    for option in BUILD_FOLDERS:
        if isinstance(options.get(option), str):
            state[option] = expand(options[option], here, config_dir)


@dataclass(frozen=True, slots=True)
class _Checked:
    """One config of a reference tree as ``for_file`` checks it (config None: the file is absent)."""

    config: TsConfig | None
    inputs: Inputs | None
    keys: tuple[str, ...]  # the config keys read for it (itself, its extends chain)
    parent: int  # the index of the entry whose references named it; -1 for the tree's root


def _with_scope(plain: list[str], checked: list[str]) -> tuple[str, ...]:
    """The plain keys, then ``SCOPE_DEP`` + each checked key that is not plain (a ``package:`` token stays)."""
    kept = dict.fromkeys(plain)
    scope = (k if k.startswith(PACKAGE_DEP) else SCOPE_DEP + k for k in checked if k not in kept)
    return (*kept, *dict.fromkeys(scope))


class TsConfigFinder:
    """Nearest-tsconfig lookups, memoised per folder; each answer lists the config keys it consulted."""

    def __init__(self, store: ConfigStore, src: str, packages: Mapping[str, str] | None = None) -> None:
        self._store = store
        self._src = src
        self._workspace = Workspace(src, packages) if packages is not None else None
        self._stop: str | None = None
        self._by_dir: dict[str, tuple[TsConfig | None, tuple[str, ...]]] = {}
        self._loaded: dict[str, TsConfig] = {}
        self._trees: dict[str, tuple[_Checked, ...]] = {}

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
        config = self._loaded[config_path] = load(config_path, self._store, self._workspace)
        return config, config.files

    def for_file(self, path: str) -> tuple[TsConfig | None, tuple[str, ...]]:
        """The config that governs the file ``path`` (absolute) as tsserver picks it, and the keys consulted.

        Each ``tsconfig.json`` from the file's folder up to the stop folder, nearest first: the first
        that takes the file as an input, itself or through its ``references`` (depth first, in
        order: a solution file's ``tsconfig.app.json``), governs it; when none does, the nearest.
        The keys of the governing config, its extends chain and the solution configs whose references
        led to it are plain, as are the absent ``tsconfig.json`` paths probed on the way up; every
        other config checked and found not to take the file is ``SCOPE_DEP`` + its key."""
        path = os.path.normpath(path)
        folder = os.path.dirname(path)
        nearest, keys = self.for_dir(folder)
        if nearest is None:
            return None, keys
        plain: list[str] = [k for k in keys if k not in nearest.files]  # the absent tsconfig.json probed
        checked: list[str] = []
        config: TsConfig | None = nearest
        while config is not None:
            tree = self._tree(config.path)
            hit = next(
                (i for i, entry in enumerate(tree) if entry.inputs is not None and entry.inputs.holds(path)), None
            )
            if hit is not None:
                chain = hit
                while chain >= 0:  # the governing config, then the configs whose references led to it
                    plain.extend(tree[chain].keys)
                    chain = tree[chain].parent
                checked.extend(k for entry in tree[:hit] for k in entry.keys)
                return tree[hit].config, _with_scope(plain, checked)
            checked.extend(k for entry in tree for k in entry.keys)
            parent = os.path.dirname(os.path.dirname(config.path))
            if os.path.dirname(config.path) == self.stop() or parent == os.path.dirname(config.path):
                break
            config, more = self.for_dir(parent)
            plain.extend(k for k in more if config is None or k not in config.files)
        return nearest, _with_scope([*plain, *nearest.files], checked)

    def _tree(self, config_path: str) -> tuple[_Checked, ...]:
        """The config at ``config_path`` and those its ``references`` lead to (depth first, in order, each
        once), each with its inputs, the keys read for it and the entry whose references named it."""
        known = self._trees.get(config_path)
        if known is not None:
            return known
        order: list[_Checked] = []
        seen: set[str] = set()

        def visit(path: str, depth: int, parent: int) -> None:
            if path in seen or depth > MAX_EXTENDS_DEPTH or len(seen) >= MAX_REFERENCES:
                return
            seen.add(path)
            config, config_keys = self.at(path)
            order.append(_Checked(config, Inputs.of(config) if config is not None else None, config_keys, parent))
            if config is None:
                return
            here = len(order) - 1
            for reference in config.references:
                visit(reference, depth + 1, here)

        visit(config_path, 0, -1)
        known = self._trees[config_path] = tuple(order)
        return known

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
                config = self._loaded[candidate] = load(candidate, self._store, self._workspace)
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
