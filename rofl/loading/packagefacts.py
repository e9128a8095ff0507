"""The package.json facts the presets read, from a scan's source folder: declared dependencies, workspace packages, public specifiers.

Facts, in [main]:

* ``pkg_dependency(Dir, Package, Kind)``: the package.json in folder Dir (``"."`` for the root)
  declares Package, Kind one of ``prod`` (dependencies), ``dev``, ``peer``, ``optional``; an
  ``@types/x`` declaration also states ``pkg_dependency(Dir, "x", types)``.
* ``pkg_file_workspace(File, Dir)``: File belongs to the workspace package in Dir (the deepest one;
  the root package of a monorepo, the one declaring the workspaces, holds none: it contains them).
* ``pkg_public(Dir, Regex)``: the specifiers the package in Dir offers others: its name, and each
  subpath of its ``exports`` map (``*`` standing for anything).
* ``pkg_json(Dir, Path)``: the package.json of Dir (its path from the root).
* ``pkg_file_owner(File, Dir)``: the package.json that declares File's dependencies: the nearest one
  at or above it that has a name or a dependency section (the root's always counts).
* ``pkg_name_regex(Package, Regex)``: the specifiers that import a declared Package (it, or a subpath).
* ``pkg_types_of(Dir, TypesPackage, Package)``: Dir declares ``@types/x`` (TypesPackage) for x.
* ``pkg_bin_guess(Package, Word)``: a command a declared Package may provide: its name and its last
  ``/`` segment (without node_modules its ``bin`` field cannot be read).
* ``pkg_script_word(Dir, Word)``: a command a ``scripts`` entry of Dir's package.json runs: the first
  word of each ``&&``/``||``/``;``/``|`` part, past ``VAR=value``, ``npx``/``pnpm exec``/``cross-env``.
* ``pkg_mention(Dir, Package)``: a package named as a string in a config file of Dir's package
  (``*.config.*``, ``.eslintrc*``, ``.babelrc*``, ``.prettierrc*``, tsconfig ``types``/``extends``...)
  or in a config field of its package.json (``prettier``, ``eslintConfig``, ``babel``, ``jest``...).

They are read when ``rofl audit`` runs, from the folder the manifest names (or ``--src``), through
the scanner's bounded config reader; a package.json it refuses contributes nothing.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rofl.engine.kernel import Kernel
    from rofl.scanner.configs import ConfigStore

KINDS = {
    "dependencies": "prod",
    "devDependencies": "dev",
    "peerDependencies": "peer",
    "optionalDependencies": "optional",
}


@dataclass(frozen=True, slots=True)
class PackageFacts:
    """The facts to load (relation and arguments, in [main], asserted by no one), and what could not be read
    (one line each)."""

    facts: tuple[tuple[str, tuple], ...]
    problems: tuple[str, ...]

    @property
    def text(self) -> str:
        """The facts as program text."""
        from rofl.engine.terms import format_fact

        return "".join(format_fact(rel, "main", args) + ".\n" for rel, args in self.facts)

    def load(self, kernel: Kernel) -> None:
        """Assert the facts (as loading ``text`` with no identity does), one relation at a time."""
        by_rel: dict[str, list[tuple]] = {}
        for rel, args in self.facts:
            by_rel.setdefault(rel, []).append(("main", *args))
        for rel, rows in by_rel.items():
            kernel.assert_rows(rel, "main", rows, None)


def _folder(rel_dir: str) -> str:
    return rel_dir or "."


def _types_target(name: str) -> str | None:
    """``@types/node`` -> ``node``; ``@types/babel__core`` -> ``@babel/core``."""
    if not name.startswith("@types/"):
        return None
    rest = name[len("@types/") :]
    return "@" + rest.replace("__", "/", 1) if "__" in rest else rest


def public_patterns(name: str, exports: object) -> list[str]:
    """Regexes of the specifiers a package offers: its name, and each ``exports`` subpath."""
    keys = ["."]
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        keys = [k for k, v in exports.items() if k.startswith(".") and v is not None]
    out = []
    for key in keys:
        spec = name + key[1:]
        out.append("^" + re.escape(spec).replace(r"\*", ".*") + "$")
    return out


# package.json fields that configure a tool, whose strings name the tool's plugins, presets, configs
CONFIG_FIELDS = (
    "prettier",
    "eslintConfig",
    "babel",
    "jest",
    "stylelint",
    "commitlint",
    "lint-staged",
    "remarkConfig",
    "ava",
    "c8",
    "nyc",
    "mocha",
    "xo",
    "browserslist",
    "postcss",
)
# config files read by name in each package folder (besides the scanned ``*.config.*`` files)
CONFIG_NAMES = re.compile(
    r"^(\.(eslintrc|babelrc|prettierrc|stylelintrc|mocharc|swcrc|postcssrc|lintstagedrc|commitlintrc|remarkrc)"
    r"(\.(json|js|cjs|mjs|yaml|yml))?|babel\.config\.json|tsconfig(\.[^/]*)?\.json|jsconfig\.json|turbo\.json)$"
)
NPM_NAME = re.compile(r"^((?:@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*)(?:/.*)?$")
STRING = re.compile(r"""(?:"([^"\\\n]{1,214})"|'([^'\\\n]{1,214})'|`([^`\\$\n]{1,214})`)""")
SEPARATORS = re.compile(r"&&|\|\||[;|&]|\$\(|\(|\)")
RUNNERS = {"npx", "bunx", "pnpx", "cross-env", "dotenv", "env", "nodemon", "time", "nice"}


