"""The scan state: a small digest of manifest.json that lets a no-change rescan skip parsing it.

The manifest carries every file's resolution dependencies and specifiers (most of its bytes);
a rescan that finds nothing changed needs only sizes, mtimes and fact file names.  ``.scan-state``
holds just those, plus the manifest's own size and mtime: when the manifest on disk is not the
one the state describes (a crash between the two writes, a hand edit), the state is ignored
and the scan reads the manifest as usual.  It is written after the manifest, atomically.

Format 3 keeps it compact, so that reading it costs little beside the one stat per source: the
sources' paths and their fact files' names (sorted) each one NUL-separated string (a path holds no NUL),
sizes and mtimes two lists of numbers in the paths' order, the config paths recorded absent one
string apart from the stamps of the present ones.  A state of another format is ignored (the scan
reads the manifest, then writes the state anew).
"""

from __future__ import annotations

import json
import os
import stat
from typing import TYPE_CHECKING, Any

from rofl.engine.base import safe_write
from rofl.scanner import layout
from rofl.scanner.files import folded
from rofl.scanner.layout import MANIFEST_NAME

if TYPE_CHECKING:
    from rofl.scanner.files import Listing

STATE_NAME = ".scan-state.json"


def manifest_stamp(out: str) -> list[int] | None:
    try:
        st = os.stat(os.path.join(out, MANIFEST_NAME))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


FORMAT = 3  # none (1): a dict per file; 3: paths, fact names (sorted) and absent configs NUL-joined, stamps as lists
_SEP = "\0"


def _joined(items: list[str]) -> str:
    return _SEP.join(items)


def _split(joined: str) -> list[str]:
    return joined.split(_SEP) if joined else []


def load(out: str) -> dict[str, Any] | None:
    """The state, only when it is of this format and describes the manifest currently in ``out``."""
    try:
        raw = safe_write.read_nofollow(os.path.join(out, STATE_NAME), 1 << 31)
        if raw is None:
            return None
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("manifest") != manifest_stamp(out):
        return None
    return data if _well_formed(data) else None  # one that is not is rewritten by the scan that reads the manifest


def _well_formed(data: dict[str, Any]) -> bool:
    """Every field ``unchanged`` reads has the type ``write`` gives it (``facts`` None: a fact file name
    the scanner would not write, so that no rescan skips the manifest)."""
    joined: list[Any] = [data.get(k) for k in ("paths", "absent", "absent_other")]
    lists: list[Any] = [data.get(k) for k in ("sizes", "mtimes")]
    if not (all(isinstance(x, str) for x in joined) and all(isinstance(x, list) for x in lists)):
        return False
    paths = joined[0].count(_SEP) + 1 if joined[0] else 0
    stamp = data.get("fact_folder")
    return (
        isinstance(data.get("facts"), str | None)
        and isinstance(data.get("configs"), dict)
        and len(lists[0]) == len(lists[1]) == paths
        and (stamp is None or (isinstance(stamp, list) and len(stamp) == 3 and all(type(x) is int for x in stamp)))
    )


def write(out: str, manifest: dict[str, Any], key: dict[str, Any]) -> None:
    """Record the digest of ``manifest`` (already written to ``out``) for the next scan."""
    files = manifest["files"]
    paths = sorted(files)
    cut = len(layout.FACTS_FOLDER) + 1
    prefix = layout.FACTS_FOLDER + "/"
    shaped = layout.FACT_FILE_NAME.match
    names = [files[p]["facts"] for p in paths]
    facts: str | None = None  # None: a name the scanner would not write, so no rescan skips the manifest
    if all(n.startswith(prefix) and shaped(n, cut) for n in names):
        facts = _joined(sorted(n[cut:] for n in names))  # sorted by name: compared with the folder's, sorted
    configs = manifest.get("configs", {})
    data = {
        "format": FORMAT,
        "manifest": manifest_stamp(out),
        "key": key,
        "paths": _joined(paths),
        "sizes": [files[p]["size"] for p in paths],
        "mtimes": [files[p]["mtime_ns"] for p in paths],
        "facts": facts,
        "configs": {k: v[:2] for k, v in configs.items() if v},
        "absent": _joined(sorted(k for k, v in configs.items() if not v and _normalized(k))),
        "absent_other": _joined(sorted(k for k, v in configs.items() if not v and not _normalized(k))),
        "workspace": manifest.get("workspace", []),
        "unreadable": manifest.get("unreadable", []),
        "retry": sorted(p for p, e in files.items() if e.get("retry")),
        "errors": sum(1 for e in files.values() if e.get("errors")),
        "preamble": manifest["preamble"]["facts"],
        "fact_folder": None,  # the folder just changed: a no-change rescan records its stamp once it settles
    }
    _save(out, data)


