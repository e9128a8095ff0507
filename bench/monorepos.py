"""The real monorepos of the comparison: where they are, their workspace packages and their tsconfigs.

The repositories (public snapshots of zod, excalidraw, TanStack/query, vite, create-t3-turbo, trpc,
SvelteKit, vitest and Effect) cannot be downloaded by `make bench` (the machine reaches package
registries only), so they are used when a checkout (a folder with a ``package.json``; a git work
tree or not) is present at ``bench/.cache/repos/NAME``; ``present()`` says plainly which are absent.
Workspace packages are read as pnpm/npm/yarn read them (``pnpm-workspace.yaml`` ``packages``,
package.json ``workspaces``); tsconfigs are read by TypeScript itself (the ``typescript`` package
installed by bench/corpora.py), so ``extends`` chains and comments are TypeScript's business.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.corpora import CACHE

REPOS = CACHE / "repos"
# name -> (upstream repository, upstream commit of the public snapshot)
SNAPSHOTS = {
    "zod": ("colinhacks/zod", "e516c3ba"),
    "excalidraw": ("excalidraw/excalidraw", "4872083c"),
    "query": ("TanStack/query", "40321a0b"),
    "vite": ("vitejs/vite", "a98c8d95"),
    "t3turbo": ("t3-oss/create-t3-turbo", "e69b5858"),
    "trpc": ("trpc/trpc", "340811ba5"),
    "kit": ("sveltejs/kit", "aa810a0414"),
    "vitest": ("vitest-dev/vitest", "c3ba16b35"),
    "effect": ("Effect-TS/effect", "1144032ced"),
}
# Conditions after the project's own customConditions (the order).
BASE_CONDITIONS = ("types", "import", "require", "node", "default", "module")


@dataclass(frozen=True, slots=True)
class Repo:
    """One present repository work tree."""

    name: str
    root: Path  # resolved (real) path of the work tree
    upstream: str
    commit: str


@dataclass(frozen=True, slots=True)
class TsGroup:
    """Files whose nearest tsconfig.json resolves alike: one dependency-cruiser run each."""

    tsconfig: str | None  # repo-relative tsconfig given to dependency-cruiser (has paths/baseUrl)
    conditions: tuple[str, ...]  # customConditions of that tsconfig
    options: str  # JSON of TypeScript's effective baseUrl/paths/pathsBasePath/unreadable for it
    files: tuple[str, ...]


def present() -> tuple[list[Repo], list[str]]:
    """The repositories found under bench/.cache/repos, and the names of those absent (in SNAPSHOTS order)."""
    found, absent = [], []
    for name, (upstream, commit) in SNAPSHOTS.items():
        path = REPOS / name
        if (path / "package.json").is_file():
            found.append(Repo(name, path.resolve(), upstream, commit))
        else:
            absent.append(name)
    return found, absent


def select(names: list[str]) -> tuple[list[Repo], list[str]]:
    """The present repositories among ``names`` (all when empty) and one line per name not run, saying why.

    An unknown name is a user error: the caller exits 2 with the line.
    """
    unknown = [n for n in names if n not in SNAPSHOTS]
    if unknown:
        raise SystemExit(
            f"unknown repository {', '.join(unknown)}: choose among {', '.join(SNAPSHOTS)} (bench/monorepos.py)"
        )
    found, absent = present()
    wanted = set(names) or set(SNAPSHOTS)
    notes = [
        f"{name}: absent, skipped (no checkout at {REPOS / name}; upstream {SNAPSHOTS[name][0]} "
        f"at {SNAPSHOTS[name][1]})"
        for name in absent
        if name in wanted
    ]
    return [r for r in found if r.name in wanted], notes


def _pnpm_globs(text: str) -> list[str]:
    """The ``packages:`` list of a pnpm-workspace.yaml (a flat YAML list; no YAML library needed)."""
    globs: list[str] = []
    inside = False
    for line in text.splitlines():
        if re.match(r"^packages\s*:", line):
            inside = True
            continue
        if inside:
            item = re.match(r"^\s+-\s*(['\"]?)(.*?)\1\s*(#.*)?$", line)
            if item:
                globs.append(item.group(2))
            elif line.strip() and not line.lstrip().startswith("#"):
                break
    return globs


def _glob_regex(glob: str) -> re.Pattern[str]:
    """A folder glob as package managers read it: ``*`` one segment, ``**`` any depth (none included)."""
    glob = glob.strip().removeprefix("./").rstrip("/")
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out, i = out + "(?:/.*)?", i + 3
        elif glob.startswith("**", i):
            out, i = out + ".*", i + 2
        elif glob[i] == "*":
            out, i = out + "[^/]*", i + 1
        else:
            out, i = out + re.escape(glob[i]), i + 1
    return re.compile("^" + out + "$")


def folders_with(root: Path, filename: str) -> list[str]:
    """Repo-relative folders ("" for the root) holding ``filename``, outside node_modules and hidden folders."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        if filename in names:
            found.append("" if folder == str(root) else os.path.relpath(folder, root))
    return found


