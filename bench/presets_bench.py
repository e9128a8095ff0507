"""The presets section of `make bench`: `rofl audit` with every preset on, beside dependency-cruiser's equivalent rules.

On each real monorepo present under bench/.cache/repos (bench/monorepos.py), one run each, in fresh
processes, with wall time and the child's peak memory:

* rofl: a cold scan, the audit with no rule file, and the audit with all seven presets;
* dependency-cruiser (bench/.cache, when installed): its recommended preset's equivalents of ours
  (no-circular, no-orphans, not-to-dev-dep, no-non-package-json, not-to-test) over the same tree,
  with the root tsconfig.json, type-only imports counted (as ours), node_modules not followed.

The finding counts are printed beside each other; they are not expected to be equal (dependency-
cruiser reports a cycle once, rofl every edge on it; its orphans have neither importers nor imports,
ours have no importer; without node_modules it cannot tell a package's dependency type), so the
row is a time and size comparison, and a reminder of what each reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpora import node_bin
from bench.monorepos import present

ROFL = [sys.executable, "-m", "rofl.cli"]
PRESETS = (
    "no_circular",
    "no_runtime_circular",
    "no_orphans",
    "no_dev_dependencies",
    "no_undeclared_packages",
    "no_deep_workspace_imports",
    "no_test_imports_from_production",
)
TESTS = r"\.(test|spec)\.|(^|/)(__tests__|__mocks__|__fixtures__|test|tests)/"
DEPCRUISE_RULES: dict = {
    "forbidden": [
        {"name": "no-circular", "severity": "error", "from": {}, "to": {"circular": True}},
        {
            "name": "no-orphans",
            "severity": "warn",
            "from": {"orphan": True, "pathNot": [r"\.d\.ts$", r"(^|/)\.[^/]+$", r"\.config\."]},
            "to": {},
        },
        {
            "name": "not-to-dev-dep",
            "severity": "error",
            "from": {"pathNot": TESTS},
            "to": {"dependencyTypes": ["npm-dev"], "dependencyTypesNot": ["type-only"]},
        },
        {
            "name": "no-non-package-json",
            "severity": "error",
            "from": {},
            "to": {"dependencyTypes": ["npm-no-pkg", "npm-unknown"]},
        },
        {"name": "not-to-test", "severity": "error", "from": {"pathNot": TESTS}, "to": {"path": TESTS}},
    ],
    "options": {
        "doNotFollow": {"path": "node_modules"},
        "exclude": {"path": r"(^|/)(node_modules|dist|build|coverage)/"},
        "tsPreCompilationDeps": True,
        "combinedDependencies": True,
    },
}


def _run(args: list[str], cwd: Path | None = None) -> tuple[float, float, subprocess.CompletedProcess]:
    """(seconds, peak MB of this child, the process): the child's own rusage, from os.wait4 (a scan's
    parse workers, its children, are not counted)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        proc = subprocess.CompletedProcess(args, child.returncode, out.read(), err.read())
    return seconds, usage.ru_maxrss / 1024, proc


def _rofl_counts(stdout: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in json.loads(stdout).get("findings", []):
        counts[f.get("rule") or f["audit"]] = counts.get(f.get("rule") or f["audit"], 0) + 1
    return counts


def main() -> list[dict]:
    repos, absent = present()
    rows: list[dict] = []  # bench/records.py records the ratios
    if absent:
        print(f"(not present, skipped: {', '.join(absent)}; `make bench` fetches them when the network allows)")
    depcruise = node_bin("depcruise")
    for repo in repos:
        if repo.name not in ("excalidraw", "query"):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            facts = Path(tmp) / "facts"
            rules = Path(tmp) / "rules.rofl"
            rules.write_text("".join(f"use({p}).\n" for p in PRESETS))
            scan_s, scan_mb, proc = _run([*ROFL, "scan", str(repo.root), "--out", str(facts)])
            if proc.returncode != 0:
                print(f"{repo.name}: rofl scan failed: {proc.stderr.strip()[:200]}")
                continue
            base_s, base_mb, _ = _run([*ROFL, "audit", "--facts", str(facts), "--json"])
            all_s, all_mb, proc = _run([*ROFL, "audit", "--facts", str(facts), "--rules", str(rules), "--json"])
            ours = _rofl_counts(proc.stdout)
            print(f"\n### {repo.name} ({repo.upstream} {repo.commit})\n")
            print("| run | seconds | peak MB |\n|---|---|---|")
            print(f"| rofl scan (cold) | {scan_s:.2f} | {scan_mb:.0f} |")
            print(f"| rofl audit, no rules | {base_s:.2f} | {base_mb:.0f} |")
            print(f"| rofl audit, 7 presets | {all_s:.2f} | {all_mb:.0f} |")
            if depcruise.exists():
                config = Path(tmp) / "depcruise.json"
                options = dict(DEPCRUISE_RULES["options"])
                if (repo.root / "tsconfig.json").exists():
                    options["tsConfig"] = {"fileName": str(repo.root / "tsconfig.json")}
                config.write_text(json.dumps({**DEPCRUISE_RULES, "options": options}))
                out = Path(tmp) / "cruise.json"
                dc_s, dc_mb, proc = _run(
                    [str(depcruise), "--config", str(config), "--output-type", "json", "--output-to", str(out), "."],
                    cwd=repo.root,
                )
                if out.exists():
                    theirs: dict[str, int] = {}
                    for v in json.loads(out.read_text())["summary"]["violations"]:
                        theirs[v["rule"]["name"]] = theirs.get(v["rule"]["name"], 0) + 1
                    print(f"| dependency-cruiser, 5 equivalent rules | {dc_s:.2f} | {dc_mb:.0f} |")
                    print(f"\nrofl (scan + audit) / dependency-cruiser: {(scan_s + all_s) / dc_s:.2f}x the time")
                    rows.append({"repo": repo.name, "depcruise_ratio": (scan_s + all_s) / dc_s})
                    print(f"dependency-cruiser findings: {json.dumps(theirs, sort_keys=True)}")
                else:
                    print(f"| dependency-cruiser | failed: {proc.stderr.strip()[:120]} | |")
            else:
                print("| dependency-cruiser | not installed (bench/.cache) | |")
            print(f"rofl findings: {json.dumps(ours, sort_keys=True)}")
    return rows


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    main()
