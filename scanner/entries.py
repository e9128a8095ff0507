"""Entry points of workspace packages: the scanned files a package.json names in main, module, types, bin or exports.

``entries.rofl`` also holds the scan's findings that belong to no source's fact file:
``src_config_error`` for workspace package.json files, and ``src_parse_error(Path, "line 1:
cannot read: ...")`` for sources that could not be read (they have no fact file of their own).
"""

from __future__ import annotations

import os
import posixpath

from scanner import schema
from scanner.probe import probe

FIELDS = ("main", "module", "types", "typings", "bin", "exports")
ENTRIES_NAME = "entries.rofl"


def _leaves(value) -> list[str]:
    """Every string inside a field: a path, a map of bins, or a nested exports map."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return []


def package_entries(
    src: str, package_files: tuple[str, ...], files: set[str], errors: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(path, field)`` pairs, sorted: each scanned file a package.json field points at.

    The package.json files are the listed ones and those of the workspace's member folders (a
    member's package.json that git ignores, as zod's generated one, still names entry points).
    Those that are refused or do not parse are added to ``errors`` (path -> message).
    """
    from scanner.configs import ConfigStore
    from scanner.workspaces import package_manifests, workspace_globs

    found: set[tuple[str, str]] = set()
    store = ConfigStore(src)
    for rel in package_manifests(src, package_files, workspace_globs(src, store)):
        data = store.read(os.path.join(src, rel))
        if not isinstance(data, dict):
            continue
        folder = posixpath.dirname(rel)
        for field in FIELDS:
            for leaf in _leaves(data.get(field)):
                if "*" in leaf:
                    continue
                target = posixpath.normpath(posixpath.join(folder, leaf))
                if not target.startswith(".."):
                    found.update((hit, field) for hit in probe(target, files))
    if errors is not None:
        errors.update(store.errors)
    return sorted(found)


def write_entries(
    out: str,
    pairs: list[tuple[str, str]],
    config_errors: dict[str, str] | None = None,
    unreadable: dict[str, str] | None = None,
) -> dict[str, str]:
    """Write ``entries.rofl`` when its content changed; return its manifest record."""
    from scanner.factfile import write_if_changed

    lines = ["-- rofl scan: files that package.json names as entry points"]
    lines += [schema.SRC_ENTRY.fact(path, field) for path, field in pairs]
    for config, message in sorted((config_errors or {}).items()):  # workspace package.json files
        lines.append(schema.SRC_CONFIG_ERROR.fact(config, message))
    for path, why in sorted((unreadable or {}).items()):
        lines.append(schema.SRC_PARSE_ERROR.fact(path, f"line 1: cannot read: {why}"))
    return write_if_changed(out, ENTRIES_NAME, ("\n".join(lines) + "\n").encode("utf-8"))