def workspace_packages(repo: Repo) -> dict[str, str]:
    """Workspace package name -> its folder (repo-relative, "." for the root), as the package manager links them."""
    globs: list[str] = []
    pnpm = repo.root / "pnpm-workspace.yaml"
    if pnpm.exists():
        globs = _pnpm_globs(pnpm.read_text())
    root_manifest = (
        json.loads((repo.root / "package.json").read_text()) if (repo.root / "package.json").exists() else {}
    )
    workspaces = root_manifest.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    if isinstance(workspaces, list):
        globs.extend(g for g in workspaces if isinstance(g, str))
    include = [_glob_regex(g) for g in globs if not g.startswith("!")]
    exclude = [_glob_regex(g[1:]) for g in globs if g.startswith("!")]
    packages: dict[str, str] = {}
    if isinstance(root_manifest.get("name"), str):
        packages[root_manifest["name"]] = "."
    # the file system, not git: package managers glob folders, and a package.json may be git-ignored
    # (zod's packages/zod/.gitignore ignores ``**/package.json``; upstream force-adds it)
    for folder in folders_with(repo.root, "package.json"):
        if not folder or not any(r.match(folder) for r in include) or any(r.match(folder) for r in exclude):
            continue
        try:
            name = json.loads((repo.root / folder / "package.json").read_text()).get("name")
        except (OSError, ValueError):
            continue
        if isinstance(name, str) and name not in packages:
            packages[name] = folder
    return packages


def pnpm_links(repo: Repo) -> dict[str, dict[str, str]] | None:
    """Importer folder -> {dependency name: linked folder}, repo-relative, as ``pnpm-lock.yaml`` records them.

    pnpm links a workspace package into ``FOLDER/node_modules/NAME`` only for the importers that
    depend on it (``link:`` versions in the lockfile's ``importers``; ``file:`` folders too, which
    pnpm copies); nothing else is hoisted where TypeScript would find it.  None without a pnpm lockfile (then ``link_workspace`` links them all).
    """
    import yaml  # type: ignore[import-untyped]  # the project's dependency (tests/cli parse workflows with it)

    lock = repo.root / "pnpm-lock.yaml"
    if not lock.is_file():
        return None
    text = lock.read_text()
    start = text.find("\nimporters:\n")
    if start < 0:
        return None
    end = re.search(r"^\S", text[start + 13 :], re.M)
    body = text[start + 1 : start + 13 + (end.start() if end else len(text))]
    importers = (yaml.load(body, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}).get("importers") or {}
    links: dict[str, dict[str, str]] = {}
    for folder, sections in importers.items():
        own: dict[str, str] = {}
        for section in ("dependencies", "devDependencies", "optionalDependencies"):
            for name, entry in ((sections or {}).get(section) or {}).items():
                version = entry.get("version", "") if isinstance(entry, dict) else str(entry)
                # ``link:../x``, ``file:x(svelte@5.1.0)`` (a peer suffix), ``alias@file:x`` (an alias)
                local = re.match(r"^(?:[^:]+@)?(link|file):([^(]*)", version)
                if local is None:
                    continue
                if local.group(1) == "link":
                    target = os.path.normpath(os.path.join(folder, local.group(2)))
                else:
                    # a local folder pnpm copies in (``file:`` versions are repo-relative): a change
                    # there reaches its importers with the next install, so it is linked here
                    target = os.path.normpath(local.group(2))
                if not target.startswith(".."):
                    own[name] = target
        links[os.path.normpath(folder)] = own
    return links


