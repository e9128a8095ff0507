"""rofl's resolution against TypeScript's own ``ts.resolveModuleName`` on the real monorepos.

For each repository present under bench/.cache/repos (bench/monorepos.py): the snapshot is copied
into a temporary folder (the snapshots stay read-only), its workspace packages are linked into a
``node_modules`` as ``pnpm install`` links them, rofl scans the copy, and for every (file,
specifier) rofl extracted TypeScript resolves the specifier from that file with the options of the
file's nearest tsconfig.json (``allowJs`` and ``allowArbitraryExtensions`` on).  Each pair falls in
one row: TypeScript's file is one of rofl's targets (agree), TypeScript finds a file rofl does not
name (differ: the cases are printed), rofl names a file TypeScript does not find (by extension:
assets, components, ``?query`` specifiers and build output TypeScript cannot see), or neither
names a file.

``python bench/ts_resolution_check.py [NAME ...]``; needs node and the typescript package that
bench/corpora.py installs.  Not part of ``make bench``: a check of correctness, not a measurement.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import monorepos, rofl_facts
from bench.corpora import CACHE
from bench.scan_compare import rofl_argv

ORACLE = r"""
const ts = require(process.argv[1]);
const path = require('path');
const fs = require('fs');
const [root, pairsFile] = [process.argv[2], process.argv[3]];
const pairs = JSON.parse(fs.readFileSync(pairsFile, 'utf8'));
const configs = {};
function optionsFor(file) {
  const cfg = ts.findConfigFile(path.dirname(file), ts.sys.fileExists, 'tsconfig.json');
  if (!cfg) return {moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, allowJs: true};
  if (!configs[cfg]) {
    const host = {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {}};
    const parsed = ts.getParsedCommandLineOfConfigFile(cfg, {}, host);
    configs[cfg] = parsed ? parsed.options : {};
  }
  return {...configs[cfg], allowJs: true, allowArbitraryExtensions: true};
}
const out = {};
for (const [importer, specs] of Object.entries(pairs)) {
  const file = path.join(root, importer);
  const options = optionsFor(file);
  for (const spec of specs) {
    let found = null;
    try {
      const r = ts.resolveModuleName(spec, file, options, ts.sys);
      found = r.resolvedModule ? fs.realpathSync(r.resolvedModule.resolvedFileName) : null;
    } catch (e) {
      found = null;
    }
    out[importer + '\t' + spec] = found;
  }
}
fs.writeFileSync(pairsFile + '.ts.json', JSON.stringify(out));
"""


def _link_workspace(root: Path, name: str) -> None:
    for package, folder in monorepos.workspace_packages(monorepos.Repo(name, root, "", "")).items():
        link = root / "node_modules" / package
        if folder != "." and not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(root / folder, link)


def _row(root: Path, typescript: str | None, ours: set[tuple[str, ...]]) -> str:
    files = {a[1] for a in ours if a[0] == "file"}
    if typescript is not None:
        rel = os.path.relpath(typescript, root)
        if rel.startswith("..") or "node_modules" in rel.split(os.sep):
            return "TypeScript finds it in node_modules or outside; rofl: " + ",".join(sorted(a[0] for a in ours))
        return "agree" if rel in files else "DIFFER: TypeScript's file is not among rofl's"
    if files:
        exts = sorted({os.path.splitext(f)[1] or "(none)" for f in files})
        return "rofl names a file, TypeScript none: " + " ".join(exts)
    return "neither names a file (rofl: " + ",".join(sorted({a[0] for a in ours})) + ")"


def check(repo: monorepos.Repo, work: Path, typescript_package: str) -> None:
    root = work / repo.name
    shutil.copytree(repo.root, root, symlinks=True)
    root = root.resolve()
    _link_workspace(root, repo.name)
    out = work / f"{repo.name}-facts"
    subprocess.run([*rofl_argv(), "scan", str(root), "--out", str(out), "--json"], check=True, capture_output=True)
    facts = rofl_facts.read(out)
    pairs_file = work / f"{repo.name}-pairs.json"
    pairs_file.write_text(json.dumps({f: sorted(set(s)) for f, s in facts.imports.items()}))
    subprocess.run(["node", "-e", ORACLE, typescript_package, str(root), str(pairs_file)], check=True)
    answers = json.loads(Path(str(pairs_file) + ".ts.json").read_text())
    rows: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    for key, found in answers.items():
        importer, spec = key.split("\t", 1)
        ours = facts.answers.get((importer, spec), set())
        row = _row(root, found, ours)
        rows[row] += 1
        if row.startswith("DIFFER"):
            theirs = os.path.relpath(found, root) if found else None
            examples[row].append(f"`{importer}` `{spec}`: TypeScript {theirs}; rofl {sorted(ours)}")
    print(f"\n{repo.name}: {sum(rows.values())} (file, specifier) pairs")
    for row, count in rows.most_common():
        print(f"  {count:5} {row}")
        for example in examples.get(row, []):
            print(f"        {example}")


def main(argv: list[str] | None = None) -> None:
    names = list(sys.argv[1:] if argv is None else argv)
    typescript_package = str(CACHE / "node_modules" / "typescript")
    if shutil.which("node") is None or not os.path.isdir(typescript_package):
        print("node or bench/.cache/node_modules/typescript missing (bench/corpora.py installs it); nothing checked")
        return
    found, _absent = monorepos.present()
    with tempfile.TemporaryDirectory(prefix="rofl-ts-check-") as tmp:
        for repo in found:
            if not names or repo.name in names:
                check(repo, Path(tmp), typescript_package)


if __name__ == "__main__":
    main()
