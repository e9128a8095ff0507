"""Which files a tsconfig takes as its inputs: TypeScript's ``files``/``include``/``exclude`` matching, exactly.

A config's inputs (``tsc -p CONFIG``) are its ``files`` (exact paths, kept even when excluded), plus
the files its ``include`` globs match (``**/*`` when it sets neither ``files`` nor ``include``) that
no ``exclude`` glob matches (when it sets no ``exclude``: its ``outDir`` and ``declarationDir``;
``node_modules``, ``bower_components`` and ``jspm_packages`` are never matched by a wildcard).  The
globs are TypeScript's (``getSubPatternFromSpec`` of ``compiler/utilities.ts``, ported regex for
regex): ``*`` and ``?`` stay inside one name and never match a leading ``.``, ``**/`` spans folders
but not dot-folders, a last segment without ``.``, ``*`` or ``?`` is a folder (everything under it),
a ``*`` never ends in ``.min.js``, an include ending in ``**`` or with ``..`` after ``**`` is dropped
as tsc drops it; a wildcard takes only TypeScript's extensions (``.js``/``.jsx``/``.mjs``/``.cjs``
with ``allowJs``; a ``.vue``/``.svelte``/``.astro`` file when an include names that extension, as
vue-tsc and svelte-check do), and of ``a.ts``/``a.tsx``/``a.d.ts``/``a.js`` in one folder only the
first (``hasFileWithHigherPriorityExtension``).  The specs come absolute, ``${configDir}`` expanded
(``scanner.tsconfig.load``).  Both the resolver's choice of the governing tsconfig
(``scanner.tsconfig.TsConfigFinder``) and impact's governed files (``rofl.questions.tsconfig_scope``) match here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rofl.scanner.tsconfig import TsConfig

# compiler/utilities.ts, as TypeScript 5.9 builds its file-matching regular expressions
_IMPLICIT_EXCLUDE = "(?!(node_modules|bower_components|jspm_packages)(/|$))"
_FILES_SINGLE = r"([^./]|(\.(?!min\.js$))?)*"
_FILES_DOUBLE = "(/" + _IMPLICIT_EXCLUDE + "[^/.][^/]*)*?"
_EXCLUDE_SINGLE = "[^/]*"
_EXCLUDE_DOUBLE = "(/.+?)?"
_RESERVED = re.compile(r"[^A-Za-z0-9_\s/]")
_TRAILING_RECURSION = re.compile(r"(^|/)\*\*/?$")
_DOTDOT_AFTER_RECURSION = re.compile(r"(^|/)\*\*/(.*/)?\.\.($|/)")

TS_GROUPS = ((".ts", ".tsx", ".d.ts"), (".cts", ".d.cts"), (".mts", ".d.mts"))
ALL_GROUPS = ((".ts", ".tsx", ".d.ts", ".js", ".jsx"), (".cts", ".d.cts", ".cjs"), (".mts", ".d.mts", ".mjs"))
COMPONENT_EXTENSIONS = (".vue", ".svelte", ".astro")  # taken when an include names the extension


def components(path: str) -> list[str]:
    """TypeScript's ``getNormalizedPathComponents`` of an absolute POSIX path: the root, then the
    names with ``.`` dropped and ``..`` applied."""
    out: list[str] = []
    for part in path.split("/")[1:]:
        if part in ("", "."):
            continue
        if part == ".." and out and out[-1] != "..":
            out.pop()
        elif part != "..":
            out.append(part)
    return ["/", *out]


def _wildcard(ch: str, single: str) -> str:
    if ch == "*":
        return single
    if ch == "?":
        return "[^/]"
    return re.escape(ch)


def sub_pattern(spec: str, usage: str) -> str | None:
    """The regular expression of one absolute spec for ``usage`` ``files`` (include) or ``exclude``."""
    single, double = (_EXCLUDE_SINGLE, _EXCLUDE_DOUBLE) if usage == "exclude" else (_FILES_SINGLE, _FILES_DOUBLE)
    parts = components(spec)
    last = parts[-1]
    if usage != "exclude" and last == "**":
        return None
    parts[0] = ""
    if not re.search(r"[.*?]", last):  # a folder: everything under it
        parts.extend(("**", "*"))
    out = ""
    written = False
    for component in parts:
        if component == "**":
            out += double
        else:
            if written:
                out += "/"
            if usage != "exclude":
                pattern = ""
                if component.startswith("*"):
                    pattern += "([^./]" + single + ")?"
                    component = component[1:]
                elif component.startswith("?"):
                    pattern += "[^./]"
                    component = component[1:]
                pattern += _RESERVED.sub(lambda m: _wildcard(m.group(), single), component)
                if pattern != component:
                    out += _IMPLICIT_EXCLUDE
                out += pattern
            else:
                out += _RESERVED.sub(lambda m: _wildcard(m.group(), single), component)
        written = True
    return out


def spec_regex(specs: Iterable[str], usage: str) -> re.Pattern[str] | None:
    """``getRegularExpressionForWildcard``: one regex for absolute specs (None when none is usable)."""
    parts = [p for p in (sub_pattern(s, usage) for s in specs) if p is not None]
    if not parts:
        return None
    end = "($|/)" if usage == "exclude" else "$"
    return re.compile("^(" + "|".join(f"({p})" for p in parts) + ")" + end, re.DOTALL)


def base_path(spec: str) -> str:
    """The folder before a spec's first wildcard segment (what a matching path must lie under)."""
    parts = components(spec)[1:]
    kept: list[str] = []
    for part in parts:
        if re.search(r"[*?]", part):
            break
        kept.append(part)
    if len(kept) == len(parts) and kept and re.search(r"[.*?]", kept[-1]):
        kept.pop()  # a file name: its folder
    return "/" + "/".join(kept)