def mentioned_package(text: str) -> str | None:
    """The package a config string names (``"@scope/pkg/sub"`` -> ``@scope/pkg``), or None."""
    m = NPM_NAME.match(text.strip())
    return m.group(1) if m and not text.startswith(".") else None


def eslint_names(text: str) -> list[str]:
    """The packages an eslintrc string may stand for, by ESLint's shorthands: ``plugin:x/recommended``
    and plugin ``x`` -> ``eslint-plugin-x``, extends ``x`` -> ``eslint-config-x``, ``@s`` ->
    ``@s/eslint-plugin`` and ``@s/eslint-config``, ``@s/x`` -> ``@s/eslint-plugin-x``/``@s/eslint-config-x``."""
    name = text.removeprefix("plugin:").split("/")[0] if not text.startswith("@") else text.removeprefix("plugin:")
    if text.startswith(("@", "plugin:@")):
        scope, _, rest = text.removeprefix("plugin:").partition("/")
        rest = rest.split("/")[0]
        if not rest or rest in ("recommended", "all", "strict"):
            return [f"{scope}/eslint-plugin", f"{scope}/eslint-config"]
        return [f"{scope}/eslint-plugin-{rest}", f"{scope}/eslint-config-{rest}", f"{scope}/{rest}"]
    if not name or name.startswith(("eslint-plugin-", "eslint-config-")):
        return []
    return [f"eslint-plugin-{name}", f"eslint-config-{name}"]


