"""Deciding what a scan must do: which files to reuse, parse, re-resolve or drop, from stats and the manifest.

A file is reused when its size and mtime equal the manifest's (or, when they differ or with
``verify``, when its re-computed hash does) and its fact file is present.  Unchanged files are
re-resolved when something their resolution consulted changed: a probed path that appeared or
disappeared, a config file or asset whose content changed (or that appeared or disappeared), a
package.json that appeared or disappeared (package scopes), or a workspace package name that now
points elsewhere (``package:<name>``).  Listed sources that are the same file (a symlink to another
listed source, a path through a linked folder) count once, under their real path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scanner import layout
from scanner.files import Listing, source_stat

if TYPE_CHECKING:
    from scanner.configs import ConfigStore, Signature

PACKAGE_DEP = "package:"  # scanner.resolve.PACKAGE_DEP, repeated to keep this module's imports light
PNPM_WORKSPACE = "pnpm-workspace.yaml"  # scanner.workspaces.PNPM_WORKSPACE, likewise


@dataclass(frozen=True, slots=True)
class Plan:
    """The work of one scan, decided before any of it is done."""

    sizes: dict[str, int]  # every present source -> its size (the set resolution answers against)
    unreadable: dict[str, str]  # sources that could not be stat'ed or hashed -> why
    reuse: dict[str, dict[str, Any]]  # manifest entries kept (with a fresh stat when it moved)
    to_parse: tuple[str, ...]
    to_resolve: tuple[str, ...]  # of the reused, those to re-resolve without parsing
    removed: tuple[str, ...]  # manifest paths that are gone
    configs: dict[str, Signature]  # current signatures of the config files resolution consulted
    packages: dict[str, str]  # workspace package name -> folder
    protected: frozenset[str]  # fact files the current manifest names, present and intact
    store_seen: dict[str, Signature]  # config files read while planning (workspace package.json)
    state_changed: bool  # something the manifest records changed even if no file needs work

    @property
    def nothing_to_do(self) -> bool:
        return not (self.to_parse or self.to_resolve or self.removed or self.state_changed)


def _config_changed(src: str, key: str, old: Signature) -> tuple[bool, Signature]:
    """(changed?, current signature) of one recorded config path, re-hashing only on a stat change."""
    from scanner.configs import signature

    absolute = os.path.normpath(os.path.join(src, key))
    try:
        st = os.stat(absolute)
    except (OSError, ValueError):
        return old is not None, None
    if old is not None and old[0] == st.st_size and old[1] == st.st_mtime_ns:
        return False, old
    current = signature(absolute)
    if current is None:
        return old is not None, None
    return old is None or old[2] != current[2], current


def workspace_packages(src: str, listing: Listing, store: ConfigStore) -> dict[str, str]:
    """Workspace package name -> folder (relative to SRC): ``scanner.workspaces`` over the listed package.json files."""
    from scanner.workspaces import workspace_packages as packages_of

    return packages_of(src, listing.packages, store)


def _one_node_per_file(src: str, stats: dict[str, os.stat_result]) -> dict[str, str]:
    """Alias -> real path for listed sources that are the same file (a symlink, a linked folder, a hard link).

    The path that is its own real path stays; when none is, the first in sorted order does.
    """
    by_inode: dict[tuple[int, int], list[str]] = {}
    for path, st in stats.items():
        if st.st_ino:
            by_inode.setdefault((st.st_dev, st.st_ino), []).append(path)
    aliases: dict[str, str] = {}
    root_real = os.path.realpath(src)
    for paths in by_inode.values():
        if len(paths) < 2:
            continue
        paths.sort()
        keep = next(
            (p for p in paths if os.path.realpath(os.path.join(src, p)) == os.path.join(root_real, p)), paths[0]
        )
        aliases.update((p, keep) for p in paths if p != keep)
    return aliases


MAX_FACT_FILE_BYTES = 1 << 30  # no fact file of a source under --max-bytes comes near this


def fact_file_intact(out: str, entry: dict[str, Any]) -> bool:
    """True when the entry's fact file still has the bytes its digest names."""
    from engine.safe_write import read_nofollow
    from scanner.hashing import hash_bytes

    try:
        data = read_nofollow(os.path.join(out, entry["facts"]), MAX_FACT_FILE_BYTES)
    except (OSError, KeyError, TypeError, ValueError):
        return False
    return data is not None and hash_bytes(data) == entry.get("digest")


