"""Which scanned file a path names: the suffix tables and the probe order, shared by resolution and entry points.

A path ``base`` (relative to SRC, no ``./``) is probed as a file in this order: for a ``.js``,
``.jsx``, ``.mjs`` or ``.cjs`` path the TypeScript sources it names first (``.ts .tsx .d.ts`` /
``.tsx .ts .d.ts`` / ``.mts .d.mts`` / ``.cts .d.cts``), for a ``.ts``, ``.tsx``, ``.mts`` or
``.cts`` path the path and then what TypeScript tries in its place (``.ts .tsx .d.ts`` / ``.tsx .ts
.d.ts`` / ``.mts .d.mts`` / ``.cts .d.cts``: ``./x.ts`` in a declaration file is ``x.d.ts``), then
the path as written, then the path plus each of ``EXTENSIONS``.  For a build output path
(``dist/x.d.ts``, mapped back to the sources' folder) the sources that compile to it come before all
of that.  As a folder, ``index`` plus each of ``EXTENSIONS``.  A hit brings its partner when that is
scanned too: ``x.js`` beside a declaration ``x.d.ts``; ``x.js`` itself when the path ``x.js`` led to
``x.ts``; for a component ``X.svelte`` (``.vue``, ``.astro``: an extension TypeScript does not load)
named as written, the file TypeScript resolves the path to instead (``X.d.svelte.ts``,
``X.svelte.ts``, ``X.svelte.tsx`` or ``X.svelte.d.ts``, the first there), and for a declaration
``X.svelte.d.ts`` the component ``X.svelte`` beside it.  Both sides of such a pair are targets: a
bundler loads one, TypeScript checks against the other.

Every candidate looked at is appended to ``probed`` (the caller's record of what the answer
depended on), found or not, in probe order.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection

from rofl.scanner.files import COMPONENT_SUFFIXES

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
JS_TO_TS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx", ".ts", ".d.ts"),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
# a TypeScript path: what TypeScript tries for it, in order (the path itself first)
TS_ALTERNATIVES = {
    ".ts": (".ts", ".tsx", ".d.ts"),
    ".tsx": (".tsx", ".ts", ".d.ts"),
    ".mts": (".mts", ".d.mts"),
    ".cts": (".cts", ".d.cts"),
}
DECLARATION_RUNTIME = {".d.ts": (".js", ".jsx"), ".d.mts": (".mjs",), ".d.cts": (".cjs",)}
# a build output path: the sources that compile to it (a dual build emits .cjs/.d.cts from .ts too)
BUILD_SOURCE = {
    ".d.ts": (".ts", ".tsx"),
    ".d.mts": (".mts", ".ts", ".tsx"),
    ".d.cts": (".cts", ".ts", ".tsx"),
    ".mjs": (".mts", ".ts", ".tsx"),
    ".cjs": (".cts", ".ts", ".tsx"),
}


def file_candidates(base: str, from_build: bool = False) -> list[str]:
    """The paths ``base`` may name as a file, in probe order."""
    candidates: list[str] = []
    if from_build:  # a build output path: the sources that compile to it come first
        for built, sources in BUILD_SOURCE.items():
            if base.endswith(built):
                candidates.extend(base[: -len(built)] + s for s in sources)
                break
    stem, ext = posixpath.splitext(base)
    mapped = JS_TO_TS.get(ext)
    if mapped is None and not base.endswith(tuple(DECLARATION_RUNTIME)):
        mapped = TS_ALTERNATIVES.get(ext)
    if mapped is not None:
        candidates.extend(stem + m for m in mapped)
    if base not in candidates:
        candidates.append(base)
    candidates.extend(base + e for e in EXTENSIONS)
    return candidates


def index_candidates(folder: str) -> list[str]:
    """The index files of ``folder`` (``"."`` for SRC itself), in probe order."""
    prefix = "" if folder in ("", ".") else folder + "/"
    return [prefix + "index" + ext for ext in EXTENSIONS]


def _component(path: str) -> bool:
    """True for a component (``.svelte``, ``.vue``, ``.astro``): a source TypeScript does not load."""
    return posixpath.splitext(path)[1] in COMPONENT_SUFFIXES


def _first(candidates: list[str], hit: str, files: Collection[str], probed: list[str]) -> tuple[str, ...]:
    """``hit`` and the first of ``candidates`` that is scanned (each probe recorded), sorted; ``(hit,)`` when none is."""
    for candidate in candidates:
        probed.append(candidate)
        if candidate in files:
            return tuple(sorted((hit, candidate)))
    return (hit,)


def with_runtime(hit: str, files: Collection[str], probed: list[str], base: str | None = None) -> tuple[str, ...]:
    """The hit plus its partner when scanned: ``x.js`` for a declaration ``x.d.ts``; ``x.js`` itself when
    a path ``x.js`` (``base``) led to the TypeScript source ``x.ts`` (an extensionless ``x`` is
    TypeScript's ``x.ts`` only: bundlers differ on which comes first); TypeScript's file for a
    component named as written (``X.svelte.d.ts`` for ``X.svelte``), and the component beside a
    declaration ``X.svelte.d.ts``; sorted."""
    if base is not None and hit == base and _component(hit):
        stem, ext = posixpath.splitext(hit)
        return _first([f"{stem}.d{ext}.ts", hit + ".ts", hit + ".tsx", hit + ".d.ts"], hit, files, probed)
    if base is not None and hit != base and not hit.endswith(tuple(DECLARATION_RUNTIME)):
        if posixpath.splitext(base)[1] in JS_TO_TS:
            return _first([base], hit, files, probed)
        return (hit,)
    for decl, runtimes in DECLARATION_RUNTIME.items():
        if hit.endswith(decl):
            stem = hit[: -len(decl)]
            component = [stem] if decl == ".d.ts" and _component(stem) else []
            return _first([*component, *(stem + ext for ext in runtimes)], hit, files, probed)
    return (hit,)


def probe_file(base: str, files: Collection[str], probed: list[str], from_build: bool = False) -> tuple[str, ...]:
    """The scanned files ``base`` names as a file (the first hit and its runtime partner), or ``()``."""
    for candidate in file_candidates(base, from_build):
        probed.append(candidate)
        if candidate in files:
            return with_runtime(candidate, files, probed, base)
    return ()


def probe_index(folder: str, files: Collection[str], probed: list[str]) -> tuple[str, ...]:
    """The scanned index file of ``folder`` (and its runtime partner), or ``()``."""
    for candidate in index_candidates(folder):
        probed.append(candidate)
        if candidate in files:
            return with_runtime(candidate, files, probed)
    return ()


def probe(base: str, files: Collection[str], probed: list[str] | None = None) -> tuple[str, ...]:
    """The scanned files ``base`` names as a file, else as a folder's index file; ``()`` when none."""
    record: list[str] = [] if probed is None else probed
    return probe_file(base, files, record) or probe_index(base, files, record)
