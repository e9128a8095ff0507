"""Entry points of workspace packages: the scanned files a package.json names in main, module, types,
bin or exports, the files its ``scripts`` name (``node scripts/build.mjs``, ``tsx src/cli.ts``), and the
files an HTML page beside it loads with ``<script src>`` (``index.html``, ``public/*.html``, ``src/*.html``).

It also says which package each scanned file belongs to (``src_package``: the nearest folder at or
above it whose package.json has a ``name``; a nested package, such as a test fixture with a package.json
of its own, is its own package) and which files a package offers by name (``src_package_entry``: what
its ``main``, ``module``, ``types``, ``typings`` and ``exports`` name, under any condition, found as the
scanner finds an import's target: the path, the TypeScript source it names, the source the resolver
maps a build output to, and what the package's own name resolves to from inside it), each under the
``exports`` subpath that names it (``src_package_subpath``: ``.`` for the other fields).  rules/code.rofl
reads them for a workspace import that leads to no file (a package-wide dependency).

``entries.rofl`` also holds the scan's findings that belong to no source's fact file:
``src_config_error`` for workspace package.json files, and ``src_parse_error(Path, "line 1:
cannot read: ...")`` for sources that could not be read (they have no fact file of their own).
"""

from __future__ import annotations

import os
import posixpath
import re
from html.parser import HTMLParser

from rofl.engine.base.safe_write import read_nofollow
from rofl.scanner import schema
from rofl.scanner.configs import ConfigStore
from rofl.scanner.files import SOURCE_SUFFIXES, inside
from rofl.scanner.layout import ENTRIES_NAME
from rofl.scanner.probe import probe

FIELDS = ("main", "module", "types", "typings", "bin", "exports")
IMPORT_FIELDS = ("main", "module", "types", "typings", "exports")  # what an import of the package's name loads
NAME = "name"  # the src_package_entry field of what the package's own name resolves to from inside it
SCRIPTS = "scripts"  # the src_entry field of a file a package.json script names
HTML = "html"  # the src_entry field of a file an HTML page loads with <script src>
HTML_FOLDERS = ("", "public", "src")  # where, under a package folder, HTML pages are looked for
MAX_HTML_BYTES = 1 << 20
MAX_HTML_PAGES = 200  # per folder: a folder of generated pages is not read page by page
_WORD_BREAK = re.compile(r"[\s;&|()<>]+")
_NOT_A_PATH = re.compile(r"[*?$`{}\[\]]|://")