def _save(out: str, data: dict[str, Any]) -> None:
    safe_write.write_atomic(os.path.join(out, STATE_NAME), json.dumps(data, separators=(",", ":")).encode("ascii"))


def vouched_names(out: str, saved: dict[str, Any] | None) -> tuple[list[int] | None, bool]:
    """``(the fact folder's stamp now, whether it vouches for the names the state records)``: when it equals
    the stamp ``record_fact_folder`` recorded, the folder holds the names it held then, which were the
    state's (``scanner.stamps``), and need not be listed.  Taken before any listing of the folder."""
    from rofl.scanner.stamps import folder_stamp

    now = folder_stamp(os.path.join(out, layout.FACTS_FOLDER))
    return now, now is not None and saved is not None and saved.get("fact_folder") == now


def record_fact_folder(out: str, saved: dict[str, Any], stamp: list[int]) -> None:
    """Record the settled ``stamp`` of the fact folder, taken before a listing that found exactly the state's
    fact files (a no-change rescan, under the scan lock), so that later rescans need not list it."""
    from rofl.scanner.stamps import settled

    if settled(stamp) and saved.get("manifest") == manifest_stamp(out):
        _save(out, {**saved, "fact_folder": stamp})


def _links_to_one_of(src: str, path: str, files: dict[str, Any]) -> bool:
    """True when ``path`` is a symlink whose real path is one of ``files`` (the same file, one node)."""
    full = os.path.join(src, path)
    if not os.path.islink(full):
        return False
    rel = os.path.relpath(os.path.realpath(full), os.path.realpath(src))
    return (rel.replace(os.sep, "/") if os.sep != "/" else rel) in files


def unchanged(
    src: str, out: str, saved: dict[str, Any], listing: Listing, names: list[str] | None
) -> tuple[int, int] | None:
    """(files, errors) when the saved state shows that nothing changed at all, else None.

    Nothing changed means: the same sources with the same size and mtime (a listed symlink to
    another listed source is that source), their fact files and no other fact-shaped file among
    ``names`` (the facts folder's; None when the folder's stamp vouches for them, ``vouched_names``),
    the same recorded config stamps and workspace package.json list, and the preamble as written.
    """
    if not _well_formed(saved) or saved["facts"] is None:
        return None
    paths, facts = _split(saved["paths"]), saved["facts"]
    if (facts.count(_SEP) + 1 if facts else 0) != len(paths):
        return None
    sizes, mtimes, configs = saved["sizes"], saved["mtimes"], saved["configs"]
    absent, absent_other = _split(saved["absent"]), _split(saved["absent_other"])
    if (
        saved.get("unreadable")
        or saved.get("retry")  # files refused for want of memory are tried again
        or saved.get("workspace") != list(listing.packages)
        or (names is not None and not _same_fact_files(names, facts))
    ):
        return None
    try:
        if not _same_sources(src, listing.sources, paths, sizes, mtimes):
            return None
        if not _same_configs(src, configs, absent, absent_other, listing):
            return None
        expected = layout.PREAMBLE_TEXT.encode("utf-8")
        if safe_write.read_nofollow(os.path.join(out, layout.PREAMBLE_NAME), len(expected)) != expected:
            return None
    except (OSError, ValueError, TypeError, IndexError):
        return None
    return len(paths), int(saved.get("errors", 0))


def _same_fact_files(names: list[str], facts: str) -> bool:
    """True when the fact-shaped names among ``names`` are exactly those of ``facts`` (sorted, joined);
    other names do not count."""
    if _joined(sorted(names)) == facts:  # the common case: nothing else in the folder, no name to match
        return True
    shaped = layout.FACT_FILE_NAME.match
    return _joined(sorted(n for n in names if shaped(n))) == facts


