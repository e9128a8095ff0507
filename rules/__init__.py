"""The ROFL rule files shipped with rofl (boot.rofl, code.rofl, ...), located through importlib.resources.

This package holds data only.  ``path(name)`` is where an installed copy of a rule file is: the
source tree in an editable install, site-packages in a wheel install.  Wheels install unzipped, so
the location is a real file the kernel can read and the compiled cache can hash.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def folder() -> Path:
    """The folder holding the shipped rule files."""
    return Path(str(files(__name__)))


def path(name: str) -> Path:
    """The shipped rule file ``name`` (``"boot.rofl"``, ``"code.rofl"``)."""
    return folder() / name
