"""Deciding what a scan must do: which files to reuse, parse, re-resolve or drop, from stats and the manifest.

A file is reused when its size and mtime equal the manifest's (or, when they differ or with
``verify``, when its re-computed hash does), its fact file is present, and it was not refused for
want of memory (an entry marked ``retry``).  Unchanged files are
re-resolved when something their resolution consulted changed: a probed path that appeared or
disappeared, a config file or asset whose content changed (or that appeared or disappeared), a
package.json that appeared or disappeared (package scopes), or a workspace package name that now
points elsewhere (``package:<name>``).  A changed config key K also matches ``tsconfig-scope:K``, a
config the file's tsconfig lookup checked and found not to take the file (it may take it now).  Listed sources that are the same file (a symlink to another
listed source, a path through a linked folder) count once, under their real path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rofl.scanner import layout
from rofl.scanner.files import Listing, source_stat
from rofl.scanner.tsconfig import PACKAGE_DEP, SCOPE_DEP  # SCOPE_DEP: a config checked and found not to take the file
from rofl.scanner.workspaces import PNPM_WORKSPACE

if TYPE_CHECKING:
    from rofl.scanner.configs import ConfigStore, Signature


@dataclass(frozen=True, slots=True)
class Previous:
    """The previous scan as this one may use it: its manifest, and which of its parts are still valid."""

    manifest: dict[str, Any] | None
    extraction_valid: bool  # same extractor, grammars, options and SRC: its fact files can be reused
    resolution_valid: bool  # and the same resolver: its resolution dependencies can be trusted

    @property
    def files(self) -> dict[str, Any]:
        return self.manifest["files"] if self.manifest is not None and self.extraction_valid else {}

    def recorded(self, key: str, empty: Any) -> Any:
        """A record resolution depends on (``configs``, ``packages``, ``workspace``), when it can be trusted."""
        if self.manifest is None or not self.resolution_valid:
            return empty
        return self.manifest.get(key, empty)


@dataclass(frozen=True, slots=True)
class Worklist:
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


@dataclass(frozen=True, slots=True)
class _Sorted:
    """Each present source sorted into reuse or parse (or unreadable), by stat and hash against the manifest."""

    sizes: dict[str, int]
    unreadable: dict[str, str]
    reuse: dict[str, dict[str, Any]]
    to_parse: tuple[str, ...]
    touched: bool  # an entry's stat moved while its content did not
    tampered: frozenset[str]  # fact files --verify found edited


@dataclass(frozen=True, slots=True)
class _Resolution:
    """What changed that resolution may have consulted, and the workspace packages now."""

    changed: frozenset[str]  # paths, config keys and package:<name> tokens
    configs: dict[str, Signature]
    packages: dict[str, str]
    store_seen: dict[str, Signature]


def _config_changed(src: str, key: str, old: Signature, store: ConfigStore) -> tuple[bool, Signature]:
    """(changed?, current signature) of one recorded config path, re-hashing only on a stat change."""
    from rofl.scanner.configs import signature

    absolute = os.path.normpath(os.path.join(src, key))
    try:
        st = os.stat(absolute)
    except (OSError, ValueError):
        return old is not None, None
    if old is not None and old[0] == st.st_size and old[1] == st.st_mtime_ns:
        return False, old
    current = signature(absolute, store.boundary(absolute))
    if current is None:
        return old is not None, None
    return old is None or old[2] != current[2], current


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
    """True when the entry's fact file still has the bytes its digest names, and its own name carries
    that digest, as the scanner names every fact file (a manifest digest recomputed after an edit fails)."""
    from rofl.engine.base.safe_write import read_nofollow
    from rofl.scanner.factfile import named_digest
    from rofl.scanner.hashing import hash_bytes

    try:
        data = read_nofollow(os.path.join(out, entry["facts"]), MAX_FACT_FILE_BYTES)
    except (OSError, KeyError, TypeError, ValueError):
        return False
    if data is None:
        return False
    digest = hash_bytes(data)
    return digest == entry.get("digest") and named_digest(entry["facts"]) == digest


def make_worklist(
    src: str, out: str, verify: bool, listing: Listing, present: set[str], previous: Previous
) -> Worklist:
    """Stat every listed source against the previous manifest and work out what this scan must do.

    ``present`` holds the names in the output's fact folder.  Reads only: nothing is written.
    """
    stats, unreadable = _stat_sources(src, listing)
    sorted_ = _sort_sources(src, out, verify, stats, unreadable, previous.files, present)
    resolution = _resolution_changes(src, listing, sorted_.sizes, previous)
    if not previous.resolution_valid:
        to_resolve = tuple(sorted(sorted_.reuse))
    elif resolution.changed:
        changed = resolution.changed | {SCOPE_DEP + k for k in resolution.changed}
        to_resolve = tuple(p for p, e in sorted_.reuse.items() if not changed.isdisjoint(e.get("resolution_deps", ())))
    else:
        to_resolve = ()
    old_workspace = previous.recorded("workspace", [])
    state_changed = (
        sorted_.touched
        or resolution.configs != previous.recorded("configs", {})
        or resolution.packages != previous.recorded("packages", {})
        or old_workspace != list(listing.packages)
    )
    return Worklist(
        sizes=sorted_.sizes,
        unreadable=sorted_.unreadable,
        reuse=sorted_.reuse,
        to_parse=sorted_.to_parse,
        to_resolve=to_resolve,
        removed=tuple(p for p in previous.files if p not in sorted_.sizes),
        configs=resolution.configs,
        packages=resolution.packages,
        protected=_protected(previous.manifest, present, sorted_.tampered),
        store_seen=resolution.store_seen,
        state_changed=state_changed,
    )


def _stat_sources(src: str, listing: Listing) -> tuple[dict[str, os.stat_result], dict[str, str]]:
    """(path -> stat of each listed source that is one file of its own, path -> why it is not read:
    it could not be stat'ed, or ``source_stat`` refused it)."""
    unreadable: dict[str, str] = {}
    root_real = os.path.realpath(src)
    stats: dict[str, os.stat_result] = {}
    folders: dict[str, bool] = {}
    for path in listing.sources:
        try:
            st = source_stat(os.path.join(src, path), root_real, folders)
        except OSError as err:
            unreadable[path] = err.strerror or str(err)
            continue
        if st is not None:  # None: deleted in the work tree, or a dangling link
            stats[path] = st
    aliases = _one_node_per_file(src, stats)  # the same file as another listed path: one file, one node
    return {p: st for p, st in stats.items() if p not in aliases}, unreadable


def _sort_sources(
    src: str,
    out: str,
    verify: bool,
    stats: dict[str, os.stat_result],
    unreadable: dict[str, str],
    old_files: dict[str, Any],
    present: set[str],
) -> _Sorted:
    """Reuse a source whose size and mtime (or, when they moved or with ``verify``, hash) match its
    entry and whose fact file is present (and, with ``verify``, intact); parse the others."""
    from rofl.scanner.hashing import hash_file

    unreadable = dict(unreadable)
    sizes: dict[str, int] = {}
    reuse: dict[str, dict[str, Any]] = {}
    to_parse: list[str] = []
    touched = False
    tampered: set[str] = set()
    cut = len(layout.FACTS_FOLDER) + 1
    for path, st in stats.items():
        sizes[path] = st.st_size
        entry = old_files.get(path)
        if entry is None or entry.get("retry") or entry.get("facts", "")[cut:] not in present:
            to_parse.append(path)  # new, refused for want of memory last time, or its fact file is gone
            continue
        same_stat = entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns
        if same_stat and not verify:
            reuse[path] = entry
            continue
        try:
            digest = hash_file(os.path.join(src, path))
        except OSError as err:
            unreadable[path] = err.strerror or str(err)
            continue
        if digest != entry.get("hash"):
            to_parse.append(path)
        elif verify and not fact_file_intact(out, entry):
            tampered.add(entry["facts"])
            to_parse.append(path)
        elif same_stat:
            reuse[path] = entry
        else:
            reuse[path] = dict(entry, size=st.st_size, mtime_ns=st.st_mtime_ns)
            touched = True
    return _Sorted(sizes, unreadable, reuse, tuple(to_parse), touched, frozenset(tampered))


def _resolution_changes(src: str, listing: Listing, sizes: dict[str, int], previous: Previous) -> _Resolution:
    """Everything a recorded resolution may have consulted that changed: sources that appeared or
    disappeared (they answer probes), config files and assets, package scopes, workspace packages."""
    old_files = previous.files
    manifest = previous.manifest
    old_set = set(old_files) | set(manifest.get("unreadable", []) if manifest is not None else [])
    changed: set[str] = {p for p in sizes if p not in old_set}
    changed.update(p for p in old_set if p not in sizes)

    old_configs: dict[str, Signature] = dict(previous.recorded("configs", {}))
    configs: dict[str, Signature] = {}
    from rofl.scanner.configs import ConfigStore

    bounds = ConfigStore(src, listing.top)  # where each config must really lie, as the scan reads it
    for config_key, signature in old_configs.items():
        was_changed, current = _config_changed(src, config_key, signature, bounds)
        configs[config_key] = current
        if was_changed:
            changed.add(config_key)

    old_packages: dict[str, str] = dict(previous.recorded("packages", {}))
    old_workspace = list(previous.recorded("workspace", []))
    changed.update(set(old_workspace).symmetric_difference(listing.packages))  # package scopes moved
    recorded = previous.resolution_valid and manifest is not None
    store_seen: dict[str, Signature] = {}
    if (
        not recorded
        or old_workspace != list(listing.packages)
        or any(k == "package.json" or k.endswith("/package.json") or k == PNPM_WORKSPACE for k in changed)
    ):
        from rofl.scanner.workspaces import workspace_packages

        store = ConfigStore(src, listing.top)
        packages = workspace_packages(src, listing.packages, store)
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
    return _Resolution(frozenset(changed), configs, packages, store_seen)


def _protected(manifest: dict[str, Any] | None, present: set[str], tampered: frozenset[str]) -> frozenset[str]:
    """Fact files the previous manifest names that are present and intact: never rewritten."""
    named = manifest["files"].values() if manifest is not None else ()
    prefix = layout.FACTS_FOLDER + "/"
    return (frozenset(e.get("facts") for e in named) & {prefix + n for n in present}) - tampered
