"""rofl's resolution against TypeScript's own ``ts.resolveModuleName`` on the real monorepos.

For each repository present under bench/.cache/repos (bench/monorepos.py): the snapshot is copied
into a temporary folder (the snapshots stay read-only), its workspace packages are linked into
``node_modules`` folders exactly as ``pnpm install`` links them (each importer's ``link:`` entries
of pnpm-lock.yaml, nothing hoisted), rofl scans the copy, and TypeScript 5.9 answers every (file,
specifier): the specifiers rofl extracted plus those ``ts.preProcessFile`` finds (an independent
extraction), resolved with the options of the tsconfig that governs the file as tsserver picks it
(the nearest tsconfig.json whose files include it, or one of its project references; else the
nearest), ``allowJs``, ``allowArbitraryExtensions`` and ``resolveJsonModule`` on, ``require()``
in CommonJS mode and ``import()`` in ESM mode.  TypeScript's ``affectingLocations`` (the
package.json files a resolution read) are kept for bench/impact_precision.py.

Where TypeScript finds nothing because a workspace package is not built (its ``exports`` name
``dist/``), the pair is resolved once more with a file system on which the package's missing
output folders exist ("phantom" build output): that says which build file a built install would
give, and a rofl target with the same stem in that package is build output mapped to source.

Each pair falls in one row, and every disagreement gets a cause:
agree, TypeScript finds another file (DIFFER, with the cause), rofl names a file TypeScript does
not (assets, components, ``?query`` specifiers, build output mapped to source), or neither.

``python bench/ts_resolution_check.py [NAME ...] [--markdown]``; needs node and the typescript
package that bench/corpora.py installs.  Writes bench/.cache/results/ts-resolution-NAME.json.
Not part of ``make bench``: a check of correctness, not a measurement.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import monorepos, rofl_facts
from bench.corpora import CACHE
from bench.scan_compare import rofl_argv

RESULTS = CACHE / "results"
TYPESCRIPT = CACHE / "node_modules" / "typescript"
CODE_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
COMPONENT_EXTENSIONS = (".vue", ".svelte", ".astro")
# folders a build writes, beside the outDir/declarationDir a package's tsconfigs name
OUTPUT_DIRS = ("dist", "build", "lib", "out", "esm", "cjs", "dts", "types", "_esm", "_cjs", "_types")

ORACLE = r"""
const ts = require(process.argv[1]);
const path = require('path');
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const root = input.root;
const real = p => { try { return fs.realpathSync(p); } catch (e) { return null; } };
const host = {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {}};
const parsed = new Map();
function parse(cfg) {
  if (parsed.has(cfg)) return parsed.get(cfg);
  let entry = {options: {}, files: new Set(), refs: [], extended: [], cache: null};
  parsed.set(cfg, entry);
  try {
    const extended = new Map();
    const p = ts.getParsedCommandLineOfConfigFile(cfg, {}, host, extended);
    if (p) {
      entry.options = p.options;
      entry.files = new Set(p.fileNames.map(f => path.resolve(f)));
      entry.refs = (p.projectReferences || []).map(r => ts.resolveProjectReferencePath(r));
      entry.extended = [...extended.keys()].map(k => path.resolve(k));
      entry.generated = (p.errors || []).some(e => e.code === 6053);
    }
  } catch (e) {}
  return entry;
}
function contains(cfg, file, seen) {
  if (seen.has(cfg) || !fs.existsSync(cfg)) return null;
  seen.add(cfg);
  const entry = parse(cfg);
  if (entry.files.has(file)) return cfg;
  for (const ref of entry.refs) { const hit = contains(ref, file, seen); if (hit) return hit; }
  return null;
}
function configFor(file) {
  let dir = path.dirname(file), nearest = null;
  while (true) {
    const cfg = path.join(dir, 'tsconfig.json');
    if (fs.existsSync(cfg)) {
      nearest = nearest || cfg;
      const hit = contains(cfg, file, new Set());
      if (hit) return hit;
    }
    if (dir === root || dir === path.dirname(dir)) return nearest;
    dir = path.dirname(dir);
  }
}
const DEFAULT = {moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext};
const BUNDLER = {moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext};
function optionsOf(cfg) {
  const entry = cfg ? parse(cfg) : {options: DEFAULT};
  if (!entry.full) {
    // a config extending a file a build generates (SvelteKit's .svelte-kit/tsconfig.json) is read
    // without it: its module resolution is the bundler's, as the generated file sets
    const base = !cfg ? DEFAULT : entry.generated ? {...entry.options, ...BUNDLER} : entry.options;
    entry.full = {...base, allowJs: true, allowArbitraryExtensions: true, resolveJsonModule: true};
    entry.cache = ts.createModuleResolutionCache(root, f => f, entry.full);
  }
  return entry;
}
// phantom build output: a missing output folder of a workspace package exists, with any file in it
const packages = input.packages;  // folder (absolute, real) -> [output folder names]
function phantomOf(p) {
  let dir = p, rest = [];
  while (!fs.existsSync(dir)) { rest.unshift(path.basename(dir)); const up = path.dirname(dir); if (up === dir) return false; dir = up; }
  if (rest.length === 0) return false;
  const r = real(dir);
  if (!r) return false;
  let best = null;
  for (const folder of Object.keys(packages)) if ((r === folder || r.startsWith(folder + path.sep)) && (!best || folder.length > best.length)) best = folder;
  if (!best) return false;
  const rel = path.relative(best, path.join(r, ...rest)).split(path.sep);
  for (const out of packages[best].outputs) {
    const parts = out.split('/');
    if (parts.every((s, i) => rel[i] === s) && !fs.existsSync(path.join(best, parts[0]))) return true;
  }
  // a missing build file the package.json names (zod builds next to its package.json)
  const named = rel.join('/');
  return /\.(d\.[cm]?ts|[cm]?js)$/.test(named) && packages[best].manifest.includes('"./' + named + '"');
}
const phantomHost = {
  ...ts.sys,
  fileExists: f => ts.sys.fileExists(f) || phantomOf(f),
  directoryExists: d => ts.sys.directoryExists(d) || phantomOf(d),
  realpath: f => { let d = f, rest = []; while (!fs.existsSync(d)) { rest.unshift(path.basename(d)); d = path.dirname(d); } return path.join(real(d) || d, ...rest); },
};
const out = {pairs: {}, extracted: {}, configs: {}, governing: {}};
for (const [importer, item] of Object.entries(input.files)) {
  const file = path.join(root, importer);
  const cfg = configFor(file);
  out.governing[importer] = cfg ? path.relative(root, cfg) : null;
  const entry = optionsOf(cfg);
  const options = entry.full;
  let specs = item.specs;
  if (item.extract) {
    try {
      const pre = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
      out.extracted[importer] = pre.importedFiles.map(i => i.fileName);
      specs = [...new Set([...specs, ...out.extracted[importer]])];
    } catch (e) {}
  }
  let format;
  try { format = ts.getImpliedNodeFormatForFile(file, entry.cache.getPackageJsonInfoCache(), ts.sys, options); } catch (e) {}
  for (const spec of specs) {
    const kinds = item.kinds[spec] || [];
    const mode = kinds.includes('require') && kinds.length === 1 ? ts.ModuleKind.CommonJS
      : kinds.includes('dynamic') && kinds.length === 1 ? ts.ModuleKind.ESNext : format;
    let found = null, external = false, affecting = [], phantom = null, bundler = false;
    try {
      const r = ts.resolveModuleName(spec, file, options, ts.sys, entry.cache, undefined, mode);
      if (r.resolvedModule) { found = real(r.resolvedModule.resolvedFileName); external = !!r.resolvedModule.isExternalLibraryImport; }
      affecting = (r.affectingLocations || []).map(real).filter(Boolean);
      if (!found && !spec.startsWith('node:')) {
        let q = ts.resolveModuleName(spec, file, options, phantomHost, undefined, undefined, mode);
        const kind = ts.getEmitModuleResolutionKind(options);
        if (!q.resolvedModule && (kind === ts.ModuleResolutionKind.Node10 || kind === ts.ModuleResolutionKind.Classic)) {
          // node10 ignores `exports`; the bundler that runs the code reads them
          q = ts.resolveModuleName(spec, file, {...options, ...BUNDLER}, phantomHost, undefined, undefined, mode);
          if (q.resolvedModule) bundler = true;
        }
        if (q.resolvedModule) phantom = phantomHost.realpath(q.resolvedModule.resolvedFileName);
      }
    } catch (e) {}
    out.pairs[importer + '\t' + spec] = [found, external, affecting, phantom, bundler];
  }
}
const cfgs = new Set(input.tsconfigs.map(c => path.join(root, c)));
for (const cfg of cfgs) {
  const entry = parse(cfg);
  out.configs[path.relative(root, cfg)] = {
    files: [...entry.files].map(f => path.relative(root, f)),
    extended: entry.extended.map(f => path.relative(root, f)),
    references: entry.refs.map(f => path.relative(root, f)),
  };
}
fs.writeFileSync(process.argv[2] + '.ts.json', JSON.stringify(out));
"""


@dataclass(frozen=True, slots=True)
class TsAnswer:
    """TypeScript's answer for one (file, specifier), paths repo-relative (None: no file in the repository)."""

    file: str | None  # the resolved file inside the repository (symlinks followed)
    outside: str | None  # a resolved file outside the repository or in node_modules
    affecting: tuple[str, ...]  # package.json files the resolution read (repo-relative)
    phantom: str | None  # the build output a built install would give, when ``file`` is None
    bundler: bool  # ``phantom`` read ``exports`` as the bundler does (the tsconfig's node10 ignores them)


