"""The lock that keeps two scans from writing one output folder at the same time.

``<out>/.lock`` holds the pid of the scan that owns the folder and is held with ``flock`` while it
runs.  The kernel drops an flock when its process dies, so a lock left by a dead scan (or any
stale file naming a dead pid) is simply taken over; a live holder refuses the new scan.  Forked
helpers close their copy of the descriptor at once (``scanner.pool``), so only the scan's own
process holds the flock and the pid in the file is always the live holder's; a helper forked an
instant before its parent was killed may hold its copy a moment longer, so a flock held while the
file names a dead pid is waited for (at most ``ORPHAN_WAIT``) instead of refused.  The file is opened
without following a symlink: one planted at ``.lock`` refuses the scan (``UnsafePath``), it is
never truncated or written through.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from rofl.engine.base.safe_write import UnsafePath, open_nofollow
from rofl.scanner.layout import LOCK_NAME


class LockHeld(Exception):
    """Another live scan holds the output folder."""

    def __init__(self, path: str, pid: str) -> None:
        super().__init__(path, pid)
        self.path = path
        self.pid = pid


class ScanLock:
    """An acquired lock; release it (or use ``with``) when the scan ends."""

    __slots__ = ("path", "fd")

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self.fd = fd

    def release(self) -> None:
        if self.fd >= 0:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = -1

    def __enter__(self) -> ScanLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, OverflowError, ProcessLookupError):
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _live_holder(fd: int) -> str:
    """The pid in the lock file, read again for up to 0.1 s while it names no live process (a scan
    that has just taken the flock writes its pid right after)."""
    deadline = time.monotonic() + 0.1
    while True:
        holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
        if _alive(holder) or time.monotonic() > deadline:
            return holder or "unknown"
        time.sleep(0.005)


ORPHAN_WAIT = 2.0  # seconds: far longer than a forked helper takes to close its copy or exit


def _outlast_orphans(fd: int) -> bool:
    """Take the flock when the pid in the file is dead: the copy still held belongs to a helper of
    that dead scan, forked an instant before its parent was killed, which closes it (or exits) at
    once.  False as soon as the file names a live process."""
    deadline = time.monotonic() + ORPHAN_WAIT
    while not _alive(os.pread(fd, 64, 0).decode("ascii", "replace").strip()):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
    return False


def acquire(out: str) -> ScanLock:
    """Lock ``out`` for this process or raise ``LockHeld`` naming the holder's pid."""
    path = os.path.join(out, LOCK_NAME)
    fd = open_nofollow(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device planted at the name
        os.close(fd)
        raise UnsafePath(0, "is not a regular file", path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if not _outlast_orphans(fd):
            try:
                holder = _live_holder(fd)
            finally:
                os.close(fd)
            raise LockHeld(path, holder) from None
    mine = str(os.getpid()).encode()
    current = os.pread(fd, 64, 0)
    if current.strip() != mine:
        os.ftruncate(fd, 0)
        os.pwrite(fd, mine + b"\n", 0)
    return ScanLock(path, fd)
