"""Folder stamps: a folder's ``(mtime_ns, inode, device)``, which vouches that no name in it was added,
removed or renamed since it was taken, once the folder had settled.

Adding, removing or renaming an entry moves its folder's mtime; a stamp equal to one recorded is the
same folder with the same names (the stat-based trust the scan state and the fact files' stamps rest
on: a hand edit that restores all three is not seen).  A stamp is recorded only of a folder that changed
at least ``SETTLED_NS`` before it was taken, and taken before the folder is listed: one changed more
recently may change again within its mtime's granule, the racy case git's index knows."""

from __future__ import annotations

import os
import stat
import time

SETTLED_NS = 2_000_000_000


def folder_stamp(path: str) -> list[int] | None:
    """The stamp of the folder at ``path`` (followed if a link), or None: nothing there, or no folder."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_mtime_ns, st.st_ino, st.st_dev] if stat.S_ISDIR(st.st_mode) else None


def settled(stamp: list[int]) -> bool:
    """Whether the folder of ``stamp`` last changed at least ``SETTLED_NS`` ago: its stamp may be recorded."""
    return stamp[0] < time.time_ns() - SETTLED_NS