@dataclass(frozen=True, slots=True)
class Prepared:
    """One repository copied, linked, scanned by rofl and answered by TypeScript."""

    repo: monorepos.Repo
    root: Path  # the linked copy
    facts_dir: Path
    facts: rofl_facts.RoflFacts
    answers: dict[tuple[str, str], TsAnswer]
    extracted: dict[str, list[str]]  # file -> specifiers ts.preProcessFile finds
    configs: dict[str, dict[str, list[str]]]  # tsconfig -> files, extended, references
    governing: dict[str, str | None]  # file -> the tsconfig whose options resolved it
    packages: dict[str, str]  # workspace package name -> folder
    scan_seconds: float
    oracle_seconds: float


def _rel(root: Path, path: str | None) -> str | None:
    if path is None:
        return None
    rel = os.path.relpath(path, root)
    return None if rel.startswith("..") or "node_modules" in rel.split(os.sep) else rel


def _affects(manifest: str, importer: str, target: str | None) -> bool:
    """A package.json the resolution read that bears on it: the importer's scope or the resolved package's.

    The shared module resolution cache hands a cached resolution's affectingLocations to later
    lookups of the same name from other folders; a manifest neither above the importer nor above
    the resolved file is such a leftover.
    """
    folder = os.path.dirname(manifest)
    return any(p is not None and (folder == "" or p.startswith(folder + "/")) for p in (importer, target))


