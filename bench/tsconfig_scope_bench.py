"""The files a tsconfig governs, as rofl.questions.tsconfig_scope finds them, against TypeScript's own answer.

For a scanned repository (``rofl scan REPO --out FACTS`` first), every tracked ``tsconfig*.json`` is
compared with TypeScript's ``parseJsonConfigFileContent`` (the root files of ``tsc -p CONFIG``; for
a solution config, those of its ``references``, through ``ts.resolveProjectReferencePath``), both filtered to the scan's files; with ``--list-files N``, the first N configs are also compared
with ``tsc -p CONFIG --listFilesOnly`` (root files plus every file they import: the governed set
must lie inside it).  TypeScript resolves a package-name ``extends`` only from an installed
``node_modules``: with ``--link-workspace`` the repository is copied to a temporary folder and its
workspace packages are linked into ``node_modules`` by name first (as pnpm would link them).

    python bench/tsconfig_scope_bench.py REPO FACTS [--list-files 3 | --list CONFIG ...] [--link-workspace]

Prints one line per config (``=`` agreement, else the files only one side has) and a summary.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TYPESCRIPT = ROOT / "bench/.cache/node_modules/typescript"
ORACLE = r"""
const ts = require(process.argv[process.argv.length - 1]);
const path = require("path");
// the root files of a config; a solution (none of its own, references) governs its references' files
function governed(cfg, seen) {
  if (seen.has(cfg)) return [];
  seen.add(cfg);
  const read = ts.readConfigFile(cfg, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, path.dirname(cfg), undefined, cfg);
  if (parsed.fileNames.length || !parsed.projectReferences) return parsed.fileNames;
  return parsed.projectReferences.flatMap((r) => governed(ts.resolveProjectReferencePath(r), seen));
}
const out = {};
for (const cfg of JSON.parse(require("fs").readFileSync(0, "utf8"))) out[cfg] = governed(cfg, new Set());
process.stdout.write(JSON.stringify(out));
"""


def tracked_configs(repo: Path) -> list[str]:
    names = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, check=True).stdout
    from rofl.questions.tsconfig_scope import is_tsconfig_name

    return sorted(n for n in os.fsdecode(names).split("\0") if n and is_tsconfig_name(n))


def linked_copy(repo: Path, packages: dict[str, str]) -> Path:
    """A copy of the repository (no .git) with each workspace package linked in node_modules by name."""
    copy = Path(tempfile.mkdtemp(prefix="tsscope-")) / repo.name
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git", "node_modules"), symlinks=True)
    for name, folder in packages.items():
        link = copy / "node_modules" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(copy / folder if folder else copy, target_is_directory=True)
    return copy


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("facts", type=Path)
    parser.add_argument("--list-files", type=int, default=0)
    parser.add_argument("--list", action="append", default=[], help="a config to compare with --listFilesOnly")
    parser.add_argument("--link-workspace", action="store_true")
    args = parser.parse_args()
    from rofl.scanner.configs import ConfigStore

    from rofl.questions.tsconfig_scope import ScopeFinder

    manifest = json.loads((args.facts / "manifest.json").read_text())
    scanned = set(manifest["files"])
    packages = manifest.get("packages") or {}
    repo = args.repo.resolve()
    where = linked_copy(repo, packages) if args.link_workspace else repo
    finder = ScopeFinder(str(where), scanned, ConfigStore(str(where)), packages)
    configs = tracked_configs(repo)
    absolute = [str(where / c) for c in configs]
    node = subprocess.run(
        ["node", "-e", ORACLE, str(TYPESCRIPT)], input=json.dumps(absolute), capture_output=True, text=True, check=True
    )
    truth = json.loads(node.stdout)
    agree = 0
    for config, path in zip(configs, absolute, strict=True):
        ts_files = {os.path.relpath(f, where) for f in truth[path]} & scanned
        ours = set(finder.governed(path))
        if ours == ts_files:
            agree += 1
            print(f"= {config}: {len(ours)} governed")
        else:
            print(f"! {config}: {len(ours)} governed, TypeScript {len(ts_files)}")
            print(f"    only rofl: {sorted(ours - ts_files)[:5]}  only TypeScript: {sorted(ts_files - ours)[:5]}")
    print(f"{repo.name}: {agree}/{len(configs)} configs agree with parseJsonConfigFileContent")
    tsc = TYPESCRIPT / "bin/tsc"
    for config in args.list or [c for c in configs if finder.governed(str(where / c))][: args.list_files]:
        proc = subprocess.run(
            ["node", str(tsc), "-p", str(where / config), "--listFilesOnly"], capture_output=True, text=True
        )
        listed = {os.path.relpath(line.strip(), where) for line in proc.stdout.splitlines() if line.strip()} & scanned
        ours = set(finder.governed(str(where / config)))
        print(
            f"listFilesOnly {config}: governed {len(ours)}, listed (scanned) {len(listed)}, "
            f"governed not listed {len(ours - listed)}, listed not governed (imported) {len(listed - ours)}"
        )
    if where != repo:
        shutil.rmtree(where.parent)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
