"""Entry points of workspace packages: the scanned files a package.json names in main, module, types,
bin or exports, the files its ``scripts`` name (``node scripts/build.mjs``, ``tsx src/cli.ts``), and the
files an HTML page beside it loads with ``<script src>`` (``index.html``, ``public/*.html``, ``src/*.html``).

``entries.rofl`` also holds the scan's findings that belong to no source's fact file:
``src_config_error`` for workspace package.json files, and ``src_parse_error(Path, "line 1:
cannot read: ...")`` for sources that could not be read (they have no fact file of their own).
"""

from __future__ import annotations

import os
import posixpath
import re
from html.parser import HTMLParser

from engine.safe_write import read_nofollow
from scanner import schema
from scanner.files import SOURCE_SUFFIXES, inside
from scanner.layout import ENTRIES_NAME
from scanner.probe import probe

FIELDS = ("main", "module", "types", "typings", "bin", "exports")
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


def package_entries(
    src: str, package_files: tuple[str, ...], files: set[str], errors: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(path, field)`` pairs, sorted: each scanned file a package.json field points at.

    The package.json files are the listed ones and those of the workspace's member folders (a
    member's package.json that git ignores, as zod's generated one, still names entry points).
    Those that are refused or do not parse are added to ``errors`` (path -> message).
    """
    from scanner.configs import ConfigStore
    from scanner.workspaces import package_manifests, workspace_globs

    found: set[tuple[str, str]] = set()
    store = ConfigStore(src)
    manifests = package_manifests(src, package_files, workspace_globs(src, store))
    for rel in manifests:
        data = store.read(os.path.join(src, rel))
        if not isinstance(data, dict):
            continue
        folder = posixpath.dirname(rel)
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
    return sorted(found)


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
    from scanner.factfile import write_if_changed

    lines = ["-- rofl scan: files that package.json names as entry points"]
    lines += [schema.SRC_ENTRY.fact(path, field) for path, field in pairs]
    for config, message in sorted((config_errors or {}).items()):  # workspace package.json files
        lines.append(schema.SRC_CONFIG_ERROR.fact(config, message))
    for path, why in sorted((unreadable or {}).items()):
        lines.append(schema.SRC_PARSE_ERROR.fact(path, f"line 1: cannot read: {why}"))
    return write_if_changed(out, ENTRIES_NAME, ("\n".join(lines) + "\n").encode("utf-8"))
