"""Files a user names for a command's output (`export -o`, `report --out`): replaced whole, or streamed into.

A regular file (or a new one) is replaced through ``engine.safe_write.write_atomic``, so a failed write
leaves the previous file as it was and no temporary behind; a symlink is followed to its target, as a
shell redirection would; a pipe or device (``/dev/stdout``) is written into.
"""

from __future__ import annotations

import os
import stat


def write_output(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to the file the user named ``path``; raises OSError as the file system does."""
    from engine.safe_write import write_atomic

    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        regular = True
    if regular:
        write_atomic(os.path.realpath(path), data)
    else:
        with open(path, "wb") as fh:
            fh.write(data)
