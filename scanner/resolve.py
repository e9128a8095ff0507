"""Module resolution as Node and TypeScript do it, answering against the set of scanned files.

A specifier resolves to a *scanned* file (``file``), to a package (``external``), or to nothing
(``unresolved``).  Every answer comes with what it depended on: each candidate path probed (found
or not), each config file read or looked for, and ``package:<name>`` for bare specifiers (so that
a workspace package appearing under that name re-resolves the importer).  Order of probing:

* relative (``./``, ``../``, ``.``, ``..``): a ``.js``/``.jsx``/``.mjs``/``.cjs`` specifier first tries
  the TypeScript sources it names (``.ts .tsx .d.ts`` / ``.tsx .ts .d.ts`` / ``.mts .d.mts`` /
  ``.cts .d.cts``), then the path as written, then the path plus ``.ts .tsx .d.ts .js .jsx .mjs .cjs
  .mts .cts``; then as a folder: its package.json ``types``/``typings``/``main``, then ``index.*``.
* bare: the governing tsconfig's ``paths`` (longest matching pattern), then its ``baseUrl``, then
  workspace packages by package.json ``name`` (``exports`` when simple, ``types``, ``typings``,
  ``module``, ``main``, ``index``), else external: the package is the first segment, or
  ``@scope/name``; ``node:fs`` (and ``node:fs/promises``) is package ``node:fs`` and a bare builtin like ``fs`` is package ``fs``.
* absolute paths, ``#subpath`` imports, URLs and empty specifiers are unresolved.
"""

from __future__ import annotations

import os
import posixpath
from typing import Any

from scanner.configs import ConfigStore
from scanner.tsconfig import TsConfig, TsConfigFinder

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
JS_TO_TS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx", ".ts", ".d.ts"),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
EXPORT_CONDITIONS = ("types", "import", "module", "default", "require", "node")
PACKAGE_FIELDS = ("types", "typings", "module", "main")
PACKAGE_DEP = "package:"

Result = tuple[str, str, str]  # (specifier, "file" | "external" | "unresolved", target or package or "")


def package_name(spec: str) -> str:
    """The package a bare specifier names: ``@scope/name`` or its first segment."""
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) > 1:
        return parts[0] + "/" + parts[1]
    return parts[0]


def is_relative(spec: str) -> bool:
    return spec in (".", "..") or spec.startswith(("./", "../"))


