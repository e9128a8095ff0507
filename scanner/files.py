"""Which files a scan looks at: git's list inside a work tree, else a filtered walk; globs narrow it.

Paths are relative to SRC with POSIX separators.  Inside a git work tree the list is git's tracked
files plus untracked files that are not ignored (an SRC that git ignores as a whole is walked).
Elsewhere the walk skips ``node_modules``, ``.git``, ``dist``, ``build``, ``coverage`` and hidden
folders.  Symlinks are followed only while they stay inside SRC, and each real folder is entered
once, so a symlink loop ends the walk of that branch instead of the scan.  A name with a source
suffix that is not a regular file inside SRC (a FIFO, a device, a socket, a symlink loop, a link
out of SRC) is listed all the same: ``source_stat`` refuses it with the reason (``Refused``), and
the scan reports it instead of dropping it in silence.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass

SOURCE_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte", ".astro")
COMPONENT_SUFFIXES = {".vue": "vue", ".svelte": "svelte", ".astro": "astro"}
SKIPPED_FOLDERS = frozenset({"node_modules", ".git", "dist", "build", "coverage"})
PACKAGE_JSON = "package.json"


class Refused(OSError):
    """A listed source that is not read, and why (``strerror``): not a regular file, or a link out of SRC."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a folder" if stat.S_ISDIR(mode) else "not a regular file"


@dataclass(frozen=True, slots=True)
class Listing:
    """The files of one scan: sources to extract and package.json files (workspace packages)."""

    sources: tuple[str, ...]
    packages: tuple[str, ...]
    from_git: bool


def grammar_for(path: str) -> str:
    """The tree-sitter grammar for a source path: ``javascript``, ``typescript`` or ``tsx``; or, for a
    single-file component, its kind (``vue``, ``svelte``, ``astro``), whose script blocks say their grammar."""
    if path.endswith(".tsx"):
        return "tsx"
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    dot = path.rfind(".")
    return COMPONENT_SUFFIXES.get(path[dot:], "javascript") if dot != -1 else "javascript"


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


class PathFilter:
    """--include / --exclude globs over relative paths."""

    __slots__ = ("include", "exclude")

    def __init__(self, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> None:
        self.include = tuple(glob_to_regex(g) for g in include)
        self.exclude = tuple(glob_to_regex(g) for g in exclude)

    def keeps_source(self, path: str) -> bool:
        if self.include and not any(p.match(path) for p in self.include):
            return False
        return not any(p.match(path) for p in self.exclude)

    def keeps_package(self, path: str) -> bool:
        return not any(p.match(path) for p in self.exclude)


def run_git(src: str, *args: str, stderr: int | None = None) -> tuple[int, bytes]:
    """Run ``git -C src args`` and return (exit status, stdout); (127, b"") when git is missing.

    The one git runner (the scanner's listing, ``rofl impact --git-base``): git's error output goes to the
    file descriptor ``stderr`` when given, else nowhere.

    ``os.posix_spawnp`` instead of ``subprocess``: importing subprocess costs more than the
    whole no-change rescan can spare.
    """
    read_end, write_end = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [
        (os.POSIX_SPAWN_DUP2, devnull, 0),
        (os.POSIX_SPAWN_DUP2, write_end, 1),
        (os.POSIX_SPAWN_DUP2, devnull if stderr is None else stderr, 2),
        (os.POSIX_SPAWN_CLOSE, read_end),
    ]
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    try:
        pid = os.posix_spawnp("git", ["git", "-C", src, *args], env, file_actions=actions)
    except OSError:
        os.close(read_end)
        return 127, b""
    finally:
        os.close(write_end)
        os.close(devnull)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(1 << 16):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks)


def _git_listing(src: str) -> list[str] | None:
    """git's view of SRC (tracked + untracked-not-ignored), or None outside a work tree."""
    code, out = run_git(src, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
    if code != 0:
        return None
    names = [os.fsdecode(raw) for raw in out.split(b"\0") if raw]
    if not names and run_git(src, "check-ignore", "-q", ".")[0] == 0:
        return None  # SRC itself is ignored by the enclosing repository: walk it
    return names


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _walk(src: str) -> list[str]:
    root_real = os.path.realpath(src)
    found: list[str] = []
    linked: set[str] = set()  # real folders entered through a symlink
    stack: list[tuple[str, str, str]] = [(src, "", root_real)]
    while stack:
        folder, rel, real_folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            rel_path = rel + name
            try:
                is_link = entry.is_symlink()
                try:
                    is_dir = entry.is_dir()
                except OSError:  # a symlink loop: listed when named like a source, refused by source_stat
                    is_dir = False
                if is_dir:
                    if name in SKIPPED_FOLDERS or name.startswith("."):
                        continue
                    if is_link:
                        real = os.path.realpath(entry.path)
                        if not _inside(real, root_real) or _inside(real_folder, real) or real in linked:
                            continue  # out of SRC, a loop back to an ancestor, or already entered
                        linked.add(real)
                    else:
                        real = real_folder + os.sep + name
                    stack.append((entry.path, rel_path + "/", real))
                elif is_source(name):
                    found.append(rel_path)  # special files and links out of SRC too: source_stat says why
                elif entry.is_file():
                    if is_link and not _inside(os.path.realpath(entry.path), root_real):
                        continue
                    found.append(rel_path)
            except OSError:  # vanished while walking: not the scan's problem
                continue
    return found


def source_stat(full: str, root_real: str) -> os.stat_result | None:
    """The stat of a listed source, or None when it is gone (deleted, or a dangling link).

    One ``lstat`` for the common case; a symlink costs a ``stat`` of its target (whose size and
    mtime are what tell a change) and a ``realpath``.  Raises ``Refused`` for a source that is not
    read: a FIFO, device or socket (never opened: a read could block or never end), a symlink loop,
    a symlink to a file outside SRC (never followed); OSError for other failures.
    """
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(full)
        except FileNotFoundError:
            return None  # a dangling link
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise Refused(errno.ELOOP, "a symlink loop, not followed", full) from None
            raise
        if not _inside(os.path.realpath(full), root_real):
            raise Refused(errno.EXDEV, "a symlink to a file outside SRC, not followed", full)
    if not stat.S_ISREG(st.st_mode):
        raise Refused(errno.EINVAL, f"{_kind(st.st_mode)}, not a regular file, not read", full)
    return st


def list_files(src: str, path_filter: PathFilter) -> Listing:
    """List the sources and package.json files under ``src`` (an existing folder).

    git may list symlinks that leave SRC and files deleted from the work tree; ``source_stat``
    refuses the first and drops the second when the scan stats each file.
    """
    names = _git_listing(src)
    from_git = names is not None
    if names is None:
        names = _walk(src)
    sources: list[str] = []
    packages: list[str] = []
    for name in names:
        if is_source(name):
            if path_filter.keeps_source(name):
                sources.append(name)
        elif name == PACKAGE_JSON or name.endswith("/" + PACKAGE_JSON):
            if path_filter.keeps_package(name):
                packages.append(name)
    sources.sort()
    packages.sort()
    return Listing(tuple(sources), tuple(packages), from_git)
