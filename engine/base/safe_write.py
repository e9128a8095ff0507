"""Writing files inside a folder without ever following a symlink out of it: new files, atomic replaces, locks.

Every file the scanner, the store, the cache and the manifest write goes through here:

* ``write_atomic(path, data)``: a temporary file next to ``path`` created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` (a name planted beforehand, symlink or not, is never
  opened), written, then renamed over ``path``.  ``rename`` replaces a symlink at ``path``
  itself, never its target.
* ``write_in_place(path, data)``: open ``path`` with ``O_NOFOLLOW`` and truncate it; a symlink
  found there is removed and the file created afresh (the link is replaced, never followed).
* ``open_nofollow(path, flags)``: an ``os.open`` that refuses a symlink at ``path`` (``ELOOP``).
* ``check_folder(path)``: raises ``UnsafePath`` when ``path`` is a symlink or not a folder.
* ``read_regular(path, limit)``: the one reader of a file a user names (a program, ``--rules``, a
  key, a baseline, a store): a symlink is followed, but only a regular file of at most ``limit``
  bytes is read (a FIFO never blocks the open, a link to ``/dev/zero`` is never read).

Standard library only (``engine`` imports nothing else).  Folder components above ``path`` are
trusted: the caller checks the folders it creates with ``check_folder``.
"""

from __future__ import annotations

import errno
import os
import stat

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class UnsafePath(OSError):
    """A symlink or a non-regular file sits where a file or folder is to be written (or one is to be read)."""


def open_nofollow(path: str, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that never follows a symlink at ``path``; raises ``UnsafePath`` for one."""
    try:
        return os.open(path, flags | _NOFOLLOW | _CLOEXEC, mode)
    except OSError as err:
        if err.errno == errno.ELOOP or (err.errno == errno.EMLINK and _NOFOLLOW):
            raise UnsafePath(errno.ELOOP, "is a symlink, not followed", path) from None
        raise


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _temporary(path: str, mode: int = 0o644) -> tuple[str, int]:
    """A fresh temporary file next to ``path`` with permissions ``mode``: (name, descriptor), created exclusively."""
    base = f"{path}.{os.getpid()}"
    for attempt in range(100):
        name = f"{base}.{attempt}.tmp"
        try:
            return name, open_nofollow(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            try:  # a leftover of an earlier process with this pid, or a planted name: drop it
                os.unlink(name)
            except OSError:
                pass
    raise FileExistsError(errno.EEXIST, "no free temporary name", base)


def write_atomic(path: str, data: bytes | tuple[bytes | memoryview, ...], mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` (bytes, or a tuple of byte strings or views written one after the other, so
    a large payload is never copied to add a header) through an exclusive temporary file and a rename;
    on any error the temporary is removed and ``path`` is left as it was.  ``mode``: the new file's
    permissions (0o600 for a key)."""
    name, fd = _temporary(path, mode)
    try:
        try:
            for chunk in data if isinstance(data, tuple) else (data,):
                _write_all(fd, chunk)
        finally:
            os.close(fd)
        os.replace(name, path)
    except BaseException:
        try:
            os.unlink(name)
        except OSError:
            pass
        raise


def write_in_place(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` (created or truncated); a symlink, FIFO or device there is replaced,
    never followed or written to (a non-blocking open keeps a FIFO from hanging the writer)."""
    fd: int | None
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NONBLOCK", 0))
    except UnsafePath:
        fd = None
    except OSError as err:
        if err.errno != errno.ENXIO:  # ENXIO: a FIFO nobody reads
            raise
        fd = None
    if fd is not None and not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        fd = None
    if fd is None:
        os.unlink(path)  # the link or special file itself, not what it points to
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def read_nofollow(path: str, limit: int) -> bytes | None:
    """The bytes of the regular file ``path`` when it is one of at most ``limit`` bytes, else None.

    A symlink, FIFO or device at ``path`` is not opened for reading (``O_NONBLOCK`` keeps a FIFO
    from blocking the open).  Raises OSError when ``path`` cannot be opened.
    """
    fd = open_nofollow(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks = [os.read(fd, st.st_size + 1)]  # sized by the file, not the limit
        total = len(chunks[0])
        while total > st.st_size and total <= limit and (chunk := os.read(fd, 1 << 20)):  # it grew
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks) if total <= limit else None
    finally:
        os.close(fd)


MAX_PROGRAM_BYTES = 1 << 30  # a program, rule, key or baseline file: none a person writes comes near this


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path`` (a symlink followed to it) of at most ``limit`` bytes.

    Raises ``UnsafePath`` for a FIFO, device, socket or folder (opened ``O_NONBLOCK`` and refused
    before any read, so a FIFO never blocks and ``/dev/zero`` is never read) and for a file over
    ``limit``; its ``strerror`` says which, for a one-line message.  Raises OSError (e.g.
    ``FileNotFoundError``) when ``path`` cannot be opened.
    """
    name = os.fspath(path)
    _check_regular(os.stat(name), name, limit)  # before the open: opening some devices acts
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
    try:
        st = os.fstat(fd)
        _check_regular(st, name, limit)  # the file opened, not the one stat saw
        chunks = [os.read(fd, st.st_size + 1)]
        total = len(chunks[0])
        while total > st.st_size and total <= limit and (chunk := os.read(fd, 1 << 20)):  # it grew
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        raise UnsafePath(errno.EFBIG, f"over the {limit}-byte limit", name)
    return b"".join(chunks)


def _check_regular(st: os.stat_result, name: str, limit: int) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise UnsafePath(errno.EISDIR, "a folder, not a file", name)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(errno.EINVAL, "not a regular file (a FIFO, device or socket), not read", name)
    if st.st_size > limit:
        raise UnsafePath(errno.EFBIG, f"{st.st_size} bytes, over the {limit}-byte limit", name)


def check_folder(path: str) -> None:
    """Raise ``UnsafePath`` unless ``path`` is a real folder (not a symlink to one)."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(errno.ELOOP, "is a symlink, not followed", path)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePath(errno.ENOTDIR, "is not a folder", path)