def _output_dirs(root: Path, folder: str) -> list[str]:
    """The folders a build of the package at ``folder`` writes: its tsconfigs' outDir/declarationDir, the usual names."""
    found = set(OUTPUT_DIRS)
    for config in (root / folder).glob("tsconfig*.json"):
        text = config.read_text(errors="replace")
        for key in ("outDir", "declarationDir"):
            for match in re.finditer(rf'"{key}"\s*:\s*"([^"$]+)"', text):
                rel = os.path.normpath(os.path.join(str(config.parent.relative_to(root / folder)), match.group(1)))
                if not rel.startswith(".."):
                    found.add(rel.replace(os.sep, "/"))
    return sorted(found)


def prepare(repo: monorepos.Repo, work: Path) -> Prepared:
    """Copy ``repo`` into ``work``, link its workspace as pnpm does, scan it with rofl, ask TypeScript."""
    root = work / repo.name
    if not root.exists():
        shutil.copytree(repo.root, root, symlinks=True, ignore=shutil.ignore_patterns(".git", "node_modules"))
    root = root.resolve()
    monorepos.link_like_pnpm(root, repo)
    packages = monorepos.workspace_packages(repo)
    facts_dir = work / f"{repo.name}-facts"
    started = time.perf_counter()
    subprocess.run(
        [*rofl_argv(), "scan", str(root), "--out", str(facts_dir), "--json"], check=True, capture_output=True
    )
    scan_seconds = time.perf_counter() - started
    facts = rofl_facts.read(facts_dir)
    files: dict[str, dict] = {}
    for path in sorted(facts.files):
        specs = sorted(set(facts.imports.get(path, [])))
        kinds = {s: sorted(facts.kinds.get((path, s), set())) for s in specs}
        extract = path.endswith(CODE_EXTENSIONS)
        if specs or extract:
            files[path] = {"specs": specs, "kinds": kinds, "extract": extract}
    tsconfigs = [
        os.path.join(f, name) if f else name for name in ("tsconfig.json",) for f in monorepos.folders_with(root, name)
    ]
    tsconfigs += [
        os.path.relpath(p, root)
        for p in root.rglob("tsconfig.*.json")
        if "node_modules" not in p.parts and not any(s.startswith(".") for s in p.relative_to(root).parts[:-1])
    ]
    oracle_input = {
        "root": str(root),
        "files": files,
        "packages": {
            str((root / f).resolve()): {
                "outputs": _output_dirs(root, f),
                "manifest": (root / f / "package.json").read_text(errors="replace"),
            }
            for f in packages.values()
            if f != "."
        },
        "tsconfigs": sorted(set(tsconfigs)),
    }
    input_file = work / f"{repo.name}-oracle.json"
    input_file.write_text(json.dumps(oracle_input))
    started = time.perf_counter()
    subprocess.run(["node", "--max-old-space-size=4096", "-e", ORACLE, str(TYPESCRIPT), str(input_file)], check=True)
    oracle_seconds = time.perf_counter() - started
    out = json.loads(Path(str(input_file) + ".ts.json").read_text())
    answers: dict[tuple[str, str], TsAnswer] = {}
    for key, (found, _external, affecting, phantom, bundler) in out["pairs"].items():
        importer, spec = key.split("\t", 1)
        inside = _rel(root, found)
        target = inside or _rel(root, phantom)
        answers[(importer, spec)] = TsAnswer(
            inside,
            found if found and inside is None else None,
            tuple(sorted({r for r in (_rel(root, a) for a in affecting) if r and _affects(r, importer, target)})),
            _rel(root, phantom),
            bundler,
        )
    return Prepared(
        repo,
        root,
        facts_dir,
        facts,
        answers,
        out["extracted"],
        out["configs"],
        out["governing"],
        packages,
        scan_seconds,
        oracle_seconds,
    )


