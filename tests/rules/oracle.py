"""An independent reading of the code rules: each relation computed in Python (networkx) from the
base ``src_*`` rows of a scan, from what README.md and the comments of rules/code.rofl and
rules/presets.rofl say it means, not from the rules.  test_rule_oracle.py compares it with rofl."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field

import networkx as nx

# what test runners and tools load by name (code.rofl's entry conventions)
ENTRY_NAMES = ("*.test.*", "*.spec.*", "*.test-d.*", "*.spec-d.*", "*.config.*")
ENTRY_FOLDERS = ("__tests__",)
# presets.rofl: test files, and other code that is not production code
TEST_NAMES = ("*.test.*", "*.spec.*")
TEST_FOLDERS = ("__tests__", "__mocks__", "__fixtures__", "__testfixtures__", "test", "tests")
NONPROD_NAMES = ("*.config.*", "*.stories.*", "setupTests.*", "*.setup.*", "test-setup.*", "*-setup.*", ".*")
NONPROD_FOLDERS = ("scripts", "e2e")
# code.rofl: what is no source of a package for a package-wide dependency (inside the package)
PACKAGE_NONSOURCE_NAMES = ("*.test.*", "*.spec.*", "*.test-d.*", "*.spec-d.*", "*.config.*")
PACKAGE_NONSOURCE_FOLDERS = ("__tests__", "__mocks__", "test", "tests", "fixtures", "__fixtures__", "e2e")
IMPORT_FIELDS = ("main", "module", "types", "typings", "exports")
NODE_BUILTINS = frozenset({"fs", "path", "os", "crypto", "fs/promises", "child_process", "events", "util"})
NPM_NAME = re.compile(r"^(@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$")


def name_matches(path: str, names: tuple[str, ...], folders: tuple[str, ...]) -> bool:
    """A file whose name matches one of ``names`` or that lies in a folder named one of ``folders``
    (at any depth, as a gitignore pattern without a slash); a name pattern matches folders too."""
    parts = path.split("/")
    return any(fnmatch.fnmatchcase(p, n) for p in parts for n in names) or any(p in folders for p in parts[:-1])


@dataclass
class Facts:
    """The base rows of one scan."""

    files: set[str]
    resolves: set[tuple[str, str, str]]
    kinds: dict[tuple[str, str], set[str]]
    names: set[tuple[str, str, str, str]]
    exports: dict[str, set[str]]
    declarations: set[str]
    entries: set[str]
    externals: set[tuple[str, str, str]]
    workspace_imports: set[tuple[str, str, str]]
    packages: dict[str, dict] = field(default_factory=dict)  # folder ("." root) -> its package.json

    def graph(self, runtime: bool = False) -> nx.DiGraph:
        """Import edges: every resolved import, and every package-wide dependency; at runtime, only an
        import that is not type-only, of a file that is no declaration file (which never runs)."""
        g = nx.DiGraph()
        g.add_nodes_from(self.files)
        for a, s, b in self.resolves:
            if not runtime or (self.kinds.get((a, s), set()) - {"type"} and b not in self.declarations):
                g.add_edge(a, b)
        g.add_edges_from(package_wide(self, runtime))
        return g

    def owner(self, path: str) -> str | None:
        """The package a file belongs to: the nearest folder above it whose package.json has a name."""
        d = posixpath.dirname(path)
        while True:
            pkg = self.packages.get(d or ".")
            if isinstance(pkg, dict) and isinstance(pkg.get("name"), str) and pkg["name"]:
                return d or "."
            if not d:
                return None
            d = posixpath.dirname(d)


def _leaves(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return []


def _subpath_leaves(pkg: dict) -> list[tuple[str, str]]:
    """(exports key, path) for each path of the import fields: the key of an exports map of subpaths
    (keys starting with "."), else "." (main, module, types, typings, a string, a map of conditions)."""
    out = []
    for fld in IMPORT_FIELDS:
        value = pkg.get(fld)
        if fld == "exports" and isinstance(value, dict) and any(str(k).startswith(".") for k in value):
            out += [(k, leaf) for k, v in value.items() if str(k).startswith(".") for leaf in _leaves(v)]
        else:
            out += [(".", leaf) for leaf in _leaves(value)]
    return out


def subpath_matches(key: str, subpath: str) -> bool:
    """Whether an exports key names ``subpath`` ("./x" of `@w/kit/x`, "." of `@w/kit`), as Node reads
    exports: the key itself, a key with one "*" (any text, "/" included), a key ending in "/" (below it)."""
    if "*" in key:
        head, _, tail = key.partition("*")
        return len(subpath) >= len(head) + len(tail) and subpath.startswith(head) and subpath.endswith(tail)
    return subpath == key or (key.endswith("/") and subpath.startswith(key))


def package_targets(f: Facts, folder: str, spec: str | None = None) -> set[str]:
    """The files a package-wide dependency on the package in ``folder`` stands for: the files of its
    own (not a nested package's) that its package.json names in an import field; when it names none
    of them, its own files whose path inside the package is no test, fixture or config file.  For an
    import ``spec`` (`@w/kit/sub/x`), only the named files under the exports keys its subpath matches,
    when there are any."""
    own = {p for p in f.files if f.owner(p) == folder}
    pkg = f.packages.get(folder, {})
    base = "" if folder == "." else folder + "/"
    keyed = {(k, posixpath.normpath(base + leaf)) for k, leaf in _subpath_leaves(pkg)}
    entries = own & {p for _, p in keyed}
    if entries:
        name = pkg.get("name", "")
        if spec is not None and (spec == name or spec.startswith(name + "/")):
            subpath = "." + spec[len(name) :]
            narrowed = {p for k, p in keyed if p in entries and subpath_matches(k, subpath)}
            if narrowed:
                return narrowed
        return entries
    return {p for p in own if not name_matches(p[len(base) :], PACKAGE_NONSOURCE_NAMES, PACKAGE_NONSOURCE_FOLDERS)}


def package_wide_edges(f: Facts, runtime: bool = False) -> set[tuple[str, str, str]]:
    """(A, B, D): A imports the workspace package in D by a specifier that led to no file, and B stands
    for it (for that specifier)."""
    out: set[tuple[str, str, str]] = set()
    for a, s, d in f.workspace_imports:
        if runtime and not f.kinds.get((a, s), set()) - {"type"}:
            continue
        out |= {(a, b, d) for b in package_targets(f, d, s) if b != a and not (runtime and b in f.declarations)}
    return out


def package_wide(f: Facts, runtime: bool = False) -> set[tuple[str, str]]:
    """(A, B): A imports a workspace package by a specifier that led to no file, and B stands for it."""
    return {(a, b) for a, b, _ in package_wide_edges(f, runtime)}


def unfollowed_workspace_imports(f: Facts) -> set[tuple[str, str, str]]:
    return {(a, s, d) for a, s, d in f.workspace_imports if not package_targets(f, d)}


def closure(g: nx.DiGraph) -> set[tuple[str, str]]:
    return {(a, b) for a in g for b in nx.descendants(g, a)} | {(a, a) for a in g if cyclic_node(g, a)}


def cyclic_node(g: nx.DiGraph, a: str) -> bool:
    return g.has_edge(a, a) or any(a in c and len(c) > 1 for c in nx.strongly_connected_components(g))


def on_cycles(g: nx.DiGraph) -> set[str]:
    out: set[str] = set()
    for comp in nx.strongly_connected_components(g):
        node = next(iter(comp))
        if len(comp) > 1 or g.has_edge(node, node):
            out |= comp
    return out


def cycle_edges(g: nx.DiGraph) -> set[tuple[str, str]]:
    comp_of = {n: i for i, c in enumerate(nx.strongly_connected_components(g)) for n in c}
    return {(a, b) for a, b in g.edges if comp_of[a] == comp_of[b]}


def route_entry(path: str, files: set[str]) -> bool:
    """Next.js's app router, the only framework the generator writes: app/**/page.* beside next.config.*."""
    root_markers = {f for f in files if re.fullmatch(r"next\.config\.[^/.]+", f)}
    return bool(root_markers) and bool(re.fullmatch(r"(src/)?app/(.+/)?page\.[^/.]+", path))


def entries(f: Facts) -> set[str]:
    return {
        p for p in f.files if p in f.entries or name_matches(p, ENTRY_NAMES, ENTRY_FOLDERS) or route_entry(p, f.files)
    }


def orphans(f: Facts) -> set[str]:
    """Files nothing imports (a package-wide dependency imports its targets) that are no entry point."""
    imported = {b for _, _, b in f.resolves} | {b for _, b in package_wide(f)}
    return f.files - imported - entries(f)


def affected(f: Facts, changed: set[str], runtime: bool) -> set[str]:
    """Files that depend on a changed file through imports and package-wide dependencies (an import of
    a package whose file was not found depends on the package's entry files, or its own sources)."""
    g = f.graph(runtime)
    reach: set[str] = set()
    for c in changed:
        if c in g:
            reach |= nx.ancestors(g, c)
    return reach - changed


def unused_exports(f: Facts) -> set[tuple[str, str]]:
    """Exported names nothing uses.  A use: importing the name (type imports too); a namespace import,
    import() or require() of a file, or the file being an entry point, uses every name.  Re-exports
    pass uses on: ``export { x as y } from './t'`` passes uses of y to t's x, ``export * as ns from``
    a use of ns to every name of t, ``export * from`` a use of any name but default that the
    re-exporting file does not export itself to the file behind it, when that file provides it."""
    targets: dict[tuple[str, str], set[str]] = {}
    for a, s, t in f.resolves:
        targets.setdefault((a, s), set()).add(t)
    whole: set[str] = set(entries(f))  # files all of whose names are used
    used: set[tuple[str, str]] = set()
    passes: list[tuple[str, str, str, str]] = []  # (a, local, t, name): a use of a's local uses t's name
    stars: list[tuple[str, str]] = []  # export * from: (a, t)
    for (a, s), ts in targets.items():
        if f.kinds.get((a, s), set()) & {"dynamic", "require"}:
            whole |= ts
    for a, s, imported, local in f.names:
        for t in targets.get((a, s), ()):
            for_use = bool(f.kinds.get((a, s), set()) & {"static", "dynamic", "require", "side_effect"})
            if imported == "*" and local == "*":
                stars.append((a, t))
            elif for_use or local not in f.exports.get(a, set()):
                if imported == "*":
                    whole.add(t)
                else:
                    used.add((t, imported))
            else:
                passes.append((a, local, t, imported))

    def provided(t: str, seen: frozenset = frozenset()) -> set[str]:
        out = set(f.exports.get(t, set()))
        for a, b in stars:
            if a == t and b not in seen:
                out |= provided(b, seen | {t}) - {"default"}
        return out

    changed = True
    while changed:
        before = (len(used), len(whole))
        for a, local, t, imported in passes:
            if a in whole or (a, local) in used:
                if imported == "*":
                    whole.add(t)
                else:
                    used.add((t, imported))
        for a, t in stars:
            for n in provided(t) - {"default"}:
                # a's own export of n shadows the star's, even when all of a's names are used
                if n not in f.exports.get(a, set()) and (a in whole or (a, n) in used):
                    used.add((t, n))
        changed = (len(used), len(whole)) != before
    return {(p, n) for p, ns in f.exports.items() for n in ns if p not in whole and (p, n) not in used}


# -- presets ---------------------------------------------------------------------------------------


def test_file(p: str) -> bool:
    return name_matches(p, TEST_NAMES, TEST_FOLDERS)


def production(f: Facts, p: str) -> bool:
    return not (test_file(p) or name_matches(p, NONPROD_NAMES, NONPROD_FOLDERS) or p in f.declarations)


def declarations_above(f: Facts, p: str) -> list[dict]:
    folders = ["."]
    d = posixpath.dirname(p)
    while d:
        folders.append(d)
        d = posixpath.dirname(d)
    return [f.packages[d] for d in folders if d in f.packages]


def declared(pkg: dict, name: str, sections: tuple[str, ...]) -> bool:
    return any(name in (pkg.get(s) or {}) for s in sections)


RUNTIME_SECTIONS = ("dependencies", "peerDependencies", "optionalDependencies")


def platform(name: str) -> bool:
    return name in NODE_BUILTINS or bool(re.match(r"^(node|bun|deno):", name)) or not NPM_NAME.match(name)


def workspace_folders(f: Facts) -> list[str]:
    """The workspace packages' folders, deepest first: every package.json with a name but the root's,
    which declares the workspaces and contains the others."""
    root = f.packages.get(".", {})
    return sorted(
        (
            d
            for d, pkg in f.packages.items()
            if isinstance(pkg.get("name"), str) and pkg["name"] and not (d == "." and "workspaces" in root)
        ),
        key=len,
        reverse=True,
    )


def deep_workspace_imports(f: Facts) -> set[tuple[str, str, str]]:
    """no_deep_workspace_imports: A, in one workspace package, imports a file B of another one by a
    specifier that is not the package's name (nor a subpath its exports map offers)."""
    folders = workspace_folders(f)

    def package(p: str) -> str | None:
        return next((d for d in folders if d == "." or p.startswith(d + "/")), None)

    def public(spec: str, d: str) -> bool:
        pkg = f.packages[d]
        exports = pkg.get("exports")
        keys = [k for k in exports if k.startswith(".")] if isinstance(exports, dict) else []
        return any(fnmatch.fnmatchcase(spec, pkg["name"] + k[1:]) for k in keys or ["."])

    out: set[tuple[str, str, str]] = set()
    for a, s, b in f.resolves:
        da, db = package(a), package(b)
        if da is not None and db is not None and da != db and not public(s, db):
            out.add(("no_deep_workspace_imports", a, b))
    return out


def presets(f: Facts) -> set[tuple[str, str, str]]:
    """violation[audit](Rule, From, To) of every shipped preset turned on."""
    out: set[tuple[str, str, str]] = set()
    out |= {("no_circular", a, b) for a, b in cycle_edges(f.graph())}
    out |= {("no_runtime_circular", a, b) for a, b in cycle_edges(f.graph(runtime=True))}
    out |= {
        ("no_orphans", p, p)
        for p in orphans(f)
        if p not in f.declarations and not name_matches(p, (".*", "*.config.*"), ())
    }
    out |= {("no_test_imports_from_production", a, b) for a, b in f.graph().edges if production(f, a) and test_file(b)}
    out |= deep_workspace_imports(f)
    for a, s, pkg in f.externals:
        above = declarations_above(f, a)
        types_only = f.kinds.get((a, s), set()) <= {"type"}
        ok = any(declared(d, pkg, (*RUNTIME_SECTIONS, "devDependencies")) for d in above)
        ok = ok or (types_only and any(declared(d, "@types/" + pkg, tuple(d)) for d in above))
        if not ok and not platform(pkg):
            out.add(("no_undeclared_packages", a, pkg))
        dev = any(declared(d, pkg, ("devDependencies",)) for d in above)
        prod = any(declared(d, pkg, RUNTIME_SECTIONS) for d in above)
        if dev and not prod and not types_only and production(f, a):
            out.add(("no_dev_dependencies", a, pkg))
    return out


# -- unused dependencies (presets unused_dependency, unused_dev_dependency) ------------------------

# presets.rofl's package_bin table: bins not named after their package
KNOWN_BINS = {"typescript": {"tsc", "tsserver"}, "@playwright/test": {"playwright"}, "@changesets/cli": {"changeset"}}


def npm_name(spec: str) -> str | None:
    """The package a bare specifier imports (``@s/p/x`` -> ``@s/p``, ``p/x`` -> ``p``)."""
    if spec.startswith((".", "/", "#", "~")):
        return None
    if spec.startswith("node:"):
        return spec
    parts = spec.split("/")
    name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    return name if NPM_NAME.match(name) else None


def unused_dependencies(
    f: Facts,
    imports: set[tuple[str, str]],
    scripts: dict[str, list[str]],
    mentions: dict[str, set[str]],
) -> set[tuple[str, str, str]]:
    """(Rule, package.json, Package) for each declared dependency nothing of its package uses, as
    presets.rofl's comment says: ``imports`` the (file, specifier) rows, ``scripts`` each folder's
    script commands, ``mentions`` the strings each folder's config files hold."""
    sections = {"dependencies": "unused_dependency", "optionalDependencies": "unused_dependency"}
    sections["devDependencies"] = "unused_dev_dependency"
    kinds = (*sections, "peerDependencies")
    owners = {d for d, pkg in f.packages.items() if d == "." or pkg.get("name") or any(k in pkg for k in kinds)}

    def owner(path: str) -> str:
        d = posixpath.dirname(path)
        while (d or ".") not in owners and d:
            d = posixpath.dirname(d)
        return d or "."

    def declares(d: str, name: str) -> bool:
        return any(name in (f.packages[d].get(k) or {}) for k in kinds)

    def below(path: str, d: str) -> bool:
        return d == "." or path.startswith(d + "/")

    imported: dict[str, set[str]] = {}  # file -> packages it imports
    for path, spec in imports:
        name = npm_name(spec)
        if name:
            imported.setdefault(path, set()).add(name)

    def words(d: str) -> set[str]:
        out: set[str] = set()
        for command in scripts.get(d, []):
            for part in re.split(r"&&|\|\||;|\|", command):
                tokens = [t for t in part.split() if not re.match(r"^[A-Za-z_]\w*=", t)]
                if tokens and tokens[0] in ("npx", "pnpm") and len(tokens) > 1:
                    tokens = tokens[2:] if tokens[1] == "exec" else tokens[1:]
                if tokens:
                    out.add(tokens[0])
        return out

    def used(d: str, name: str, seen: frozenset = frozenset()) -> bool:
        if name in ("typescript", "knip"):  # knip's IGNORED_DEPENDENCIES
            return True
        mine = {p for path, ps in imported.items() if owner(path) == d for p in ps}
        nested = {
            p
            for path, ps in imported.items()
            if below(path, d) and owner(path) != d
            for p in ps
            if not declares(owner(path), p)
        }
        if name in mine or (declares(d, name) and name in nested):
            return True
        if name.startswith("@types/"):
            target = name[len("@types/") :]
            target = "@" + target.replace("__", "/", 1) if "__" in target else target
            if target in mine or (declares(d, target) and target not in seen and used(d, target, seen | {name})):
                return True
            if target in ("node", "bun", "jest"):  # global types: knip never reports them
                return True
        commands = words(d)
        if name in commands or name.rsplit("/", 1)[-1] in commands or KNOWN_BINS.get(name, set()) & commands:
            return True
        return any(npm_name(m) == name for m in mentions.get(d, set()))

    out: set[tuple[str, str, str]] = set()
    for d, pkg in f.packages.items():
        for section, rule in sections.items():
            for name in pkg.get(section) or {}:
                if not used(d, name):
                    out.add((rule, "package.json" if d == "." else d + "/package.json", name))
    return out
