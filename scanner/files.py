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
from collections.abc import Mapping
from dataclasses import dataclass, field

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
    top: str | None = None  # the (real) root of the verified git work tree SRC lies in, if any
    # a folder walk: each folder it listed ("" for SRC) -> the names in it, ``folded``
    walked: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)

    def surely_absent(self, rel: str) -> bool:
        """True when the walk shows that nothing is at ``rel`` (a normalized path relative to SRC):
        a folder it listed, on the way to ``rel``, holds no entry of that name.  False when it cannot
        tell (a git listing, a path through a folder it did not enter); a stat must say then.

        Names compare case-folded (and NFC-normalized): on a file system that ignores case, ``Foo``
        listed makes ``foo`` present too, so folding errs towards a stat, never towards absent."""
        walked = self.walked
        if not walked:
            return False
        path = rel
        while True:
            parent, _, name = path.rpartition("/")
            if name in ("", ".", ".."):  # not a normalized path: only a stat can tell
                return False
            names = walked.get(parent)
            if names is not None:
                return folded(name) not in names
            if not parent:
                return False
            path = parent


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


# git reads the configuration of the repository it runs in, and SRC's repository is not trusted: a
# ``.git/config`` from an archive can name programs (fsmonitor, hooks, pagers, credential helpers,
# transports for a lazy fetch, diff drivers, filters), and a folder shaped like a bare repository is
# a repository too.  Every run turns those off; command-line configuration wins over the repository's
# and reaches any git that git itself starts.
HARDENED_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.askPass=",
    "core.sshCommand=",
    "core.gitProxy=",
    "core.attributesFile=/dev/null",
    "safe.bareRepository=explicit",
    "protocol.allow=never",
    "credential.helper=",
    "diff.external=",
    "log.showSignature=false",
    "submodule.recurse=false",
)
# git commands that read the work tree's content (and so would run a ``filter.<name>.clean`` that
# ``.gitattributes`` names): their filter drivers are emptied first.
READS_CONTENT = frozenset({"diff", "diff-index", "diff-files", "status"})
# the environment git sees: none of the caller's GIT_* variables (GIT_DIR, GIT_WORK_TREE,
# GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, ...), and these
GIT_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_PROTOCOL_FROM_USER": "0",
}


def git_argv(src: str, *args: str, extra_config: tuple[str, ...] = ()) -> list[str]:
    """The argument list of a hardened ``git -C src args`` (see ``HARDENED_CONFIG``)."""
    config = [item for pair in HARDENED_CONFIG + extra_config for item in ("-c", pair)]
    if args and args[0] == "diff":
        args = ("diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty", *args[1:])
    return ["git", "--no-pager", "--no-replace-objects", *config, "-C", src, *args]


def git_env() -> dict[str, str]:
    """The environment of a hardened git: the caller's without any ``GIT_*`` variable, plus ``GIT_ENV``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "SSH_ASKPASS"}
    env.update(GIT_ENV)
    return env


def _spawn(argv: list[str], stderr: int | None) -> tuple[int, bytes]:
    read_end, write_end = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [
        (os.POSIX_SPAWN_DUP2, devnull, 0),
        (os.POSIX_SPAWN_DUP2, write_end, 1),
        (os.POSIX_SPAWN_DUP2, devnull if stderr is None else stderr, 2),
        (os.POSIX_SPAWN_CLOSE, read_end),
    ]
    try:
        pid = os.posix_spawnp("git", argv, git_env(), file_actions=actions)
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


def _filters_off(src: str) -> tuple[str, ...]:
    """``-c`` values that empty every filter driver SRC's configuration defines (so none runs)."""
    code, out = _spawn(git_argv(src, "config", "--null", "--name-only", "--get-regexp", r"^filter\."), None)
    if code != 0:  # 1: no filter is configured
        return ()
    names = {raw.decode("utf-8", "surrogateescape").rsplit(".", 1)[0] for raw in out.split(b"\0") if raw}
    return tuple(f"{name}.{key}=" for name in sorted(names) for key in ("clean", "smudge", "process"))


def run_git(src: str, *args: str, stderr: int | None = None) -> tuple[int, bytes]:
    """Run a hardened ``git -C src args`` and return (exit status, stdout); (127, b"") when git is missing.

    The one git runner (the scanner's listing, ``rofl impact --git-base``): git's error output goes to the
    file descriptor ``stderr`` when given, else nowhere.  No program that SRC's git configuration or
    ``.gitattributes`` names runs (``HARDENED_CONFIG``, ``READS_CONTENT``), and the caller's ``GIT_*``
    variables do not redirect it (``git_env``).

    ``os.posix_spawnp`` instead of ``subprocess``: importing subprocess costs more than the
    whole no-change rescan can spare.
    """
    extra = _filters_off(src) if args and args[0] in READS_CONTENT else ()
    return _spawn(git_argv(src, *args, extra_config=extra), stderr)