def _stem(path: str) -> str:
    name = path
    for ext in (".d.ts", ".d.mts", ".d.cts", *CODE_EXTENSIONS):
        if name.endswith(ext):
            return name[: -len(ext)]
    return os.path.splitext(name)[0]


def package_of(path: str, packages: dict[str, str]) -> str | None:
    """The folder of the deepest workspace package holding ``path`` (None: the root or no package)."""
    best = None
    for folder in packages.values():
        if folder != "." and (path == folder or path.startswith(folder + "/")):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def build_output_source(phantom: str, target: str, packages: dict[str, str]) -> bool:
    """``target`` is the source of build output ``phantom``: same package, same stem below the output folder.

    ``dist/esm/core/x.d.ts`` is built from ``src/core/x.ts`` (or ``core/x.ts``): the stem after the
    output folders is a path suffix of the target's stem.
    """
    package = package_of(phantom, packages)
    if package is None or package_of(target, packages) != package:
        return False
    parts = _stem(phantom[len(package) + 1 :]).split("/")
    while len(parts) > 1 and parts[0] in OUTPUT_DIRS + ("src", "dist-types", "declarations"):
        parts = parts[1:]
    rest = "/".join(parts)
    stem = _stem(target[len(package) + 1 :])
    return (
        stem == rest
        or stem.endswith("/" + rest)
        or stem.endswith("/" + rest + "/index")
        or (rest == "index" and stem.endswith("/index"))
    )