def valid_include(spec: str) -> bool:
    """tsc drops (with an error) an include ending in ``**`` or with ``..`` after a ``**``."""
    return not _TRAILING_RECURSION.search(spec) and not _DOTDOT_AFTER_RECURSION.search(spec)


def _extension(path: str, groups: tuple[tuple[str, ...], ...]) -> tuple[int, int] | None:
    """(group, priority) of the extension ``path`` ends with in TypeScript's supported groups."""
    best: tuple[int, int] | None = None
    longest = -1
    for g, group in enumerate(groups):
        for p, ext in enumerate(group):
            if path.endswith(ext) and len(ext) > longest:
                best, longest = (g, p), len(ext)
    return best


def _stem(path: str, groups: tuple[tuple[str, ...], ...]) -> str:
    ext = max((e for group in groups for e in group if path.endswith(e)), key=len, default="")
    return path[: len(path) - len(ext)]


@dataclass(frozen=True, slots=True)
class Inputs:
    """One config's input rules, compiled: literal ``files``, the include and exclude regexes."""

    files: frozenset[str]  # absolute, normalised
    include: re.Pattern[str] | None
    exclude: re.Pattern[str] | None
    bases: tuple[str, ...]  # the folders the includes' matches lie under
    groups: tuple[tuple[str, ...], ...]  # the extension groups a wildcard takes (allowJs adds the JS ones)
    extra: tuple[str, ...]  # component extensions an include names

    @classmethod
    def of(cls, config: TsConfig) -> Inputs:
        include = config.include
        if config.file_list is None and include is None:
            include = (os.path.join(os.path.dirname(config.path), "**", "*"),)
        includes = [s.replace(os.sep, "/") for s in include or () if valid_include(s)]
        if config.exclude is not None:
            excludes = [s.replace(os.sep, "/") for s in config.exclude]
        else:  # TypeScript's default: the build output (a wildcard never enters node_modules anyway)
            excludes = [d for d in (config.out_dir, config.declaration_dir) if d]
        return cls(
            frozenset(os.path.normpath(f) for f in config.file_list or ()),
            spec_regex(includes, "files"),
            spec_regex(excludes, "exclude"),
            tuple(sorted({base_path(s) for s in includes})),
            ALL_GROUPS if config.allow_js else TS_GROUPS,
            tuple(e for e in COMPONENT_EXTENSIONS if any(s.endswith(e) for s in includes)),
        )

    def wildcard(self, path: str) -> bool:
        """True when the include globs take ``path`` (absolute POSIX) and no exclude glob drops it,
        before the extension-priority rule."""
        if self.include is None:
            return False
        if _extension(path, self.groups) is None and not path.endswith(self.extra or ("\0",)):
            return False
        return self.include.match(path) is not None and not (self.exclude is not None and self.exclude.match(path))

    def holds(self, path: str, exists: Callable[[str], bool] = os.path.isfile) -> bool:
        """True when ``path`` (absolute, normalised) is one of the config's inputs; ``exists`` says
        whether a sibling with a higher-priority extension is there (the file system by default)."""
        if path in self.files:
            return True
        posix = path.replace(os.sep, "/")
        if not self.wildcard(posix):
            return False
        return not any(
            sibling in self.files or (exists(sibling) and self.wildcard(sibling.replace(os.sep, "/")))
            for sibling in self._higher(path)
        )

    def select(self, paths: Iterable[str]) -> set[str]:
        """Of the absolute POSIX ``paths`` (the files under ``bases``), those the wildcards take, as
        ``tsc`` lists them (a higher-priority sibling among them or among ``files`` wins); the literal
        ``files`` are the caller's to add."""
        wild = {p for p in paths if self.wildcard(p)}
        matched = wild | self.files
        return {p for p in wild if not any(s in matched for s in self._higher(p))}

    def _higher(self, path: str) -> list[str]:
        """The same stem with each extension of its group that wins over its own
        (``hasFileWithHigherPriorityExtension``; a ``.d.ts`` never beats a ``.js``/``.jsx``)."""
        where = _extension(path, self.groups)
        if where is None:
            return []
        group, priority = where
        stem = _stem(path, self.groups)
        return [
            stem + ext
            for ext in self.groups[group][:priority]
            if not (ext == ".d.ts" and path.endswith((".js", ".jsx")))
        ]
