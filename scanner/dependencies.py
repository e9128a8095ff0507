"""What a package.json's declared dependency on a name points at: a folder, a workspace package, or the registry.

The four dependency fields are read in install order (``dependencies``, ``optionalDependencies``,
``devDependencies``, ``peerDependencies``); the first that declares the name decides.

* ``file:``, ``link:`` and ``portal:`` ranges, and ``workspace:`` followed by a path
  (``workspace:../x``), name a folder relative to the declaring package (``Declared.folder``).
* other ``workspace:`` ranges name a workspace package: the name itself (``workspace:*``,
  ``workspace:^1.2``) or an alias (``workspace:other@*``, ``workspace:@scope/other@^1``).
* anything else (a version range, a tag, a git URL, an ``npm:`` alias) is the registry's package,
  which a workspace member of that name replaces when the workspace links it (``Declared.name``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEPENDENCY_FIELDS = ("dependencies", "optionalDependencies", "devDependencies", "peerDependencies")
PATH_PROTOCOLS = ("file:", "link:", "portal:")
WORKSPACE_PROTOCOL = "workspace:"


@dataclass(frozen=True, slots=True)
class Declared:
    """A declared dependency: the folder it names (relative to the declaring package), or the package name it means."""

    folder: str | None = None
    name: str | None = None


def declared(manifest: Any, name: str) -> Declared | None:
    """How ``manifest`` (a parsed package.json) declares ``name``, or None when it does not."""
    if not isinstance(manifest, dict):
        return None
    for field in DEPENDENCY_FIELDS:
        table = manifest.get(field)
        if isinstance(table, dict) and name in table:
            spec = table[name]
            return _meaning(name, spec.strip() if isinstance(spec, str) else "")
    return None


def _meaning(name: str, spec: str) -> Declared:
    for protocol in PATH_PROTOCOLS:
        if spec.startswith(protocol):
            return Declared(folder=spec[len(protocol) :] or ".")
    if not spec.startswith(WORKSPACE_PROTOCOL):
        return Declared(name=name)
    rest = spec[len(WORKSPACE_PROTOCOL) :]
    if rest.startswith((".", "/")):
        return Declared(folder=rest)
    at = rest.rfind("@")
    if at > 0 and rest[0] not in "*^~<>=0123456789":
        return Declared(name=rest[:at])  # workspace:alias@range
    return Declared(name=name)