def by_design(prepared: Prepared, importer: str, spec: str, target: str) -> str | None:
    """Why rofl's edge ``importer -> target`` for ``spec`` is one TypeScript's resolver cannot give, if by design."""
    facts = prepared.facts
    if target in facts.assets or not target.endswith(CODE_EXTENSIONS + COMPONENT_EXTENSIONS + (".json",)):
        return "asset"
    if target.endswith(COMPONENT_EXTENSIONS):
        return "component (.vue/.svelte/.astro)"
    if target.endswith(tuple(e + ".d.ts" for e in COMPONENT_EXTENSIONS)):
        return "component's declaration twin (.svelte.d.ts)"
    if "?" in spec:
        return "?query specifier"
    if (
        spec.startswith(".")
        and not os.path.splitext(spec)[1]
        and target.endswith((".mjs", ".cjs"))
        and _stem(target).endswith(spec.lstrip("./"))
    ):
        return "extensionless .mjs/.cjs (bundlers probe them, TypeScript does not)"
    answer = prepared.answers.get((importer, spec))
    if (
        answer is not None
        and answer.file is not None
        and answer.file.endswith((".d.ts", ".d.mts", ".d.cts"))
        and ("file", answer.file) in facts.answers.get((importer, spec), set())
        and package_of(target, prepared.packages) == package_of(answer.file, prepared.packages)
    ):
        return "runtime target beside TypeScript's `types` target"
    if answer is not None and answer.file is None and answer.phantom:
        if build_output_source(answer.phantom, target, prepared.packages):
            return "build output mapped to source" + (
                " (exports, which the node10 tsconfig ignores)" if answer.bundler else ""
            )
    return None


def nearest_tsconfig(root: Path, importer: str) -> str | None:
    """The repo-relative tsconfig.json nearest to ``importer`` (the one rofl reads), None without one."""
    folder = os.path.dirname(importer)
    while True:
        candidate = os.path.join(folder, "tsconfig.json") if folder else "tsconfig.json"
        if (root / candidate).is_file():
            return candidate
        if not folder:
            return None
        folder = os.path.dirname(folder)


def row(prepared: Prepared, importer: str, spec: str, answer: TsAnswer) -> tuple[str, str]:
    """(row, cause) for one pair: the cause names why rofl and TypeScript differ ("" when they agree)."""
    ours = prepared.facts.answers.get((importer, spec), set())
    files = {a[1] for a in ours if a[0] == "file"}
    kinds = ",".join(sorted({a[0] for a in ours})) or "nothing"
    if answer.file is not None:
        if answer.file in files:
            return "agree", ""
        if not ours:
            text = (prepared.root / importer).read_text(errors="replace")
            if re.search(r"declare\s+module\s+['\"]" + re.escape(spec) + "['\"]", text):
                return "DIFFER", "module augmentation (`declare module 'x'`), which rofl does not take as an import"
            return "DIFFER", "ts.preProcessFile reads an import rofl does not (a comment or string?)"
        governing = prepared.governing.get(importer)
        if governing and governing != nearest_tsconfig(prepared.root, importer):
            return "DIFFER", (
                "TypeScript's tsconfig for the file is not the nearest tsconfig.json (that one does not "
                f"include it; rofl: {kinds})"
            )
        if files:
            other = sorted(files)
            if answer.file.endswith((".d.ts", ".d.mts", ".d.cts")) and any(
                _stem(f) == _stem(answer.file) for f in other
            ):
                return "DIFFER", "TypeScript takes the .d.ts twin, rofl the source"
            if any(package_of(f, prepared.packages) == package_of(answer.file, prepared.packages) for f in other):
                return "DIFFER", "another target in the same package (export conditions)"
            return "DIFFER", "another file"
        return "DIFFER", f"rofl: {kinds}"
    if answer.outside is not None:
        return "TypeScript finds it outside the repository / in node_modules", ""
    if files:
        causes = sorted({by_design(prepared, importer, spec, f) or "unexplained" for f in files})
        return "rofl names a file, TypeScript none", " + ".join(causes)
    if not ours:
        return "neither (rofl extracted no such import)", ""
    return f"neither names a file (rofl: {kinds})", ""


