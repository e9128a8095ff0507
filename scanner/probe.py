"""Which scanned file a path names: the suffix tables and the probe order, shared by resolution and entry points.

A path ``base`` (relative to SRC, no ``./``) is probed as a file in this order: for a ``.js``,
``.jsx``, ``.mjs`` or ``.cjs`` path the TypeScript sources it names first (``.ts .tsx .d.ts`` /
``.tsx .ts .d.ts`` / ``.mts .d.mts`` / ``.cts .d.cts``), then the path as written, then the path
plus each of ``EXTENSIONS``.  For a build output path (``dist/x.d.ts``, mapped back to the sources'
folder) the sources that compile to it come before all of that.  As a folder, ``index`` plus each of
``EXTENSIONS``.  A hit brings its runtime partner when that is scanned too: ``x.js`` beside a
declaration ``x.d.ts``, and ``x.js`` itself when the path ``x.js`` led to ``x.ts``.

Every candidate looked at is appended to ``probed`` (the caller's record of what the answer
depended on), found or not, in probe order.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
JS_TO_TS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx", ".ts", ".d.ts"),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
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
    if mapped is not None:
        candidates.extend(stem + m for m in mapped)
    candidates.append(base)
    candidates.extend(base + e for e in EXTENSIONS)
    return candidates


def index_candidates(folder: str) -> list[str]:
    """The index files of ``folder`` (``"."`` for SRC itself), in probe order."""
    prefix = "" if folder in ("", ".") else folder + "/"
    return [prefix + "index" + ext for ext in EXTENSIONS]


def with_runtime(hit: str, files: Collection[str], probed: list[str], base: str | None = None) -> tuple[str, ...]:
    """The hit plus its runtime partner when scanned: ``x.js`` for a declaration ``x.d.ts``, and ``x.js``
    itself when a path ``x.js`` (``base``) led to the TypeScript source ``x.ts`` (an extensionless ``x``
    is TypeScript's ``x.ts`` only: bundlers differ on which comes first); sorted."""
    if base is not None and hit != base and not hit.endswith(tuple(DECLARATION_RUNTIME)):
        if posixpath.splitext(base)[1] in JS_TO_TS:
            probed.append(base)
            if base in files:
                return tuple(sorted((hit, base)))
        return (hit,)
    for decl, runtimes in DECLARATION_RUNTIME.items():
        if hit.endswith(decl):
            stem = hit[: -len(decl)]
            for ext in runtimes:
                probed.append(stem + ext)
                if stem + ext in files:
                    return tuple(sorted((hit, stem + ext)))
            break
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
