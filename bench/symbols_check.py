"""`rofl impact --symbols` against TypeScript's language service (``findReferences``) on a real repository.

For a seeded sample of exports of a repository under bench/.cache/repos (the snapshot is copied into a
temporary folder and its workspace packages linked into ``node_modules``, as bench/ts_resolution_check.py
does), rofl answers ``--changed FILE:NAME --symbols`` and, for the same file, plain ``--changed FILE``;
TypeScript's language service, over every scanned file with the options of the changed file's nearest
tsconfig.json (``allowJs`` on), finds the references to the export.  A file TypeScript finds a reference
in that rofl's symbol answer lacks is a miss (a bug of rofl, printed).  rofl may name more: its answer is
transitive (the users of a function that uses the export) and whole-module for import()/require/side
effects; TypeScript lists direct references only.  Printed: per change the three counts, the misses, and
the median affected count with and without --symbols.  TypeScript resolves imports over rofl's file
graph (``src_resolves``; its own resolution where rofl names no file): this checks the symbols, and
bench/ts_resolution_check.py checks the graph.

``python bench/symbols_check.py [NAME] [--changes N] [--seed S]``; NAME defaults to trpc.  Needs node and
bench/.cache/node_modules/typescript.  A check of correctness, not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpora import CACHE
from bench.scan_compare import rofl_argv

SOURCE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
TEST_PARTS = (".test.", ".spec.", "/test/", "/tests/", "__tests__", "/fixtures/", "/examples/", "/e2e/")

ORACLE = r"""
const ts = require(process.argv[1]);
const path = require('path');
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const root = input.root;
const files = input.files.map(f => path.join(root, f));
const services = {};
function serviceFor(file) {
  const cfg = ts.findConfigFile(path.dirname(file), ts.sys.fileExists, 'tsconfig.json') || '';
  if (services[cfg]) return services[cfg];
  let options = {moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext};
  if (cfg) {
    const host = {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {}};
    const parsed = ts.getParsedCommandLineOfConfigFile(cfg, {}, host);
    if (parsed) options = parsed.options;
  }
  options = {...options, allowJs: true, noEmit: true, jsx: options.jsx || ts.JsxEmit.Preserve};
  const versions = {};
  const host = {
    getScriptFileNames: () => files,
    getScriptVersion: f => '1',
    getScriptSnapshot: f => fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined,
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: o => ts.getDefaultLibFilePath(o),
    // the file graph rofl resolved (workspace packages to their sources, as a built install maps them):
    // this check is of the symbols, with resolution checked by bench/ts_resolution_check.py
    resolveModuleNames: (names, containing) => names.map(name => {
      const rel = path.relative(root, containing).split(path.sep).join('/');
      const targets = ((input.resolves[rel] || {})[name] || []).filter(t => /\.[cm]?[jt]sx?$/.test(t));
      const pick = targets.find(t => /\.d\.[cm]?ts$/.test(t) === false && /\.[cm]?tsx?$/.test(t)) || targets[0];
      if (pick) {
        const f = path.join(root, pick);
        return {resolvedFileName: f, extension: ts.extensionFromPath(f), isExternalLibraryImport: false};
      }
      const r = ts.resolveModuleName(name, containing, options, ts.sys);
      return r.resolvedModule;
    }),
    fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories, realpath: ts.sys.realpath,
  };
  return services[cfg] = ts.createLanguageService(host, ts.createDocumentRegistry());
}
function exported(st) {
  const mods = ts.canHaveModifiers(st) ? ts.getModifiers(st) || [] : [];
  return [mods.some(m => m.kind === ts.SyntaxKind.ExportKeyword), mods.some(m => m.kind === ts.SyntaxKind.DefaultKeyword)];
}
function position(sf, name) {
  for (const st of sf.statements) {
    const [isExported, isDefault] = exported(st);
    if (isExported && ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === name) return d.name.getStart(sf);
    } else if (isExported && st.name && (isDefault ? name === 'default' : st.name.text === name)) {
      return st.name.getStart(sf);
    } else if (ts.isExportDeclaration(st) && !st.moduleSpecifier && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) if (el.name.text === name) return el.name.getStart(sf);
    } else if (ts.isExportAssignment(st) && name === 'default') {
      return st.expression.getStart(sf);
    }
  }
  return -1;
}
const out = {};
for (const q of input.queries) {
  const file = path.join(root, q.file);
  const ls = serviceFor(file);
  const sf = ls.getProgram().getSourceFile(file);
  const key = q.file + ':' + q.name;
  if (!sf) { out[key] = null; continue; }
  const pos = position(sf, q.name);
  if (pos < 0) { out[key] = null; continue; }
  const found = new Set();
  for (const sym of ls.findReferences(file, pos) || []) {
    for (const ref of sym.references) {
      const rel = path.relative(root, fs.realpathSync(ref.fileName));
      if (!rel.startsWith('..') && !rel.split(path.sep).includes('node_modules') && rel !== q.file) found.add(rel.split(path.sep).join('/'));
    }
  }
  out[key] = [...found].sort();
}
fs.writeFileSync(process.argv[2] + '.out.json', JSON.stringify(out));
"""


def _copy(repo: Path, work: Path) -> Path:
    root = work / repo.name
    shutil.copytree(repo, root, symlinks=True, ignore=shutil.ignore_patterns(".git", "node_modules"))
    from bench import monorepos

    for package, folder in monorepos.workspace_packages(monorepos.Repo(repo.name, root, "", "")).items():
        link = root / "node_modules" / package  # as pnpm links a workspace package
        if folder != "." and not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(root / folder, link)
    return root


def _impact(facts: Path, changed: str, symbols: bool) -> set[str]:
    argv = [*rofl_argv(), "impact", "--facts", str(facts), "--no-rescan", "--json", "--changed", changed]
    proc = subprocess.run([*argv, "--symbols"] if symbols else argv, capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"rofl impact failed: {proc.stderr.strip()}")
    return {a["file"] for a in json.loads(proc.stdout)["affected"]}


def _sample(facts: Path, count: int, seed: int, resolves: dict[str, dict[str, list[str]]]) -> list[tuple[str, str]]:
    """Exports with a declaration behind them, in imported non-test sources, seeded."""
    from rofl.engine.parse import parse_program

    manifest = json.loads((facts / "manifest.json").read_text())
    exports: dict[str, set[tuple[str, str]]] = {}
    brought: dict[str, set[str]] = {}
    imported: set[str] = set()
    for entry in manifest["files"].values():
        for clause in parse_program((facts / entry["facts"]).read_text(encoding="utf-8"), entry["facts"]):
            head = clause.head
            if head.rel == "src_export_local":
                exports.setdefault(head.args[0], set()).add((head.args[1], head.args[2]))
            elif head.rel == "src_import_name":  # an import exported again is a re-export: not its definition
                brought.setdefault(head.args[0], set()).add(head.args[3])
            elif head.rel == "src_resolves":
                imported.add(head.args[2])
                resolves.setdefault(head.args[0], {}).setdefault(head.args[1], []).append(head.args[2])
    local = {f: {n for n, b in pairs if b not in brought.get(f, ())} for f, pairs in exports.items()}
    files = sorted(
        f
        for f in local
        if local[f]
        if f in imported
        and f.endswith(SOURCE_SUFFIXES)
        and ".d." not in f
        and not any(p in "/" + f for p in TEST_PARTS)
    )
    rng = random.Random(seed)
    picked = rng.sample(files, min(count, len(files)))
    return [(f, rng.choice(sorted(local[f]))) for f in picked]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", default="trpc")
    parser.add_argument("--changes", type=int, default=15)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    typescript = CACHE / "node_modules" / "typescript"
    repo = CACHE / "repos" / args.name
    if shutil.which("node") is None or not typescript.is_dir() or not repo.is_dir():
        print(f"node, {typescript} or {repo} missing; nothing checked")
        return 0
    with tempfile.TemporaryDirectory(prefix="rofl-symbols-") as tmp:
        work = Path(tmp)
        root = _copy(repo, work)
        facts = work / "facts"
        subprocess.run([*rofl_argv(), "scan", str(root), "--out", str(facts)], check=True, capture_output=True)
        resolves: dict[str, dict[str, list[str]]] = {}
        changes = _sample(facts, args.changes, args.seed, resolves)
        manifest = json.loads((facts / "manifest.json").read_text())
        sources = [f for f in manifest["files"] if f.endswith(SOURCE_SUFFIXES)]
        query = work / "query.json"
        query.write_text(
            json.dumps(
                {
                    "root": str(root),
                    "files": sources,
                    "resolves": resolves,
                    "queries": [{"file": f, "name": n} for f, n in changes],
                }
            )
        )
        subprocess.run(["node", "-e", ORACLE, str(typescript), str(query)], check=True, env={**os.environ})
        found = json.loads((work / "query.json.out.json").read_text())
        with_symbols: list[int] = []
        without: list[int] = []
        misses = 0
        print(f"{args.name}: {len(changes)} changed exports (seed {args.seed})")
        print(f"{'change':60} {'files':>6} {'symbols':>8} {'ts refs':>8}  missed")
        for f, name in changes:
            whole = _impact(facts, f, symbols=False)
            narrow = _impact(facts, f"{f}:{name}", symbols=True)
            refs = found.get(f"{f}:{name}")
            missed = sorted(set(refs or ()) - narrow)
            misses += len(missed)
            with_symbols.append(len(narrow))
            without.append(len(whole))
            shown = "-" if refs is None else str(len(refs))
            print(f"{f + ':' + name:60} {len(whole):6} {len(narrow):8} {shown:>8}  {', '.join(missed) or '-'}")
            if not narrow <= whole:
                print(f"  BUG: symbol impact names files file impact does not: {sorted(narrow - whole)[:5]}")
        print(
            f"median affected: {statistics.median(without)} without --symbols, {statistics.median(with_symbols)} with"
        )
        print(f"files TypeScript finds a reference in that rofl --symbols misses: {misses}")
        return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