def _export_target(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for condition in EXPORT_CONDITIONS:
            if condition in value:
                found = _export_target(value[condition])
                if found is not None:
                    return found
    if isinstance(value, list):
        for item in value:
            found = _export_target(item)
            if found is not None:
                return found
    return None


def exports_entry(exports: Any, subpath: str) -> str | None:
    """The target ``exports`` gives ``subpath`` (``.`` or ``./x``), for the simple shapes."""
    if isinstance(exports, (str, list)):
        return _export_target(exports) if subpath == "." else None
    if not isinstance(exports, dict):
        return None
    if not any(isinstance(k, str) and k.startswith(".") for k in exports):
        return _export_target(exports) if subpath == "." else None
    if subpath in exports:
        return _export_target(exports[subpath])
    for key, value in exports.items():
        if isinstance(key, str) and key.count("*") == 1:
            head, tail = key.split("*")
            if subpath.startswith(head) and subpath.endswith(tail) and len(subpath) >= len(key) - 1:
                star = subpath[len(head) : len(subpath) - len(tail)]
                target = _export_target(value)
                if target is not None:
                    return target.replace("*", star)
    return None


class Resolver:
    """Resolves specifiers of files under ``src`` against ``files``; memoised per (folder, specifier)."""

    def __init__(
        self,
        src: str,
        files: frozenset[str],
        packages: dict[str, str],
        store: ConfigStore,
        in_git: bool,
    ) -> None:
        self.src = src
        self.files = files
        self.packages = packages  # workspace package name -> folder relative to SRC ("" for SRC)
        self.store = store
        self._tsconfigs = TsConfigFinder(store, src, in_git)
        self._memo: dict[tuple[str, str], tuple[Result, tuple[str, ...]]] = {}

    # -- entry points ----------------------------------------------------------------------------

    def resolve_all(self, importer: str, specs: tuple[str, ...] | list[str]) -> tuple[list[Result], list[str]]:
        """Results for each specifier of ``importer`` and the sorted union of their dependencies."""
        folder = posixpath.dirname(importer)
        results: list[Result] = []
        deps: set[str] = set()
        for spec in specs:
            key = (folder, spec)
            known = self._memo.get(key)
            if known is None:
                probed: list[str] = []
                result = self._resolve(folder, spec, probed)
                known = self._memo[key] = (result, tuple(probed))
            results.append(known[0])
            deps.update(known[1])
        return results, sorted(deps)

    # -- the cases ---------------------------------------------------------------------------------

    def _resolve(self, folder: str, spec: str, probed: list[str]) -> Result:
        if not spec or spec.startswith(("/", "#")):
            return (spec, "unresolved", "")
        if is_relative(spec):
            base = posixpath.normpath(posixpath.join(folder, spec))
            hit = self._probe(base, probed, directory_only=spec.endswith("/"))
            return (spec, "file", hit) if hit else (spec, "unresolved", "")
        if spec.startswith("node:"):
            return (spec, "external", spec.split("/")[0])  # node:fs/promises is package node:fs
        if ":" in spec.split("/")[0] or "\\" in spec:
            return (spec, "unresolved", "")
        return self._resolve_bare(folder, spec, probed)

    def _resolve_bare(self, folder: str, spec: str, probed: list[str]) -> Result:
        config, config_keys = self._tsconfigs.for_dir(os.path.join(self.src, folder))
        probed.extend(config_keys)
        if config is not None:
            hit = self._via_tsconfig(config, spec, probed)
            if hit:
                return (spec, "file", hit)
        name = package_name(spec)
        probed.append(PACKAGE_DEP + name)
        package_dir = self.packages.get(name)
        if package_dir is not None:
            hit = self._in_package(package_dir, "." + spec[len(name) :] if spec != name else ".", probed)
            if hit:
                return (spec, "file", hit)
        return (spec, "external", name)

    def _via_tsconfig(self, config: TsConfig, spec: str, probed: list[str]) -> str | None:
        best: tuple[int, str, tuple[str, ...]] | None = None
        for pattern, targets in config.paths:
            if "*" in pattern:
                head, _, tail = pattern.partition("*")
                if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
                    star = spec[len(head) : len(spec) - len(tail)]
                    if best is None or len(head) > best[0]:
                        best = (len(head), star, targets)
            elif pattern == spec:
                best = (len(pattern) + 1 << 16, "", targets)
                break
        if best is not None:
            for target in best[2]:
                hit = self._probe_absolute(os.path.join(config.paths_base, target.replace("*", best[1])), probed)
                if hit:
                    return hit
        if config.base_url is not None:
            return self._probe_absolute(os.path.join(config.base_url, spec), probed)
        return None

    def _in_package(self, package_dir: str, subpath: str, probed: list[str]) -> str | None:
        manifest_path = os.path.join(self.src, package_dir, "package.json")
        probed.append(self.store.key(manifest_path))
        data = self.store.read(manifest_path)
        entries: list[str] = []
        if isinstance(data, dict):
            if "exports" in data:
                target = exports_entry(data["exports"], subpath)
                if target is not None:
                    entries.append(target)
            if subpath == ".":
                entries.extend(data[f] for f in PACKAGE_FIELDS if isinstance(data.get(f), str))
        entries.append(subpath)
        for entry in entries:
            base = posixpath.normpath(posixpath.join(package_dir, entry))
            hit = self._probe(base, probed, directory_only=False)
            if hit:
                return hit
        return None

    # -- probing -----------------------------------------------------------------------------------

    def _probe_absolute(self, absolute: str, probed: list[str]) -> str | None:
        rel = os.path.relpath(os.path.normpath(absolute), self.src)
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        if rel == "..." or rel.startswith("../") or rel == "..":
            return None
        return self._probe(posixpath.normpath(rel), probed, directory_only=False)

    def _probe(self, base: str, probed: list[str], directory_only: bool) -> str | None:
        """The scanned file ``base`` names (as a file, then as a folder), recording every probe."""
        if base == ".." or base.startswith("../"):
            return None  # outside SRC: never a scanned file
        files = self.files
        if not directory_only and base != ".":
            for candidate in self._file_candidates(base):
                probed.append(candidate)
                if candidate in files:
                    return candidate
        return self._probe_folder(base, probed)

    @staticmethod
    def _file_candidates(base: str) -> list[str]:
        candidates: list[str] = []
        stem, ext = posixpath.splitext(base)
        mapped = JS_TO_TS.get(ext)
        if mapped is not None:
            candidates.extend(stem + m for m in mapped)
        candidates.append(base)
        candidates.extend(base + e for e in EXTENSIONS)
        return candidates

    def _probe_folder(self, folder: str, probed: list[str]) -> str | None:
        prefix = "" if folder == "." else folder + "/"
        manifest_path = os.path.join(self.src, prefix + "package.json")
        probed.append(prefix + "package.json")
        data = self.store.read(manifest_path)
        files = self.files
        if isinstance(data, dict):
            for field in ("types", "typings", "main"):
                entry = data.get(field)
                if isinstance(entry, str) and entry:
                    base = posixpath.normpath(prefix + entry)
                    if base.startswith("../") or base == "..":
                        continue
                    for candidate in self._file_candidates(base):
                        probed.append(candidate)
                        if candidate in files:
                            return candidate
        for ext in EXTENSIONS:
            candidate = prefix + "index" + ext
            probed.append(candidate)
            if candidate in files:
                return candidate
        return None
