"""git questions about the scanned work tree (changed paths, a file at a revision); paths relative to SRC."""

from __future__ import annotations

import os
import posixpath
import tempfile
from pathlib import Path

from rofl.engine.base.errors import RoflError
from rofl.scanner.files import git_top, run_git

GIT_MISSING = 127  # what run_git answers when git cannot be started


class Git:
    """git run in SRC; every path in and out is relative to SRC (the scanned folder)."""

    def __init__(self, src: Path) -> None:
        self.src = src
        self._top: Path | None = None
        self._inside: bool | None = None

    def run(self, *args: str, check: bool = True) -> str | None:
        """git's stdout; with ``check`` a failure is a one-line RoflError, else None."""
        with tempfile.TemporaryFile() as errors:
            code, out = run_git(str(self.src), *args, stderr=errors.fileno())
            errors.seek(0)
            err = errors.read(1 << 16).decode("utf-8", "replace").strip()
        if code == 0:
            return os.fsdecode(out)
        if not check:
            return None
        if code == GIT_MISSING:
            raise RoflError("--git-base needs git on PATH; install git or use --changed")
        last = err.splitlines()[-1] if err else "failed"
        raise RoflError(f"git {' '.join(args)}: {last}; run inside the scanned git work tree with a valid REF")

    @property
    def top(self) -> Path:
        if self._top is None:
            self._top = Path(git_top(str(self.src)) or self.src)
        return self._top

    def inside(self) -> bool:
        """Whether SRC lies in a git work tree whose root git names truthfully (``git_top``; asked once)."""
        if self._inside is None:
            top = git_top(str(self.src))
            self._inside = top is not None
            self._top = Path(top) if top is not None else None
        return self._inside

    def to_src(self, name: str) -> str | None:
        """A path git names (relative to the work tree's top) relative to SRC; None outside SRC."""
        try:
            return (self.top / name).relative_to(self.src).as_posix()
        except ValueError:
            return None

    def from_src(self, path: str) -> str | None:
        """A path relative to SRC as git names it (relative to the top); None outside the work tree."""
        try:
            prefix = self.src.relative_to(self.top).as_posix()
        except ValueError:
            return None
        rel = posixpath.normpath(posixpath.join(prefix, path))
        return None if rel == ".." or rel.startswith("../") else rel

    def changed(self, ref: str) -> list[str]:
        """Paths changed in the work tree against REF (a rename as both names, untracked included)."""
        if not self.inside():
            self.run("--version")  # no git at all says so first ("needs git on PATH")
            raise RoflError(
                f"--git-base {ref}: {self.src} is not inside a git work tree; give the changed paths with --changed PATH"
            )
        names = (self.run("diff", "--name-only", "--no-renames", "-z", "--end-of-options", ref, "--") or "").split("\0")
        names += (self.run("ls-files", "--others", "--exclude-standard", "-z", "--full-name") or "").split("\0")
        return sorted({rel for name in names if name and (rel := self.to_src(name)) is not None})

    def show(self, ref: str, path: str) -> bytes | None:
        """The bytes of SRC/path at REF, or None when REF has no such file."""
        if not self.inside():
            return None
        rel = self.from_src(path)
        if rel is None:
            return None
        code, out = run_git(str(self.src), "cat-file", "blob", f"{ref}:{rel}")
        return out if code == 0 else None

    def knows(self, ref: str, path: str) -> bool:
        """Whether REF has SRC/path (False outside a work tree)."""
        if not self.inside():
            return False
        rel = self.from_src(path)
        return rel is not None and self.run("cat-file", "-e", f"{ref}:{rel}", check=False) is not None