def _leaves(value: object) -> list[str]:
    """Every string inside a field: a path, a map of bins, or a nested exports map."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return []


def subpath_leaves(field: str, value: object) -> list[tuple[str, str]]:
    """``(subpath, path)`` for every path of an import field: under ``exports``, the subpath key that
    names it (``./sub``, ``./sub/*``; ``.`` for a string, a list or a map of conditions); ``.`` for
    ``main``, ``module``, ``types`` and ``typings``."""
    if field == "exports" and isinstance(value, dict) and any(isinstance(k, str) and k.startswith(".") for k in value):
        return [(k, leaf) for k, v in value.items() if isinstance(k, str) and k.startswith(".") for leaf in _leaves(v)]
    return [(".", leaf) for leaf in _leaves(value)]


_REGEX_SPECIAL = frozenset(".^$*+?()[]{}|\\")


def _literal(text: str) -> str:
    return "".join("\\" + c if c in _REGEX_SPECIAL else c for c in text)


def subpath_regex(name: str, subpath: str) -> str:
    """The anchored regex over bare specifiers that import ``subpath`` of package ``name``, as Node
    matches an exports key: ``.`` is the name itself, ``*`` stands for any text (``/`` included), a key
    ending in ``/`` for everything below it."""
    rest = subpath[1:] if subpath.startswith(".") else "/" + subpath
    tail = "(.*)" if rest.endswith("/") else ""
    return "^" + ".*".join(_literal(part) for part in (name + rest).split("*")) + tail + "$"


class PackageEntries(list[tuple[str, str]]):
    """The ``(path, field)`` pairs of ``src_entry``, sorted (a list, as the caller has always had), and
    the package facts the same reading of the package.json files found: ``owners`` (path -> (package
    folder, path inside it)) and ``offered`` ((package folder, path, field) of ``src_package_entry``)."""

    owners: dict[str, tuple[str, str]]
    offered: list[tuple[str, str, str]]
    subpaths: list[tuple[str, str, str, str]]  # (package folder, path, subpath, regex) of src_package_subpath


def package_entries(
    src: str, package_files: tuple[str, ...], files: set[str], errors: dict[str, str] | None = None
) -> PackageEntries:
    """``(path, field)`` pairs, sorted: each scanned file a package.json field points at.

    The package.json files are the listed ones and those of the workspace's member folders (a
    member's package.json that git ignores, as zod's generated one, still names entry points).
    Those that are refused or do not parse are added to ``errors`` (path -> message).  The result
    also carries each file's package and the files each package offers by name (``PackageEntries``).
    """
    from rofl.scanner.workspaces import package_manifests, workspace_globs

    found: set[tuple[str, str]] = set()
    store = ConfigStore(src)
    manifests = package_manifests(src, package_files, workspace_globs(src, store))
    named: dict[str, dict] = {}  # package folder ("" for SRC) -> its package.json, for those with a name
    for rel in manifests:
        data = store.read(os.path.join(src, rel))
        if not isinstance(data, dict):
            continue
        folder = posixpath.dirname(rel)
        if isinstance(data.get("name"), str) and data["name"]:
            named[folder] = data
        for field in FIELDS:
            for leaf in _leaves(data.get(field)):
                if "*" in leaf:
                    continue
                target = posixpath.normpath(posixpath.join(folder, leaf))
                if not target.startswith(".."):
                    found.update((hit, field) for hit in probe(target, files))
        scripts = data.get(SCRIPTS)
        for command in scripts.values() if isinstance(scripts, dict) else ():
            for word in script_paths(command) if isinstance(command, str) else ():
                target = posixpath.normpath(posixpath.join(folder, word))
                if not target.startswith(".."):
                    found.update((hit, SCRIPTS) for hit in probe(target, files))
        found.update((hit, HTML) for hit in html_entries(src, folder, files))
    if "package.json" not in manifests:
        found.update((hit, HTML) for hit in html_entries(src, "", files))  # a scan without a package.json
    if errors is not None:
        errors.update(store.errors)
    out = PackageEntries(sorted(found))
    out.owners = package_owners(files, set(named))
    offered = offered_files(src, named, files, out.owners, package_files, store)  # after the errors are taken
    out.offered = sorted({(d, p, f) for d, p, f, _ in offered})
    out.subpaths = sorted(
        {(d, p, sub, subpath_regex(named["" if d == "." else d]["name"], sub)) for d, p, _, sub in offered}
    )
    return out


def package_owners(files: set[str], folders: set[str]) -> dict[str, tuple[str, str]]:
    """path -> (package folder, path inside it) for each file under a named package: the nearest
    folder at or above it that is one (``"."`` for SRC); files under none are left out."""
    owners: dict[str, tuple[str, str]] = {}
    for path in files:
        folder = posixpath.dirname(path)
        while True:
            if folder in folders:
                owners[path] = (folder or ".", path[len(folder) + 1 :] if folder else path)
                break
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return owners


def offered_files(
    src: str,
    named: dict[str, dict],
    files: set[str],
    owners: dict[str, tuple[str, str]],
    package_files: tuple[str, ...],
    store: ConfigStore,
) -> list[tuple[str, str, str, str]]:
    """``(package folder, path, field, subpath)``, sorted: the files of its own (not a nested package's)
    that each named package offers by name, and the ``exports`` subpath offering each (``.`` for the
    other fields and the name).  Each ``IMPORT_FIELDS`` path (every leaf of ``exports``,
    whatever its condition) is probed as ``src_entry`` does.  A package none of whose paths is a
    scanned file is asked of the resolver: each path as a relative import from the package folder and
    the package's own name from inside it (Field ``name``), which map a build output to its source
    where the resolver does; a package with no such field offers its index file, as Node loads it."""
    from rofl.scanner.probe import probe_index

    out: set[tuple[str, str, str, str]] = set()
    unfound: list[tuple[str, dict, list[tuple[str, str, str]]]] = []
    for folder, data in named.items():
        package = folder or "."
        leaves: list[tuple[str, str, str]] = [
            (field, leaf, sub)
            for field in IMPORT_FIELDS
            for sub, leaf in subpath_leaves(field, data.get(field))
            if "*" not in leaf
        ]
        found = False
        for field, leaf, sub in leaves:
            target = posixpath.normpath(posixpath.join(folder, leaf))
            if not target.startswith(".."):
                hits = _own(probe(target, files), owners, package)
                out.update((package, hit, field, sub) for hit in hits)
                found = found or bool(hits)
        if not leaves:
            out.update((package, hit, NAME, ".") for hit in _own(probe_index(folder, files, []), owners, package))
        elif not found:
            unfound.append((folder, data, leaves))
    if unfound:
        out.update(_resolved_entries(src, unfound, files, owners, package_files, store))
    return sorted(out)


def _own(hits: tuple[str, ...] | list[str], owners: dict[str, tuple[str, str]], package: str) -> list[str]:
    """The hits that belong to ``package`` itself (not to a package nested in it, nor another)."""
    return [h for h in hits if owners.get(h, ("",))[0] == package]


def _resolved_entries(
    src: str,
    unfound: list[tuple[str, dict, list[tuple[str, str, str]]]],
    files: set[str],
    owners: dict[str, tuple[str, str]],
    package_files: tuple[str, ...],
    store: ConfigStore,
) -> set[tuple[str, str, str, str]]:
    """What the resolver makes of the paths of packages none of whose paths is a scanned file (the
    configs it reads are no finding of the entries file: the caller took ``store``'s errors before)."""
    from rofl.scanner.resolve import Resolver
    from rofl.scanner.workspaces import workspace_packages

    resolver = Resolver(src, frozenset(files), workspace_packages(src, package_files, store), store)
    out: set[tuple[str, str, str, str]] = set()
    for folder, data, leaves in unfound:
        package = folder or "."
        importer = posixpath.join(folder, "package.json") if folder else "package.json"
        fields: dict[str, str] = {}  # each path as a relative specifier -> the first field naming it
        subs: dict[str, set[str]] = {}  # and the subpaths naming it
        for field, leaf, sub in leaves:
            spec = "./" + posixpath.normpath(leaf).lstrip("/")
            fields.setdefault(spec, field)
            subs.setdefault(spec, set()).add(sub)
        fields[data["name"]] = NAME
        subs[data["name"]] = {"."}
        answers, _ = resolver.resolve_all(importer, list(fields))
        for (spec, field), answer in zip(fields.items(), answers, strict=True):
            hits = _own(answer.targets, owners, package)
            out.update((package, hit, field, sub) for hit in hits for sub in subs[spec])
    return out


def script_paths(command: str) -> list[str]:
    """The words of a package.json script that name a file: with a folder or a source suffix, not an
    option, URL, pattern, absolute path or dotted name alone (``--config=vite.config.ts`` names
    ``vite.config.ts``; ``--ext .ts`` names nothing)."""
    out = []
    for raw in _WORD_BREAK.split(command):
        word = raw.strip("'\"")
        if word.startswith("-"):
            word = word.partition("=")[2]
        word = word.rstrip("/")
        if not word or _NOT_A_PATH.search(word) or word.startswith("/") or posixpath.basename(word)[:1] in ("", "."):
            continue
        if "/" in word or word.endswith(SOURCE_SUFFIXES):
            out.append(word)
    return out


class _ScriptSources(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            src = dict(attrs).get("src")
            if src:
                self.sources.append(src)


def script_sources(text: str) -> list[str]:
    """The ``src`` of every ``<script>`` of an HTML page, as written."""
    parser = _ScriptSources()
    parser.feed(text)
    parser.close()
    return parser.sources


def html_entries(src: str, folder: str, files: set[str]) -> set[str]:
    """The scanned files the HTML pages of a package folder load: ``/x`` from the folder (as Vite
    serves it), ``x`` and ``./x`` from the page's own folder; URLs and files outside SRC are skipped."""
    hits: set[str] = set()
    root_real = os.path.realpath(src)
    for sub in HTML_FOLDERS:
        where = posixpath.join(folder, sub) if sub else folder
        if not inside(os.path.realpath(os.path.join(src, where)), root_real):
            continue  # a folder linked out of SRC: its pages are not the repository's
        try:
            names = sorted(n for n in os.listdir(os.path.join(src, where)) if n.endswith(".html"))
        except OSError:
            continue
        for name in names[:MAX_HTML_PAGES]:
            try:
                data = read_nofollow(os.path.join(src, where, name), MAX_HTML_BYTES)
            except OSError:
                continue
            if data is None:
                continue
            for ref in script_sources(data.decode("utf-8", "replace")):
                ref = ref.split("?", 1)[0].split("#", 1)[0]
                if not ref or "://" in ref or ref.startswith("//") or ref.startswith("data:"):
                    continue
                base = folder if ref.startswith("/") else where
                target = posixpath.normpath(posixpath.join(base, ref.lstrip("/")))
                if target != ".." and not target.startswith("../"):
                    hits.update(probe(target, files))
    return hits


def write_entries(
    out: str,
    pairs: list[tuple[str, str]],
    config_errors: dict[str, str] | None = None,
    unreadable: dict[str, str] | None = None,
) -> dict[str, str]:
    """Write ``entries.rofl`` when its content changed; return its manifest record."""
    from rofl.scanner.factfile import write_if_changed

    lines = ["-- rofl scan: files that package.json names as entry points"]
    lines += [schema.SRC_ENTRY.fact(path, field) for path, field in pairs]
    if isinstance(pairs, PackageEntries):
        lines += [schema.SRC_PACKAGE.fact(path, *owner) for path, owner in sorted(pairs.owners.items())]
        lines += [schema.SRC_PACKAGE_ENTRY.fact(*row) for row in pairs.offered]
        lines += [schema.SRC_PACKAGE_SUBPATH.fact(*row) for row in pairs.subpaths]
    for config, message in sorted((config_errors or {}).items()):  # workspace package.json files
        lines.append(schema.SRC_CONFIG_ERROR.fact(config, message))
    for path, why in sorted((unreadable or {}).items()):
        lines.append(schema.SRC_PARSE_ERROR.fact(path, f"line 1: cannot read: {why}"))
    return write_if_changed(out, ENTRIES_NAME, ("\n".join(lines) + "\n").encode("utf-8"))
