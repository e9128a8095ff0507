"""Which packages a dependency change touches: locked versions from lock files, ranges from package.json.

Lock files read: ``package-lock.json``/``npm-shrinkwrap.json`` (lockfile v1 ``dependencies`` and
v2/v3 ``packages``), ``yarn.lock`` (classic and berry) and ``pnpm-lock.yaml`` (v5 ``/name/1.0.0``,
v6 ``/name@1.0.0`` and v9 ``name@1.0.0`` keys under ``packages:``/``snapshots:``) and ``bun.lock``
(bun's text lock: JSON with trailing commas, ``packages`` of ``[name@version, ...]``).  Each gives
package name -> the set of versions locked for it; a package changed when its set differs.
A lock file that cannot be read gives None: the caller then counts every package as changed.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

LOCK_FILES = frozenset(
    {"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb"}
)
DEPENDENCY_FIELDS = (
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
    "overrides",
    "resolutions",
)

Locked = dict[str, frozenset[str]]


@dataclass(frozen=True, slots=True)
class Lock:
    """What one lock file says: versions locked per package name, and the names each package requires."""

    versions: Locked
    requires: dict[str, frozenset[str]]


def is_lock_file(path: str) -> bool:
    return posixpath.basename(path) in LOCK_FILES


def parse_lock(path: str, data: bytes | None) -> Lock | None:
    """The lock file's packages, or None when it is missing or not a lock file we read."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    name = posixpath.basename(path)
    versions: dict[str, set[str]] = {}
    requires: dict[str, set[str]] = {}
    try:
        if name in ("package-lock.json", "npm-shrinkwrap.json"):
            ok = _npm(json.loads(text), versions, requires)
        elif name == "yarn.lock":
            ok = _yarn(text, versions, requires)
        elif name == "pnpm-lock.yaml":
            ok = _pnpm(text, versions, requires)
        elif name == "bun.lock":
            ok = _bun(json.loads(_TRAILING_COMMA.sub(lambda m: m.group(1) or "", text)), versions, requires)
        else:  # bun.lockb is binary
            return None
    except (ValueError, AttributeError, TypeError):
        return None
    if not ok:
        return None
    return Lock({k: frozenset(v) for k, v in versions.items()}, {k: frozenset(v) for k, v in requires.items()})


def changed_packages(before: Locked | None, after: Locked | None) -> set[str] | None:
    """Names whose locked versions differ; None when either side could not be read."""
    if before is None or after is None:
        return None
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def with_dependents(changed: set[str], *locks: Lock) -> set[str]:
    """``changed`` and every package that requires one of them, directly or not (by name, in any lock)."""
    dependents: dict[str, set[str]] = {}
    for lock in locks:
        for name, required in lock.requires.items():
            for dep in required:
                dependents.setdefault(dep, set()).add(name)
    out = set(changed)
    stack = list(changed)
    while stack:
        for parent in dependents.get(stack.pop(), ()):
            if parent not in out:
                out.add(parent)
                stack.append(parent)
    return out


def _add(found: dict[str, set[str]], name: str, version: Any) -> None:
    if name and isinstance(version, str):
        found.setdefault(name, set()).add(version)


def _require(requires: dict[str, set[str]], name: str, deps: Any) -> None:
    if name and isinstance(deps, dict):
        requires.setdefault(name, set()).update(k for k in deps if isinstance(k, str))


def _npm(data: Any, versions: dict[str, set[str]], requires: dict[str, set[str]]) -> bool:
    if not isinstance(data, dict):
        return False
    packages = data.get("packages")
    if isinstance(packages, dict):
        for key, entry in packages.items():
            if not isinstance(key, str) or not isinstance(entry, dict) or "node_modules/" not in key:
                continue
            name = named if isinstance(named := entry.get("name"), str) else key.rsplit("node_modules/", 1)[1]
            _add(versions, name, entry.get("resolved") if entry.get("link") else entry.get("version"))
            for field in ("dependencies", "optionalDependencies", "peerDependencies"):
                _require(requires, name, entry.get(field))
        return True

    def walk(deps: Any) -> None:
        if isinstance(deps, dict):
            for name, entry in deps.items():
                if isinstance(entry, dict):
                    _add(versions, name, entry.get("version"))
                    _require(requires, name, entry.get("requires"))
                    walk(entry.get("dependencies"))

    if not isinstance(data.get("dependencies"), dict):
        return False
    walk(data["dependencies"])
    return True


# a string (kept) or a comma before a closing bracket (dropped): bun.lock's JSON with trailing commas
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(?=\s*[}\]])')


def _bun(data: Any, versions: dict[str, set[str]], requires: dict[str, set[str]]) -> bool:
    """``"packages": {"key": ["name@version", registry, {"dependencies": {...}}, integrity]}``."""
    packages = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(packages, dict):
        return False
    for entry in packages.values():
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
            continue
        name, at, version = entry[0].rpartition("@")
        if not at or not name:
            continue
        _add(versions, name, version)
        info = next((x for x in entry[1:] if isinstance(x, dict)), None)
        for field in ("dependencies", "optionalDependencies", "peerDependencies"):
            _require(requires, name, info.get(field) if info else None)
    return True


