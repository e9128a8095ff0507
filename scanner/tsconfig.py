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
import re
from collections.abc import Mapping
from dataclasses import dataclass

from scanner.configs import ConfigStore

TSCONFIG = "tsconfig.json"
PACKAGE_DEP = "package:"  # the resolver's token for "the workspace package of this name" (scanner.resolve)
MAX_EXTENDS_DEPTH = 16
MAX_REFERENCES = 256  # configs one solution's references may lead to
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
    _apply(config_path, store, state, files, 0, set(), config_dir, workspace)
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
    visiting: set[str],
    config_dir: str,
    workspace: Workspace | None = None,
) -> None:
    if depth > MAX_EXTENDS_DEPTH or config_path in visiting:
        return
    visiting.add(config_path)
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


TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts")  # with their declarations (.d.ts ...): they end the same
JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs")
NEVER_WILDCARD = ("node_modules", "bower_components", "jspm_packages")  # folders a wildcard never enters
DOUBLE_STAR = {False: "(/[^/.][^/]*)*?", True: "(/.+?)?"}
WILDCARD = frozenset("*?")


def _spec_pattern(spec: str, exclude: bool) -> tuple[str, str] | None:
    """(literal prefix, regular expression) of one absolute ``include`` (or ``exclude``) spec, as
    TypeScript's ``getSubPatternFromSpec``: ``*`` and ``?`` stay in one name and, in an include,
    never match a leading ``.``; ``**`` spans folders (never dot-folders in an include); a last
    segment with no ``.``, ``*`` or ``?`` is a folder, everything under it.  None for an include
    ending in ``**`` (TypeScript drops it).  That a wildcard never enters node_modules is
    ``Inputs.holds``' check, against the path after the literal prefix."""
    parts = spec.replace("\\", "/").split("/")
    if not exclude and parts[-1] == "**":
        return None
    if not set(parts[-1]) & set(".*?"):
        parts = [*parts, "**", "*"]
    literal = 0
    while literal < len(parts) and parts[literal] != "**" and not WILDCARD & set(parts[literal]):
        literal += 1
    literal = min(literal, len(parts) - 1)  # a spec naming one file: its folder is the prefix
    out = ""
    for index, part in enumerate(parts):
        if part == "**":
            out += DOUBLE_STAR[exclude]
            continue
        piece = "(?!\\.)" if not exclude and part[:1] in ("*", "?") else ""
        piece += "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
        out += ("/" if index else "") + piece
    return "/".join(parts[:literal]), "^" + out + ("($|/)" if exclude else "$")


def _compiled(specs: tuple[str, ...], exclude: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
    found = (_spec_pattern(s, exclude) for s in specs)
    return tuple((prefix, re.compile(pattern)) for prefix, pattern in (f for f in found if f is not None))


@dataclass(frozen=True, slots=True)
class Inputs:
    """Which files one config takes as its inputs (``tsc -p``): compiled ``include``/``exclude`` and ``files``."""

    files: frozenset[str]
    include: tuple[tuple[str, re.Pattern[str]], ...]  # (literal prefix, pattern) per spec
    exclude: tuple[tuple[str, re.Pattern[str]], ...]
    allow_js: bool

    @classmethod
    def of(cls, config: TsConfig) -> Inputs:
        include = config.include
        if include is None and config.file_list is None:
            include = (os.path.join(os.path.dirname(config.path), "**", "*"),)
        exclude = config.exclude
        if exclude is None:  # TypeScript's default: the package folders and the build output
            here = os.path.dirname(config.path)
            named = [os.path.join(here, n) for n in NEVER_WILDCARD]
            exclude = (*named, *(d for d in (config.out_dir, config.declaration_dir) if d is not None))
        return cls(
            frozenset(os.path.normpath(f) for f in config.file_list or ()),
            _compiled(include or (), False),
            _compiled(exclude, True),
            config.allow_js,
        )

    def holds(self, path: str) -> bool:
        """True when ``path`` (absolute, normalised) is one of the config's input files."""
        if path in self.files:
            return True
        if not self.include or not path.endswith(TS_EXTENSIONS + (JS_EXTENSIONS if self.allow_js else ())):
            return False
        posix = path.replace(os.sep, "/")
        for prefix, pattern in self.include:
            if not posix.startswith(prefix + "/"):
                continue
            if any(name in NEVER_WILDCARD for name in posix[len(prefix) + 1 :].split("/")):
                continue  # no wildcard enters node_modules
            if pattern.match(posix) is not None:
                return not any(posix.startswith(p) and x.match(posix) for p, x in self.exclude)
        return False


class TsConfigFinder:
    """Nearest-tsconfig lookups, memoised per folder; each answer lists the config keys it consulted."""

    def __init__(self, store: ConfigStore, src: str, packages: Mapping[str, str] | None = None) -> None:
        self._store = store
        self._src = src
        self._workspace = Workspace(src, packages) if packages is not None else None
        self._stop: str | None = None
        self._by_dir: dict[str, tuple[TsConfig | None, tuple[str, ...]]] = {}
        self._loaded: dict[str, TsConfig] = {}
        self._trees: dict[str, tuple[tuple[tuple[TsConfig, Inputs], ...], tuple[str, ...]]] = {}

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
        order: a solution file's ``tsconfig.app.json``), governs it; when none does, the nearest."""
        path = os.path.normpath(path)
        folder = os.path.dirname(path)
        nearest, keys = self.for_dir(folder)
        if nearest is None:
            return None, keys
        consulted: list[str] = list(keys)
        config: TsConfig | None = nearest
        while config is not None:
            tree, tree_keys = self._tree(config.path)
            consulted.extend(tree_keys)
            hit = next((c for c, inputs in tree if inputs.holds(path)), None)
            if hit is not None:
                return hit, tuple(dict.fromkeys(consulted))
            parent = os.path.dirname(os.path.dirname(config.path))
            if os.path.dirname(config.path) == self.stop() or parent == os.path.dirname(config.path):
                break
            config, more = self.for_dir(parent)
            consulted.extend(more)
        return nearest, tuple(dict.fromkeys(consulted))

    def _tree(self, config_path: str) -> tuple[tuple[tuple[TsConfig, Inputs], ...], tuple[str, ...]]:
        """The config at ``config_path`` and those its ``references`` lead to (depth first, in order, each
        once), with their inputs, and every config key read for them."""
        known = self._trees.get(config_path)
        if known is not None:
            return known
        order: list[tuple[TsConfig, Inputs]] = []
        keys: list[str] = []
        seen: set[str] = set()

        def visit(path: str, depth: int) -> None:
            if path in seen or depth > MAX_EXTENDS_DEPTH or len(seen) >= MAX_REFERENCES:
                return
            seen.add(path)
            config, config_keys = self.at(path)
            keys.extend(config_keys)
            if config is None:
                return
            order.append((config, Inputs.of(config)))
            for reference in config.references:
                visit(reference, depth + 1)

        visit(config_path, 0)
        known = self._trees[config_path] = (tuple(order), tuple(dict.fromkeys(keys)))
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