def check(prepared: Prepared) -> dict:
    """Every pair's row and cause, the disagreements listed, as JSON-ready data."""
    rows: Counter[str] = Counter()
    causes: Counter[tuple[str, str]] = Counter()
    examples: dict[str, list[dict]] = defaultdict(list)
    for (importer, spec), answer in sorted(prepared.answers.items()):
        name, cause = row(prepared, importer, spec, answer)
        rows[name] += 1
        if cause:
            causes[(name, cause)] += 1
            ours = sorted(prepared.facts.answers.get((importer, spec), set()))
            examples[f"{name}: {cause}"].append(
                {
                    "file": importer,
                    "specifier": spec,
                    "typescript": answer.file,
                    "phantom": answer.phantom,
                    "tsconfig": prepared.governing.get(importer),
                    "rofl": ours,
                }
            )
    return {
        "repo": prepared.repo.name,
        "upstream": prepared.repo.upstream,
        "commit": prepared.repo.commit,
        "pairs": sum(rows.values()),
        "rows": dict(rows.most_common()),
        "causes": {f"{r}: {c}": n for (r, c), n in causes.most_common()},
        "examples": examples,
        "scan_seconds": round(prepared.scan_seconds, 2),
        "oracle_seconds": round(prepared.oracle_seconds, 2),
    }


def print_result(result: dict, limit: int = 8) -> None:
    print(f"\n{result['repo']}: {result['pairs']} (file, specifier) pairs")
    for name, count in result["rows"].items():
        print(f"  {count:6} {name}")
    for cause, count in result["causes"].items():
        if cause.endswith(("asset", "component (.vue/.svelte/.astro)", "source", "ignores)", "(.svelte.d.ts)")):
            print(f"  {count:6}   {cause}")
            continue
        print(f"  {count:6}   {cause}:")
        for example in result["examples"][cause][:limit]:
            print(
                f"           {example['file']} {example['specifier']!r}: TypeScript {example['typescript']}"
                f"{' (built: ' + example['phantom'] + ')' if example['phantom'] else ''} [{example['tsconfig']}]; "
                f"rofl {example['rofl']}"
            )


def markdown(results: list[dict]) -> str:
    lines = [
        "| repository | pairs | agree | TypeScript finds another file | rofl names a file, TypeScript none "
        "(by design / unexplained) | neither |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        rows = r["rows"]
        other = rows.get("rofl names a file, TypeScript none", 0)
        unexplained = sum(n for c, n in r["causes"].items() if c.startswith("rofl names") and "unexplained" in c)
        neither = sum(n for k, n in rows.items() if k.startswith("neither") or k.startswith("TypeScript finds it"))
        lines.append(
            f"| {r['repo']} | {r['pairs']} | {rows.get('agree', 0)} | {rows.get('DIFFER', 0)} | "
            f"{other} ({other - unexplained} / {unexplained}) | {neither} |"
        )
    return "\n".join(lines)


def select_repos(names: list[str], nothing: str) -> tuple[list[monorepos.Repo], int | None]:
    """The present repositories among ``names``, their notes printed; or none and the exit code to stop with:
    0 when node or the typescript package is missing (``nothing`` is what is then not done), 2 for an unknown name."""
    if shutil.which("node") is None or not TYPESCRIPT.is_dir():
        print(f"node or bench/.cache/node_modules/typescript missing (bench/corpora.py installs it); nothing {nothing}")
        return [], 0
    try:
        repos, notes = monorepos.select(names)
    except SystemExit as error:
        print(error, file=sys.stderr)
        return [], 2
    for note in notes:
        print(note)
    return repos, None


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    as_markdown = "--markdown" in args
    names = [a for a in args if not a.startswith("--")]
    repos, stop = select_repos(names, "checked")
    if stop is not None:
        return stop
    RESULTS.mkdir(parents=True, exist_ok=True)
    import tempfile

    results = []
    with tempfile.TemporaryDirectory(prefix="rofl-ts-check-") as tmp:
        for repo in repos:
            started = time.perf_counter()
            result = check(prepare(repo, Path(tmp)))
            result["seconds"] = round(time.perf_counter() - started, 1)
            result["measured"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            (RESULTS / f"ts-resolution-{repo.name}.json").write_text(json.dumps(result, indent=1))
            print_result(result)
            print(
                f"  ({result['seconds']} s: rofl scan {result['scan_seconds']} s, TypeScript {result['oracle_seconds']} s)"
            )
            results.append(result)
    if as_markdown:
        print()
        print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