def link_like_pnpm(root: Path, repo: Repo) -> int:
    """Symlink each importer's workspace dependencies into ``root/FOLDER/node_modules`` (a copy of ``repo``).

    With a pnpm lockfile, exactly its ``link:`` entries; without one, every workspace package in the
    root ``node_modules`` (npm and yarn hoist them there).  Returns the number of links made.
    """
    links = pnpm_links(repo)
    if links is None:
        links = {".": {n: f for n, f in workspace_packages(repo).items() if f != "."}}
    made = 0
    for folder, deps in links.items():
        for name, target in deps.items():
            link = root / folder / "node_modules" / name
            if link.is_symlink() or link.exists() or not (root / target).is_dir():
                continue
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(root / target, link, target_is_directory=True)
            made += 1
    return made


def link_workspace(packages: dict[str, str], repo: Repo, modules: Path) -> Path:
    """A node_modules folder of symlinks to the workspace packages, as ``pnpm install`` makes.

    The repositories have no node_modules (nothing may be written into them), so dependency-cruiser
    is given this folder as an extra module folder; enhanced-resolve follows the symlinks to the
    packages' real paths and applies their ``exports`` with the configured conditions.
    """
    for name, folder in packages.items():
        link = modules / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(repo.root / folder, target_is_directory=True)
    return modules


_TSCONFIG_SCRIPT = r"""
const ts = require(process.argv[1]);
const out = {};
for (const file of JSON.parse(require('fs').readFileSync(0, 'utf8'))) {
  const parsed = ts.getParsedCommandLineOfConfigFile(file, {}, {
    ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {},
  });
  const o = (parsed && parsed.options) || {};
  out[file] = {
    paths: o.paths || null, baseUrl: o.baseUrl || null, pathsBasePath: o.pathsBasePath || null,
    customConditions: o.customConditions || [],
    unreadable: ((parsed && parsed.errors) || []).some(e => e.code === 6053),
  };
}
process.stdout.write(JSON.stringify(out));
"""


def tsconfig_options(repo: Repo) -> dict[str, dict]:
    """Repo-relative tsconfig.json -> its effective paths, baseUrl and customConditions (TypeScript's reading)."""
    configs = [os.path.join(f, "tsconfig.json") for f in folders_with(repo.root, "tsconfig.json")]
    if not configs:
        return {}
    typescript = CACHE / "node_modules" / "typescript"
    proc = subprocess.run(
        ["node", "-e", _TSCONFIG_SCRIPT, str(typescript)],
        input=json.dumps([str(repo.root / c) for c in configs]),
        capture_output=True,
        text=True,
        check=True,
    )
    parsed = json.loads(proc.stdout)
    return {os.path.relpath(k, repo.root): v for k, v in parsed.items()}


def _nearest(folder: str, configs: dict[str, dict]) -> str | None:
    while True:
        candidate = os.path.join(folder, "tsconfig.json") if folder else "tsconfig.json"
        if candidate in configs:
            return candidate
        if not folder:
            return None
        folder = os.path.dirname(folder)


def ts_groups(scanned: list[str], configs: dict[str, dict]) -> list[TsGroup]:
    """Group files by the tsconfig that governs them (the nearest tsconfig.json, as editors and rofl use).

    dependency-cruiser takes one tsconfig per run, so each tsconfig with ``paths`` or ``baseUrl`` gets
    its own run over the files it governs; files under tsconfigs without them share one run per set
    of customConditions (their tsconfig changes nothing else dependency-cruiser reads).
    """
    groups: dict[tuple[str | None, tuple[str, ...]], list[str]] = {}
    for path in scanned:
        config = _nearest(os.path.dirname(path), configs)
        options = configs.get(config or "", {})
        conditions = tuple(options.get("customConditions") or ())
        own = config if options.get("paths") or options.get("baseUrl") else None
        groups.setdefault((own, conditions), []).append(path)
    return [
        TsGroup(k[0], k[1], json.dumps(configs[k[0]] if k[0] else {}), tuple(sorted(v)))
        for k, v in sorted(groups.items(), key=lambda kv: (kv[0][0] or "", kv[0][1]))
    ]