def _descriptor_name(descriptor: str) -> str:
    """``@scope/name@npm:^1.0.0`` -> ``@scope/name``."""
    descriptor = descriptor.strip().strip('"')
    at = descriptor.find("@", 1)
    return descriptor[:at] if at > 0 else descriptor


_YARN_VERSION = re.compile(r'^  version:?\s+"?([^"\s]+)"?\s*$')
_DEPENDENCY_BLOCKS = ("dependencies:", "optionalDependencies:", "peerDependencies:")


def _nested_key(line: str) -> str:
    """The key of an indented ``name "range"`` (yarn classic) or ``name: range`` (yaml) line."""
    text = line.strip()
    if text.startswith(("'", '"')):
        quote = text[0]
        end = text.find(quote, 1)
        return text[1:end] if end > 0 else text.strip(quote)
    return re.split(r"[:\s]", text, maxsplit=1)[0]


def _yaml_lines(text: str) -> Iterator[tuple[str | None, str]]:
    """The lines of a YAML-like lock file (yarn.lock, pnpm-lock.yaml) that say something, blank and comment lines
    left out, each after its top-level key (the line without its colon) when it opens a block, else None."""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            yield (None if line[0].isspace() else line.rstrip().rstrip(":")), line


def _yarn(text: str, versions: dict[str, set[str]], requires: dict[str, set[str]]) -> bool:
    names: list[str] = []
    in_deps = False
    for header, line in _yaml_lines(text):
        if header is not None:
            names = [] if header == "__metadata" else [_descriptor_name(d) for d in header.split(",")]
            in_deps = False
            continue
        if line.startswith("    ") and in_deps:
            for name in names:
                requires.setdefault(name, set()).add(_nested_key(line))
            continue
        in_deps = line.strip() in _DEPENDENCY_BLOCKS
        m = _YARN_VERSION.match(line)
        if m and names:
            for name in names:
                _add(versions, name, m.group(1))
    return True


def _pnpm_key(key: str) -> tuple[str, str] | None:
    key = key.strip().strip("'\"").lstrip("/")
    key = re.sub(r"\(.*\)$", "", key)
    at = key.find("@", 1)
    if at > 0:
        return key[:at], key[at + 1 :]
    parts = key.split("/")  # v5: name/version or @scope/name/version
    if len(parts) >= 2:
        return "/".join(parts[:-1]), parts[-1]
    return None


def _pnpm(text: str, versions: dict[str, set[str]], requires: dict[str, set[str]]) -> bool:
    if not re.search(r"^lockfileVersion:", text, re.MULTILINE):
        return False
    section = None
    current: str | None = None
    in_deps = False
    for header, line in _yaml_lines(text):
        if header is not None:
            section = header
            current = None
            continue
        if section not in ("packages", "snapshots"):
            continue
        if line.startswith("  ") and not line.startswith("   "):
            parsed = (
                _pnpm_key(line.rstrip()[:-1]) if line.rstrip().endswith(":") or line.rstrip().endswith(": {}") else None
            )
            if line.rstrip().endswith(": {}"):
                parsed = _pnpm_key(line.rstrip()[:-4])
            current = parsed[0] if parsed else None
            if parsed is not None:
                _add(versions, *parsed)
            in_deps = False
        elif line.startswith("    ") and not line.startswith("     "):
            in_deps = line.strip() in _DEPENDENCY_BLOCKS
        elif line.startswith("      ") and in_deps and current is not None:
            requires.setdefault(current, set()).add(_nested_key(line))
    return True


def declared_ranges(data: bytes | None) -> dict[str, str] | None:
    """A package.json's declared dependencies (every dependency field), name -> field:range; None when unreadable."""
    manifest = package_json_text(data)
    if manifest is None:
        return None
    out: dict[str, str] = {}
    for field in DEPENDENCY_FIELDS:
        deps = manifest.get(field)
        if isinstance(deps, dict):
            for name, spec in deps.items():
                out[f"{field}:{name}"] = json.dumps(spec, sort_keys=True)
    pnpm = manifest.get("pnpm")
    if isinstance(pnpm, dict) and isinstance(pnpm.get("overrides"), dict):
        for name, spec in pnpm["overrides"].items():
            out[f"pnpm.overrides:{name}"] = json.dumps(spec, sort_keys=True)
    return out


def changed_declarations(before: dict[str, str] | None, after: dict[str, str] | None) -> set[str]:
    """Package names whose declared range changed, appeared or disappeared (overrides keys may name
    ``a>b`` paths or ``name@range``: each package named counts)."""
    before = before or {}
    after = after or {}
    names: set[str] = set()
    for key in before.keys() | after.keys():
        if before.get(key) != after.get(key):
            name = key.split(":", 1)[1]
            for part in name.split(">"):
                names.add(_descriptor_name(part))
    return names


def package_json_text(data: bytes | None) -> dict | None:
    """A package.json's object; None when it is absent, unreadable or no object."""
    if data is None:
        return None
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None
