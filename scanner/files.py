"""Which files a scan looks at: git's list inside a work tree, else a filtered walk; globs narrow it.

Paths are relative to SRC with POSIX separators.  Inside a git work tree the list is git's tracked
files plus untracked files that are not ignored (an SRC that git ignores as a whole is walked).
Elsewhere the walk skips ``node_modules``, ``.git``, ``dist``, ``build``, ``coverage`` and hidden
folders.  Symlinks are followed only while they stay inside SRC, and each real folder is entered
once, so a symlink loop ends the walk of that branch instead of the scan.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass

SOURCE_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
SKIPPED_FOLDERS = frozenset({"node_modules", ".git", "dist", "build", "coverage"})
PACKAGE_JSON = "package.json"


@dataclass(frozen=True, slots=True)
class Listing:
    """The files of one scan: sources to extract and package.json files (workspace packages)."""

    sources: tuple[str, ...]
    packages: tuple[str, ...]
    from_git: bool


def grammar_for(path: str) -> str:
    """The tree-sitter grammar for a source path: ``javascript``, ``typescript`` or ``tsx``."""
    if path.endswith(".tsx"):
        return "tsx"
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


def is_source(path: str) -> bool:
    return path.endswith(SOURCE_SUFFIXES)


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob: ``**`` spans folders, ``*`` and ``?`` stay inside one segment.

    A pattern without ``/`` also matches a path's last segment (``*.test.ts`` anywhere).
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body + "]")
                i = end + 1
                continue
        else:
            out.append(re.escape(ch))
        i += 1
    body = "".join(out)
    if "/" not in pattern:
        body = "(?:.*/)?" + body
    return re.compile(body + r"\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class PathFilter:
    """--include / --exclude globs over relative paths."""

    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]

    @classmethod
    def from_globs(cls, include: tuple[str, ...], exclude: tuple[str, ...]) -> PathFilter:
        return cls(tuple(glob_to_regex(g) for g in include), tuple(glob_to_regex(g) for g in exclude))

    def keeps_source(self, path: str) -> bool:
        if self.include and not any(p.match(path) for p in self.include):
            return False
        return not any(p.match(path) for p in self.exclude)

    def keeps_package(self, path: str) -> bool:
        return not any(p.match(path) for p in self.exclude)


def _git_listing(src: str) -> list[str] | None:
    """git's view of SRC (tracked + untracked-not-ignored), or None outside a work tree."""
    try:
        proc = subprocess.run(
            ["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
    except OSError:  # git is not installed
        return None
    if proc.returncode != 0:
        return None
    names = [os.fsdecode(raw) for raw in proc.stdout.split(b"\0") if raw]
    if not names and _git_ignores(src):
        return None
    return names


def _git_ignores(src: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", src, "check-ignore", "-q", "."],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    return proc.returncode == 0


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _walk(src: str) -> list[str]:
    root_real = os.path.realpath(src)
    found: list[str] = []
    seen_dirs = {root_real}
    stack: list[tuple[str, str]] = [(src, "")]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            rel_path = rel + name
            try:
                is_link = entry.is_symlink()
                if entry.is_dir():
                    if name in SKIPPED_FOLDERS or name.startswith("."):
                        continue
                    real = os.path.realpath(entry.path)
                    if is_link and not _inside(real, root_real):
                        continue
                    if real in seen_dirs:  # a symlink loop or a second way into one folder
                        continue
                    seen_dirs.add(real)
                    stack.append((entry.path, rel_path + "/"))
                elif entry.is_file():
                    if is_link and not _inside(os.path.realpath(entry.path), root_real):
                        continue
                    found.append(rel_path)
            except OSError:  # vanished while walking, or a symlink loop: not the scan's problem
                continue
    return found


def _keep_git_entry(src: str, rel: str, root_real: str) -> bool:
    """Drop git entries that are symlinks pointing out of SRC (and gitlinks, which are folders)."""
    full = os.path.join(src, rel)
    try:
        mode = os.lstat(full).st_mode
    except OSError:
        return True  # deleted in the work tree: the stat pass drops it
    if stat.S_ISLNK(mode):
        try:
            return _inside(os.path.realpath(full), root_real) and os.path.isfile(full)
        except OSError:
            return False
    return True


def list_files(src: str, path_filter: PathFilter) -> Listing:
    """List the sources and package.json files under ``src`` (an existing folder)."""
    names = _git_listing(src)
    from_git = names is not None
    if names is None:
        names = _walk(src)
    sources: list[str] = []
    packages: list[str] = []
    root_real = os.path.realpath(src) if from_git else ""
    for name in names:
        if is_source(name):
            if path_filter.keeps_source(name):
                sources.append(name)
        elif name == PACKAGE_JSON or name.endswith("/" + PACKAGE_JSON):
            if path_filter.keeps_package(name):
                packages.append(name)
    if from_git:
        sources = [s for s in sources if _keep_git_entry(src, s, root_real)]
    sources.sort()
    packages.sort()
    return Listing(tuple(sources), tuple(packages), from_git)