def _discovered(src: str) -> str | None:
    """The folder git's discovery should find from SRC: the nearest one at or above it that holds ``.git``."""
    folder = os.path.realpath(src)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def git_top(src: str) -> str | None:
    """The root of the git work tree SRC lies in (a real path), or None when git says none or names another.

    git's answer counts only when it is the folder holding the ``.git`` that discovery finds at or
    above SRC: a ``core.worktree`` pointing elsewhere, a bare repository (refused anyway) or a
    ``.git`` that git does not accept gives None, and the scan walks the folder instead.
    """
    code, out = run_git(src, "rev-parse", "--show-toplevel")
    if code != 0:
        return None
    top = os.fsdecode(out).rstrip("\n")
    if not top or not os.path.isabs(top):
        return None
    top = os.path.realpath(top)
    return top if top == _discovered(src) else None


def _git_listing(src: str) -> list[str] | None:
    """git's view of SRC (tracked + untracked-not-ignored), or None when git cannot list it."""
    code, out = run_git(src, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
    if code != 0:
        return None
    names = [os.fsdecode(raw) for raw in out.split(b"\0") if raw]
    if not names and run_git(src, "check-ignore", "-q", ".")[0] == 0:
        return None  # SRC itself is ignored by the enclosing repository: walk it
    return names


def inside(real: str, root_real: str) -> bool:
    """True when the real path ``real`` is the real folder ``root_real`` or lies in it."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def folded(path: str) -> str:
    """``path`` (a name, or names NUL-separated) as a file system that ignores case (and Unicode
    normalization) compares names."""
    if path.isascii():
        return path.casefold()
    import unicodedata

    return unicodedata.normalize("NFC", path).casefold()


def _walk(src: str) -> tuple[list[str], dict[str, frozenset[str]]]:
    """(sources and other regular files, each folder listed -> the names in it ``folded``)."""
    root_real = os.path.realpath(src)
    found: list[str] = []
    folders: dict[str, frozenset[str]] = {}
    linked: set[str] = set()  # real folders entered through a symlink
    stack: list[tuple[str, str, str]] = [(src, "", root_real)]
    suffixes = SOURCE_SUFFIXES
    while stack:
        folder, rel, real_folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        names = [entry.name for entry in entries]
        folders[rel[:-1]] = frozenset(folded("\0".join(names)).split("\0"))
        for entry, name in zip(entries, names):
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
                        if not inside(real, root_real) or inside(real_folder, real) or real in linked:
                            continue  # out of SRC, a loop back to an ancestor, or already entered
                        linked.add(real)
                    else:
                        real = real_folder + os.sep + name
                    stack.append((entry.path, rel + name + "/", real))
                elif name.endswith(suffixes):
                    found.append(rel + name)  # special files and links out of SRC too: source_stat says why
                elif entry.is_file():
                    if is_link and not inside(os.path.realpath(entry.path), root_real):
                        continue
                    found.append(rel + name)
            except OSError:  # vanished while walking: not the scan's problem
                continue
    return found, folders


def source_stat(full: str, root_real: str, folders: dict[str, bool] | None = None) -> os.stat_result | None:
    """The stat of a listed source, or None when it is gone (deleted, or a dangling link).

    One ``lstat`` for the common case; a symlink costs a ``stat`` of its target (whose size and
    mtime are what tell a change) and a ``realpath``.  Raises ``Refused`` for a source that is not
    read: a FIFO, device or socket (never opened: a read could block or never end), a symlink loop,
    a symlink to a file outside SRC (never followed), a file in a folder whose real location is outside
    SRC (git lists the paths of its index: ``lib/x.ts`` where the work tree's ``lib`` is a link out);
    OSError for other failures.  ``folders`` memoises, per folder, whether it really lies in SRC.
    """
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return None
    folder = os.path.dirname(full)
    known = folders.get(folder) if folders is not None else None
    if known is None:
        known = inside(os.path.realpath(folder), root_real)
        if folders is not None:
            folders[folder] = known
    if not known:
        raise Refused(errno.EXDEV, "in a folder linked outside SRC, not followed", full)
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(full)
        except FileNotFoundError:
            return None  # a dangling link
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise Refused(errno.ELOOP, "a symlink loop, not followed", full) from None
            raise
        if not inside(os.path.realpath(full), root_real):
            raise Refused(errno.EXDEV, "a symlink to a file outside SRC, not followed", full)
    if not stat.S_ISREG(st.st_mode):
        raise Refused(errno.EINVAL, f"{_kind(st.st_mode)}, not a regular file, not read", full)
    return st


def list_files(src: str, path_filter: PathFilter) -> Listing:
    """List the sources and package.json files under ``src`` (an existing folder).

    git may list symlinks that leave SRC and files deleted from the work tree; ``source_stat``
    refuses the first and drops the second when the scan stats each file.
    """
    top = git_top(src)
    names = _git_listing(src) if top is not None else None
    from_git = names is not None
    walked: dict[str, frozenset[str]] = {}
    if names is None:
        names, walked = _walk(src)
    sources = [name for name in names if name.endswith(SOURCE_SUFFIXES)]
    packages = [n for n in names if n == PACKAGE_JSON or n.endswith("/" + PACKAGE_JSON)]
    if path_filter.include or path_filter.exclude:
        sources = [name for name in sources if path_filter.keeps_source(name)]
        packages = [name for name in packages if path_filter.keeps_package(name)]
    sources.sort()
    packages.sort()
    return Listing(tuple(sources), tuple(packages), from_git, top, walked)