def _same_sources(src: str, sources: tuple[str, ...], paths: list[str], sizes: list[int], mtimes: list[int]) -> bool:
    """True when every listed source has the recorded size and mtime (a symlink: its target's)."""
    if len(sources) != len(paths) or _joined(list(sources)) != _joined(paths):
        return _same_sources_aliased(src, sources, dict(zip(paths, zip(sizes, mtimes))))
    prefix = src.rstrip(os.sep) + os.sep
    lstat = os.lstat
    link = stat.S_ISLNK
    for path, size, mtime in zip(paths, sizes, mtimes):
        st = lstat(prefix + path)
        if link(st.st_mode):
            st = os.stat(prefix + path)  # a link's own mtime does not move when its target changes
        if st.st_size != size or st.st_mtime_ns != mtime:
            return False
    return True


def _same_sources_aliased(src: str, sources: tuple[str, ...], files: dict[str, tuple[int, int]]) -> bool:
    """``_same_sources`` when the listing is not the recorded paths: it holds listed symlinks to another
    listed source (scanner.worklist counts them once), or it changed."""
    aliases = len(sources) - len(files)
    if aliases < 0:
        return False
    join = os.path.join
    for path in sources:
        known = files.get(path)
        if known is None:
            if aliases == 0 or not _links_to_one_of(src, path, files):
                return False
            aliases -= 1
            continue
        st = os.lstat(join(src, path))
        if stat.S_ISLNK(st.st_mode):
            st = os.stat(join(src, path))
        if st.st_size != known[0] or st.st_mtime_ns != known[1]:
            return False
    return True


def _normalized(key: str) -> bool:
    """True when the config key is a plain path below SRC (no ``.``, ``..`` or empty segment)."""
    return not (
        key in ("", ".", "..")
        or key.startswith(("/", "./", "../"))
        or key.endswith(("/", "/.", "/.."))
        or "//" in key
        or "/./" in key
        or "/../" in key
    )


def _config_path(src: str, key: str) -> str:
    """The path of a recorded config key (relative to SRC, possibly above it)."""
    if not _normalized(key):
        return os.path.normpath(os.path.join(src, key))
    return src.rstrip(os.sep) + os.sep + key


def _same_configs(src: str, configs: dict[str, Any], absent: list[str], other: list[str], listing: Listing) -> bool:
    """True when the recorded configs have their stamps and the recorded absent ones are still absent
    (``absent``: plain paths below SRC, ``other``: the rest, such as ``../tsconfig.json``).

    An absent key needs no stat of its own when the listing's walk shows nothing there, or when it
    lies under a path found absent (keys are sorted: ``x.js`` comes before ``x.js/package.json``)."""
    for config, stamp in configs.items():
        try:
            st = os.stat(_config_path(src, config))
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return False
        if st.st_size != stamp[0] or st.st_mtime_ns != stamp[1]:
            return False
    gone: set[str] = set()
    walked, surely_absent = listing.walked, listing.surely_absent
    prefix = src.rstrip(os.sep) + os.sep
    missing: set[str] = set()  # keys of ``absent`` seen absent: nothing is under them either
    for config in absent:
        parent, _, name = config.rpartition("/")
        names = walked.get(parent)
        if names is not None:  # the common case, inlined: a folder the walk listed
            if (name.casefold() if name.isascii() else folded(name)) not in names:
                missing.add(config)
                continue
        elif parent in missing or surely_absent(config):  # ``x.js`` sorts before ``x.js/package.json``
            missing.add(config)
            continue
        if not _still_absent(prefix + config, gone):
            return False
        missing.add(config)
    return all(_still_absent(os.path.normpath(os.path.join(src, config)), gone) for config in other)


def _still_absent(path: str, gone: set[str]) -> bool:
    """True when nothing is at ``path`` (recorded in ``gone``): under a path in ``gone``, or by a stat."""
    if path.rpartition(os.sep)[0] in gone:
        gone.add(path)
        return True
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # absent, or under a file (x.css/package.json)
        gone.add(path)
        return True
    return False