def make_plan(
    src: str,
    out: str,
    listing: Listing,
    present: set[str],
    old: dict[str, Any] | None,
    extraction_valid: bool,
    resolution_valid: bool,
    verify: bool,
) -> Plan:
    """Stat every listed source against the old manifest and work out what this scan must do."""
    from scanner.hashing import hash_file

    old_files: dict[str, Any] = old["files"] if old is not None and extraction_valid else {}
    sizes: dict[str, int] = {}
    unreadable: dict[str, str] = {}
    reuse: dict[str, dict[str, Any]] = {}
    to_parse: list[str] = []
    touched = False  # an entry's stat moved while its content did not
    tampered: set[str] = set()
    cut = len(layout.FACTS_FOLDER) + 1
    root_real = os.path.realpath(src)
    stats: dict[str, os.stat_result] = {}
    for path in listing.sources:
        try:
            st = source_stat(os.path.join(src, path), root_real)
        except OSError as err:
            unreadable[path] = err.strerror or str(err)
            continue
        if st is not None:  # None: deleted in the work tree, a dangling link, or a link out of SRC
            stats[path] = st
    aliases = _one_node_per_file(src, stats)
    for path, st in stats.items():
        if path in aliases:
            continue  # the same file as another listed path: one file, one node
        full = os.path.join(src, path)
        sizes[path] = st.st_size
        entry = old_files.get(path)
        if entry is None or entry.get("facts", "")[cut:] not in present:
            to_parse.append(path)
            continue
        if not verify and entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns:
            reuse[path] = entry
            continue
        try:
            digest = hash_file(full)
        except OSError as err:
            unreadable[path] = err.strerror or str(err)
            continue
        if digest != entry.get("hash"):
            to_parse.append(path)
            continue
        if verify and not fact_file_intact(out, entry):
            tampered.add(entry["facts"])
            to_parse.append(path)
            continue
        if entry.get("size") != st.st_size or entry.get("mtime_ns") != st.st_mtime_ns:
            entry = dict(entry, size=st.st_size, mtime_ns=st.st_mtime_ns)
            touched = True
        reuse[path] = entry

    # paths that appeared or disappeared: they answer probes
    old_set = set(old_files) | set(old.get("unreadable", []) if old is not None else [])
    removed = tuple(p for p in old_files if p not in sizes)
    changed: set[str] = {p for p in sizes if p not in old_set}
    changed.update(p for p in old_set if p not in sizes)

    # config files and workspace packages
    recorded = resolution_valid and old is not None
    old_configs: dict[str, Signature] = dict(old.get("configs", {})) if recorded else {}  # type: ignore[union-attr]
    configs: dict[str, Signature] = {}
    for config_key, signature in old_configs.items():
        was_changed, current = _config_changed(src, config_key, signature)
        configs[config_key] = current
        if was_changed:
            changed.add(config_key)
    old_packages: dict[str, str] = dict(old.get("packages", {})) if recorded else {}  # type: ignore[union-attr]
    old_workspace = list(old.get("workspace", [])) if recorded else []  # type: ignore[union-attr]
    changed.update(set(old_workspace).symmetric_difference(listing.packages))  # package scopes moved
    store_seen: dict[str, Signature] = {}
    if (
        not recorded
        or old_workspace != list(listing.packages)
        or any(k == "package.json" or k.endswith("/package.json") or k == PNPM_WORKSPACE for k in changed)
    ):
        from scanner.configs import ConfigStore

        store = ConfigStore(src)
        packages = workspace_packages(src, listing, store)
        store_seen = dict(store.seen)
        configs.update(store_seen)
        for name in set(packages) | set(old_packages):
            if packages.get(name) != old_packages.get(name):
                changed.add(PACKAGE_DEP + name)
        for name, folder in packages.items():
            if (folder + "/package.json" if folder else "package.json") in changed:
                changed.add(PACKAGE_DEP + name)
    else:
        packages = old_packages

    if not resolution_valid:
        to_resolve = tuple(sorted(reuse))
    elif changed:
        to_resolve = tuple(p for p, e in reuse.items() if not changed.isdisjoint(e.get("resolution_deps", ())))
    else:
        to_resolve = ()

    named = old["files"].values() if old is not None else ()
    prefix = layout.FACTS_FOLDER + "/"
    protected = (frozenset(e.get("facts") for e in named) & {prefix + n for n in present}) - tampered
    state_changed = (
        touched or configs != old_configs or packages != old_packages or old_workspace != list(listing.packages)
    )
    return Plan(
        sizes=sizes,
        unreadable=unreadable,
        reuse=reuse,
        to_parse=tuple(to_parse),
        to_resolve=to_resolve,
        removed=removed,
        configs=configs,
        packages=packages,
        protected=protected,
        store_seen=store_seen,
        state_changed=state_changed,
    )