def _strings(value: object) -> list[str]:
    """Every string in a JSON value, keys included (a jest ``transform`` names packages as values,
    ``lint-staged`` as commands, eslint ``plugins`` as keys in flat configs)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [x for v in value for x in _strings(v)]
    return []


def script_words(command: str) -> list[str]:
    """The commands a package.json script runs: the first word of each part, past ``VAR=value`` and
    runners (``npx tsc`` -> ``npx``, ``tsc``; ``pnpm exec vitest`` -> ``vitest``)."""
    out: list[str] = []
    for part in SEPARATORS.split(command):
        words = [w for w in part.split() if w]
        while words:
            word = words.pop(0)
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word) or word.startswith("-"):
                continue
            out.append(word)
            if word in RUNNERS:
                if "--" in words:  # `dotenv -e .env -- cmd`: the runner's own arguments end at --
                    words = words[words.index("--") + 1 :]
                continue
            if word in ("pnpm", "yarn", "npm", "bun") and words and words[0] in ("exec", "dlx", "x"):
                words.pop(0)
                continue
            if word in ("pnpm", "yarn", "bun") and words and not words[0].startswith("-"):
                continue  # `pnpm tsc`: a script or a bin of the package
            break
    return out


def _tool_strings(name: str, data: object, text: str | None) -> list[str]:
    """The strings a config file holds: tsconfig's ``types`` (as ``@types/x`` and x) and ``extends``,
    every string of another JSON file, every string literal of a script or YAML one."""
    if isinstance(data, dict) and name.startswith(("tsconfig", "jsconfig")):
        options = data.get("compilerOptions")
        types = options.get("types") if isinstance(options, dict) else None
        out = [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
        out += ["@types/" + t.replace("@", "").replace("/", "__") if t.startswith("@") else "@types/" + t for t in out]
        extends = data.get("extends")
        out += [e for e in (extends if isinstance(extends, list) else [extends]) if isinstance(e, str)]
        return out
    if data is not None:
        return _strings(data)
    if text is None:
        return []
    return [next(g for g in m.groups() if g is not None) for m in STRING.finditer(text)]


def package_facts(src: str | Path, files: list[str], packages: dict[str, str]) -> PackageFacts:
    """The facts for the scanned ``files`` (paths relative to ``src``) and the workspace ``packages``
    (name -> folder relative to ``src``, ``""`` for the root) the manifest lists."""
    from rofl.scanner.configs import ConfigStore
    from rofl.scanner.workspaces import PNPM_WORKSPACE

    root = str(src)
    if not os.path.isdir(root):
        return PackageFacts((), (f"{root}: the scanned source folder is not here; package.json facts are missing",))
    store = ConfigStore(root)
    folders: set[str] = set()
    in_folder = [f.rpartition("/")[0] for f in files]  # each file's folder (the manifest's paths are normalized)
    for d in set(in_folder):
        while d not in folders:
            folders.add(d)
            if not d:
                break
            d = posixpath.dirname(d)
    lines: list[tuple[str, tuple]] = []
    owners: set[str] = set()
    declared: set[str] = set()
    for d in sorted(folders):
        absolute = os.path.join(root, d, "package.json")
        if not os.path.lexists(absolute) or not store.is_file(absolute):  # most folders have none: one lstat
            continue
        data = store.read(absolute)
        if not isinstance(data, dict):
            continue
        if not d or data.get("name") or any(isinstance(data.get(f), dict) for f in KINDS):
            owners.add(d)
        lines.append(("pkg_json", (_folder(d), posixpath.join(d, "package.json"))))
        for field, kind in KINDS.items():
            block = data.get(field)
            if not isinstance(block, dict):
                continue
            for name in sorted(k for k in block if isinstance(k, str)):
                lines.append(("pkg_dependency", (_folder(d), name, (kind,))))
                declared.add(name)
                target = _types_target(name)
                if target:
                    lines.append(("pkg_dependency", (_folder(d), target, ("types",))))
                    lines.append(("pkg_types_of", (_folder(d), name, target)))
        scripts = data.get("scripts")
        if isinstance(scripts, dict):
            words = {w for c in scripts.values() if isinstance(c, str) for w in script_words(c)}
            lines += [("pkg_script_word", (_folder(d), w)) for w in sorted(words)]
        mentions = {m for f in CONFIG_FIELDS for m in map(mentioned_package, _strings(data.get(f))) if m}
        mentions |= {e for t in _strings(data.get("eslintConfig")) for e in eslint_names(t)}
        lines += [("pkg_mention", (_folder(d), m)) for m in sorted(mentions)]
    for name in sorted(declared):
        lines.append(("pkg_name_regex", (name, "^" + re.escape(name) + "(/|$)")))
        for word in sorted({name, name.rsplit("/", 1)[-1]}):
            lines.append(("pkg_bin_guess", (name, word)))
    owner_of = _Owners(owners)
    for f, folder in zip(files, in_folder):
        owner = owner_of(folder)
        if owner is not None:
            lines.append(("pkg_file_owner", (f, _folder(owner))))
    lines += _config_mentions(store, root, files, owners)
    lines += _shared_config_mentions(store, root, packages)
    root_json = store.read(os.path.join(root, "package.json"))
    container = (isinstance(root_json, dict) and "workspaces" in root_json) or os.path.isfile(
        os.path.join(root, PNPM_WORKSPACE)
    )
    # the monorepo's root package is the container of the others, not one of them: its files are tooling
    dirs = {d for d in packages.values() if isinstance(d, str) and (d or not container)}
    for name, d in sorted(packages.items()):
        if not isinstance(d, str):
            continue
        data = store.read(os.path.join(root, d, "package.json"))
        exports = data.get("exports") if isinstance(data, dict) else None
        for pattern in public_patterns(name, exports):
            lines.append(("pkg_public", (_folder(d), pattern)))
    workspace_of = _Owners(dirs)  # the deepest package folder above each file
    for f, folder in zip(files, in_folder):
        owner = workspace_of(folder)
        if owner is not None:
            lines.append(("pkg_file_workspace", (f, _folder(owner))))
    problems = tuple(f"{path}: {message}" for path, message in sorted(store.errors.items()))
    return PackageFacts(tuple(lines), problems)


def _owner(path: str, owners: set[str]) -> str | None:
    return _owner_of_folder(posixpath.dirname(path), owners)


def _owner_of_folder(d: str, owners: set[str]) -> str | None:
    """The deepest of ``owners`` at or above folder ``d`` (None: none)."""
    while True:
        if d in owners:
            return d
        if not d:
            return None
        d = posixpath.dirname(d)


class _Owners:
    """``_owner`` of the files of a folder, called with the folder: each folder looked up once."""

    __slots__ = ("owners", "by_folder")

    def __init__(self, owners: set[str]) -> None:
        self.owners = owners
        self.by_folder: dict[str, str | None] = {}

    def __call__(self, folder: str) -> str | None:
        found = self.by_folder.get(folder, "\0")
        if found == "\0":
            found = self.by_folder[folder] = _owner_of_folder(folder, self.owners)
        return found


def _config_mentions(store: ConfigStore, root: str, files: list[str], owners: set[str]) -> list[tuple[str, tuple]]:
    """pkg_mention facts from the config files of each package: the scanned ``*.config.*`` files and
    the dot-files and tsconfigs read by name in each package folder."""
    found: set[tuple[str, str]] = set()
    candidates = [f for f in files if re.match(r"^[^/]*\.config\.[^/]+$", posixpath.basename(f))]
    for d in sorted(owners):
        folder = os.path.join(root, d)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        candidates += [posixpath.join(d, n) for n in names if CONFIG_NAMES.match(n)]
    for rel in sorted(set(candidates)):
        owner = _owner(rel, owners)
        if owner is None:
            continue
        absolute = os.path.join(root, rel)
        name = posixpath.basename(rel)
        data = None
        text = None
        if name.endswith(".json") or name in (".babelrc", ".eslintrc", ".prettierrc", ".swcrc"):
            data = store.read(absolute, jsonc=True)
            if data is None:
                text = store.read_text(absolute)
        else:
            text = store.read_text(absolute) if store.is_file(absolute) else None
        for string in _tool_strings(name, data, text):
            m = mentioned_package(string)
            if m:
                found.add((_folder(owner), m))
            if name.startswith(".eslintrc"):
                found |= {(_folder(owner), e) for e in eslint_names(string)}
    return [("pkg_mention", row) for row in sorted(found)]


def _shared_config_mentions(store: ConfigStore, root: str, packages: dict[str, str]) -> list[tuple[str, tuple]]:
    """A workspace package that a config field names (``"prettier": "@acme/prettier-config"``) is a
    shared config: the strings of its entry file (``exports["."]``, ``main``, else ``index.js``) name
    plugins its own package.json declares, as if its config file held them."""
    named: set[str] = set()
    for d in packages.values():
        data = store.read(os.path.join(root, d, "package.json")) if isinstance(d, str) else None
        if isinstance(data, dict):
            named |= {m for f in CONFIG_FIELDS for m in map(mentioned_package, _strings(data.get(f))) if m}
    found: set[tuple[str, str]] = set()
    for name in sorted(named & set(packages)):
        d = packages[name]
        data = store.read(os.path.join(root, d, "package.json"))
        if not isinstance(data, dict):
            continue
        exports = data.get("exports")
        entry = exports.get(".") if isinstance(exports, dict) else exports
        while isinstance(entry, dict):
            entry = entry.get("import") or entry.get("default") or entry.get("require")
        main = data.get("main")
        entry = entry if isinstance(entry, str) else main if isinstance(main, str) else "index.js"
        assert isinstance(entry, str)
        absolute = os.path.normpath(os.path.join(root, d, entry))
        text = store.read_text(absolute) if store.is_file(absolute) else None
        for string in _tool_strings(posixpath.basename(entry), None, text):
            m = mentioned_package(string)
            if m:
                found.add((_folder(d), m))
    return [("pkg_mention", row) for row in sorted(found)]
