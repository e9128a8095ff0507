"""Files a user names for a command's output (`export -o`, `report --out`): replaced whole, or streamed into.

A regular file (or a new one) is replaced through ``engine.safe_write.write_atomic``, so a failed write
leaves the previous file as it was and no temporary behind.  A symlink at the name is replaced, never
followed: a repository under scan can commit ``rofl-report.html`` as a link to any file the CI user
may write, and the report must not land there.  Streams are written into: a FIFO or device at the
name itself (no repository can commit one), and a system name of a stream under ``/dev`` or ``/proc``
(``/dev/stdout``, ``/dev/fd/3``, which are links), opened for appending, never created or truncated.
"""

from __future__ import annotations

import os
import stat

STREAM_FOLDERS = ("/dev/", "/proc/")  # where the system's names of streams live (as links)


def write_output(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to the file the user named ``path``; raises OSError as the file system does."""
    from rofl.engine.base.safe_write import write_atomic

    name = os.fspath(path)
    try:
        st: os.stat_result | None = os.lstat(name)
    except FileNotFoundError:
        st = None
    if st is not None and _is_stream(name, st):
        fd = os.open(name, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    else:
        write_atomic(name, data)  # the rename replaces a link at the name itself, never its target


def write_or_fail(command: str, path: str, text: str, flag: str) -> None:
    """Write ``text`` to the file the user named with ``flag``, or end ``command`` with one line and exit 2."""
    try:
        write_output(path, text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        from .exits import fail

        fail(f"{command}: cannot write {path} ({exc.strerror}); choose another {flag} path")


def _is_stream(name: str, st: os.stat_result) -> bool:
    """A FIFO, device or socket at ``name``, or a link under /dev or /proc (``/dev/stdout``)."""
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return False
    if not stat.S_ISLNK(st.st_mode):
        return True
    return os.path.abspath(name).startswith(STREAM_FOLDERS)
