"""The package.json facts the presets read, from a scan's source folder: declared dependencies, workspace packages, public specifiers.

Facts, in [main]:

* ``pkg_dependency(Dir, Package, Kind)``: the package.json in folder Dir (``"."`` for the root)
  declares Package, Kind one of ``prod`` (dependencies), ``dev``, ``peer``, ``optional``; an
  ``@types/x`` declaration also states ``pkg_dependency(Dir, "x", types)``.
* ``pkg_file_workspace(File, Dir)``: File belongs to the workspace package in Dir (the deepest one;
  the root package of a monorepo, the one declaring the workspaces, holds none: it contains them).
* ``pkg_public(Dir, Regex)``: the specifiers the package in Dir offers others: its name, and each
  subpath of its ``exports`` map (``*`` standing for anything).

They are read when ``rofl audit`` runs, from the folder the manifest names (or ``--src``), through
the scanner's bounded config reader; a package.json it refuses contributes nothing.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

KINDS = {
    "dependencies": "prod",
    "devDependencies": "dev",
    "peerDependencies": "peer",
    "optionalDependencies": "optional",
}


@dataclass(frozen=True, slots=True)
class PackageFacts:
    """The fact text to load, and what could not be read (one line each)."""

    text: str
    problems: tuple[str, ...]


def _folder(rel_dir: str) -> str:
    return rel_dir or "."


def _types_target(name: str) -> str | None:
    """``@types/node`` -> ``node``; ``@types/babel__core`` -> ``@babel/core``."""
    if not name.startswith("@types/"):
        return None
    rest = name[len("@types/") :]
    return "@" + rest.replace("__", "/", 1) if "__" in rest else rest


def public_patterns(name: str, exports: object) -> list[str]:
    """Regexes of the specifiers a package offers: its name, and each ``exports`` subpath."""
    keys = ["."]
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        keys = [k for k, v in exports.items() if k.startswith(".") and v is not None]
    out = []
    for key in keys:
        spec = name + key[1:]
        out.append("^" + re.escape(spec).replace(r"\*", ".*") + "$")
    return out


def package_facts(src: str | Path, files: list[str], packages: dict[str, str]) -> PackageFacts:
    """The facts for the scanned ``files`` (paths relative to ``src``) and the workspace ``packages``
    (name -> folder relative to ``src``, ``""`` for the root) the manifest lists."""
    from engine.terms import format_fact
    from scanner.configs import ConfigStore

    root = str(src)
    if not os.path.isdir(root):
        return PackageFacts("", (f"{root}: the scanned source folder is not here; package.json facts are missing",))
    store = ConfigStore(root)
    folders: set[str] = set()
    for f in files:
        d = posixpath.dirname(f)
        while d not in folders:
            folders.add(d)
            if not d:
                break
            d = posixpath.dirname(d)
    lines: list[str] = []
    for d in sorted(folders):
        absolute = os.path.join(root, d, "package.json")
        if not store.is_file(absolute):
            continue
        data = store.read(absolute)
        if not isinstance(data, dict):
            continue
        for field, kind in KINDS.items():
            block = data.get(field)
            if not isinstance(block, dict):
                continue
            for name in sorted(k for k in block if isinstance(k, str)):
                lines.append(format_fact("pkg_dependency", "main", (_folder(d), name, (kind,))))
                target = _types_target(name)
                if target:
                    lines.append(format_fact("pkg_dependency", "main", (_folder(d), target, ("types",))))
    root_json = store.read(os.path.join(root, "package.json"))
    container = (isinstance(root_json, dict) and "workspaces" in root_json) or os.path.isfile(
        os.path.join(root, "pnpm-workspace.yaml")
    )
    # the monorepo's root package is the container of the others, not one of them: its files are tooling
    dirs = sorted({d for d in packages.values() if isinstance(d, str) and (d or not container)}, key=len, reverse=True)
    for name, d in sorted(packages.items()):
        if not isinstance(d, str):
            continue
        data = store.read(os.path.join(root, d, "package.json"))
        exports = data.get("exports") if isinstance(data, dict) else None
        for pattern in public_patterns(name, exports):
            lines.append(format_fact("pkg_public", "main", (_folder(d), pattern)))
    for f in files:
        owner = next((d for d in dirs if not d or f.startswith(d + "/")), None)
        if owner is not None:
            lines.append(format_fact("pkg_file_workspace", "main", (f, _folder(owner))))
    problems = tuple(f"{path}: {message}" for path, message in sorted(store.errors.items()))
    return PackageFacts("".join(line + ".\n" for line in lines), problems)
