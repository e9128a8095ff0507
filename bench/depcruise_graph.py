"""dependency-cruiser over the files rofl scanned, configured with the repository's tsconfig and conditions.

One ``depcruise`` run per tsconfig group (bench/monorepos.py:ts_groups), each with a generated
configuration:

* ``--ts-pre-compilation-deps`` (type-only imports count, as ours do) and ``tsConfig`` the group's
  tsconfig (its ``paths``/``baseUrl``; dependency-cruiser reads one per run);
* ``enhancedResolveOptions``: ``conditionNames`` = the tsconfig's ``customConditions`` then
  ``types import require node default module``, ``exportsFields: ["exports"]``, ``mainFields``
  ``types typings module main``, ``extensions`` TypeScript's order with ``.d.ts``;
* a module folder of symlinks to the workspace packages (what ``pnpm install`` would create; passed
  through ``webpackConfig.resolve.modules``, the one way dependency-cruiser's CLI accepts it);
* ``doNotFollow`` node_modules.  dependency-cruiser follows imports into files outside the group too
  (``maxDepth: 1`` would stop that, but it also leaves a given file unanalysed when another given
  file reaches it first), so only the modules of the group's own files are read from each run.

Edges are (from, to) pairs relative to the repository root; the answer per (file, specifier) is
kept for explaining differences.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpora import node_bin
from bench.monorepos import BASE_CONDITIONS, Repo, TsGroup

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".d.mts", ".cts", ".d.cts", ".js", ".jsx", ".mjs", ".cjs")
MAIN_FIELDS = ("types", "typings", "module", "main")


@dataclass(slots=True)
class CruiseGraph:
    """dependency-cruiser's answers, normalised to repo-relative paths."""

    edges: set[tuple[str, str]] = field(default_factory=set)
    # (file, specifier) -> ("file", target) | ("outside", resolved) | ("node_modules", resolved)
    #                      | ("core",) | ("unresolved",)
    answers: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    types: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # edge -> dependencyTypes
    sources: set[str] = field(default_factory=set)  # modules analysed (sources of edges)


def _tsconfig_file(group: TsGroup, repo: Repo, work: Path, index: int) -> Path:
    """The group's tsconfig, or a stand-in holding TypeScript's effective ``baseUrl`` and ``paths`` for it.

    The stand-in is used when dependency-cruiser would read the tsconfig otherwise than TypeScript:
    it extends a package that is not installed (dependency-cruiser refuses to run), or it inherits
    ``paths`` without a ``baseUrl`` from a config in another folder (TypeScript reads them relative
    to that config; dependency-cruiser relative to the working folder).
    """
    assert group.tsconfig is not None, "only a group with a tsconfig has one to stand in for"
    effective = json.loads(group.options)
    config = repo.root / group.tsconfig
    inherited = (
        bool(effective.get("paths"))
        and not effective.get("baseUrl")
        and Path(effective.get("pathsBasePath") or config.parent) != config.parent
    )
    if not effective.get("unreadable") and not inherited:
        return config
    options: dict = {"paths": effective["paths"]} if effective.get("paths") else {}
    if effective.get("baseUrl") or effective.get("paths"):
        options["baseUrl"] = effective.get("baseUrl") or effective.get("pathsBasePath")
    stand_in = work / f"tsconfig-{repo.name}-{index}.json"
    files = [str(repo.root / group.files[0])]  # TypeScript refuses a config that names no input
    stand_in.write_text(json.dumps({"compilerOptions": options, "files": files}, indent=1) + "\n")
    return stand_in


def write_config(group: TsGroup, repo: Repo, modules: Path, work: Path, index: int) -> Path:
    webpack = work / f"webpack-{repo.name}-{index}.config.cjs"
    webpack.write_text(
        "module.exports = " + json.dumps({"resolve": {"modules": ["node_modules", str(modules)]}}) + ";\n"
    )
    options: dict = {
        "tsPreCompilationDeps": True,
        "doNotFollow": {"path": "node_modules"},
        "webpackConfig": {"fileName": str(webpack)},
        "enhancedResolveOptions": {
            "exportsFields": ["exports"],
            "conditionNames": [*group.conditions, *BASE_CONDITIONS],
            "mainFields": list(MAIN_FIELDS),
            "extensions": list(EXTENSIONS),
        },
    }
    if group.tsconfig:
        options["tsConfig"] = {"fileName": str(_tsconfig_file(group, repo, work, index))}
    config = work / f"depcruise-{repo.name}-{index}.config.json"
    config.write_text(json.dumps({"options": options}, indent=1) + "\n")
    return config


def cwd(group: TsGroup, repo: Repo) -> Path:
    """Where to run the group: its tsconfig's folder.

    dependency-cruiser hands tsconfig-paths a baseUrl of ``./`` (the working folder) when the tsconfig
    sets none, while TypeScript reads ``paths`` relative to the tsconfig; running in the tsconfig's
    folder makes the two agree.  The group's files all lie under it (it is their nearest tsconfig).
    """
    return repo.root / os.path.dirname(group.tsconfig) if group.tsconfig else repo.root


def argv(config: Path, group: TsGroup, output: Path) -> list[str]:
    base = os.path.dirname(group.tsconfig) if group.tsconfig else ""
    files = [os.path.relpath(f, base) if base else f for f in group.files]
    return [
        str(node_bin("depcruise")),
        "--config",
        str(config),
        "--ts-pre-compilation-deps",
        "--output-type",
        "json",
        "-f",
        str(output),
        *files,
    ]


def run(argv: list[str], cwd: Path) -> float:
    """Wall seconds of one dependency-cruiser run; its error text when it fails."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"depcruise failed in {cwd}: {proc.stderr.strip()[-600:]}")
    return wall


def _classify(resolved: str, dep: dict, base: str) -> tuple[str, ...]:
    if dep.get("coreModule"):
        return ("core",)
    if dep.get("couldNotResolve"):
        return ("unresolved",)
    resolved = os.path.normpath(os.path.join(base, resolved))
    if "node_modules/" in resolved or resolved.startswith("node_modules"):
        return ("node_modules", resolved)
    if resolved.startswith("../") or os.path.isabs(resolved):
        return ("outside", resolved)
    return ("file", resolved)


def read_output(path: Path, group: TsGroup, graph: CruiseGraph) -> None:
    """Add the dependencies of the group's own modules in ``path`` (JSON output), repo-relative."""
    data = json.loads(path.read_text())
    base = os.path.dirname(group.tsconfig) if group.tsconfig else ""
    sources = set(group.files)
    for module in data["modules"]:
        source = os.path.normpath(os.path.join(base, module["source"]))
        if source not in sources:
            continue
        graph.sources.add(source)
        for dep in module.get("dependencies", []):
            answer = _classify(dep.get("resolved", ""), dep, base)
            graph.answers[(source, dep["module"])] = answer
            if answer[0] == "file":
                edge = (source, answer[1])
                graph.edges.add(edge)
                graph.types.setdefault(edge, set()).update(dep.get("dependencyTypes", []))
