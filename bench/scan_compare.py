"""Our scanner against madge and dependency-cruiser on real code: edges, differences, time and memory.

For each corpus of bench/corpora.py this script
  * runs ``rofl scan`` cold, again with nothing changed, and after one file changed, each as a whole
    process, side by side with ``madge --json`` and ``depcruise --output-type json`` in the same run;
  * measures wall time and peak memory (``ru_maxrss`` of the finished children, per command);
  * compares our resolved file->file edges (``src_resolves`` facts) with each tool's and sorts every
    difference into a category (type-only import, dynamic import, require, .d.ts target, ...).

``main()`` prints the table and returns it as a list of dicts; details of every difference go to
bench/.cache/results/<corpus>-<tool>-diff.json.  ``SCAN_BENCH_REPEAT`` (default 3) sets the runs per
measurement and ``SCAN_BENCH_CORPORA`` (``three,rxjs``) narrows the corpora.  Node tools write their JSON to a file, never to a
pipe (their output is cut at 64 KiB when piped).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpora import CACHE, Corpus, ensure, node_bin

RESULTS = CACHE / "results"
ROOT = Path(__file__).resolve().parent.parent
REPEAT = int(os.environ.get("SCAN_BENCH_REPEAT", "3"))

# One child per measurement: its wall time and the peak RSS of everything it waited for.
_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "with open(sys.argv[1], 'wb') as out:\n"
    "    t = time.perf_counter()\n"
    "    code = subprocess.run(sys.argv[3:], stdout=out, stderr=subprocess.DEVNULL, cwd=sys.argv[2]).returncode\n"
    "    wall = time.perf_counter() - t\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(code, wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n"
)


Sample = tuple[float, int, float]  # (wall seconds, peak RSS KiB, CPU seconds user+sys)


def measure(argv: list[str], cwd: Path, stdout_file: Path) -> Sample:
    """(wall seconds, peak RSS in KiB, CPU seconds) of one command, its stdout written to ``stdout_file``."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(stdout_file), str(cwd), *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    code, wall, rss, cpu = proc.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{argv[0]} exited {code}")
    return float(wall), int(rss), float(cpu)


def rofl_argv() -> list[str]:
    """How to run rofl: the venv's command, or ``ROFL_BENCH_TREE``'s sources (e.g. ``git archive HEAD``
    unpacked there) to measure committed work while the checkout is being edited."""
    tree = os.environ.get("ROFL_BENCH_TREE")
    if tree:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, os.environ.get("PYTHONPATH")]))
        # -P: the working folder must not come first on sys.path (it may be another rofl checkout)
        return [sys.executable, "-P", "-m", "rofl.cli"]
    found = shutil.which("rofl", path=os.path.dirname(sys.executable))
    return [found] if found else [sys.executable, "-c", "from rofl.cli import main; main()"]


def precompile() -> None:
    """Write bytecode for our packages, as an installed package has (PYTHONDONTWRITEBYTECODE may be set)."""
    import compileall

    root = Path(os.environ.get("ROFL_BENCH_TREE") or ROOT)
    for package in ("scanner", "rofl", "engine"):
        compileall.compile_dir(str(root / package), quiet=1)


# -- edges ---------------------------------------------------------------------------------------


def our_facts(out: Path) -> dict[str, Any]:
    from rofl.engine.parse import parse_program

    manifest = json.loads((out / "manifest.json").read_text())
    edges: set[tuple[str, str]] = set()
    kinds: dict[tuple[str, str], set[str]] = defaultdict(set)
    answer: dict[tuple[str, str], tuple[str, ...]] = {}
    by_edge: dict[tuple[str, str], set[str]] = defaultdict(set)
    named: set[tuple[str, str]] = set()
    for entry in manifest["files"].values():
        for clause in parse_program((out / entry["facts"]).read_text(encoding="utf-8")):
            head = clause.head
            args = head.args
            if head.rel == "src_resolves":
                edges.add((args[0], args[2]))
                answer[(args[0], args[1])] = ("file", args[2])
                by_edge[(args[0], args[2])].add(args[1])
            elif head.rel == "src_external":
                answer[(args[0], args[1])] = ("external", args[2])
            elif head.rel == "src_unresolved":
                answer[(args[0], args[1])] = ("unresolved",)
            elif head.rel == "src_import_kind":
                kinds[(args[0], args[1])].add(args[2][0])
            elif head.rel == "src_import_name":
                named.add((args[0], args[1]))
    return {
        "edges": edges,
        "kinds": kinds,
        "answer": answer,
        "by_edge": by_edge,
        "named": named,
        "files": set(manifest["files"]),
    }


def madge_edges(path: Path) -> set[tuple[str, str]]:
    data = json.loads(path.read_text())
    return {(a, b) for a, deps in data.items() for b in deps}


def depcruise_edges(path: Path, prefix: str) -> tuple[set[tuple[str, str]], dict[tuple[str, str], list[str]]]:
    data = json.loads(path.read_text())
    edges: set[tuple[str, str]] = set()
    types: dict[tuple[str, str], list[str]] = {}

    def strip(p: str) -> str | None:
        if prefix and not p.startswith(prefix):
            return None
        return p[len(prefix) :]

    for module in data["modules"]:
        source = strip(module["source"])
        if source is None:
            continue
        for dep in module.get("dependencies", []):
            if dep.get("coreModule") or dep.get("couldNotResolve"):
                continue
            target = strip(dep["resolved"])
            if target is None:
                continue
            edges.add((source, target))
            types[(source, target)] = dep.get("dependencyTypes", [])
    return edges, types


def categorise_ours(edge: tuple[str, str], facts: dict[str, Any]) -> str:
    """Why we have an edge the other tool lacks."""
    specs = facts["by_edge"][edge]
    kinds = set().union(*(facts["kinds"][(edge[0], s)] for s in specs))
    if edge[1].endswith(".d.ts"):
        return "target is a .d.ts file"
    if kinds == {"type"} and not any((edge[0], s) in facts["named"] for s in specs):
        return "/// <reference path> directive"
    if kinds == {"type"}:
        return "type-only import"
    if kinds <= {"dynamic"}:
        return "dynamic import()"
    if kinds <= {"require"}:
        return "require()"
    if any(not s.startswith(".") for s in specs):
        return "bare specifier resolved via tsconfig paths/baseUrl or workspace"
    return "other: " + ",".join(sorted(kinds))


def categorise_theirs(edge: tuple[str, str], facts: dict[str, Any]) -> str:
    """Why the other tool has an edge we lack."""
    source, target = edge
    if source not in facts["files"]:
        return "source not scanned by us"
    if target not in facts["files"]:
        return "target not scanned by us (" + (os.path.splitext(target)[1] or "no extension") + ")"
    ours = {spec: a for (p, spec), a in facts["answer"].items() if p == source}
    if not ours:
        return "no import extracted from source"
    for answer in ours.values():
        if answer[0] == "file" and answer[1] == target:
            return "same edge (should not happen)"
    stems = {spec: a for spec, a in ours.items() if os.path.splitext(os.path.basename(target))[0] in spec}
    if stems:
        answers = {a[0] for a in stems.values()}
        return "we resolve the specifier differently: " + ",".join(sorted(answers))
    return "import not extracted by us"


def compare(corpus: str, tool: str, ours: dict[str, Any], theirs: set[tuple[str, str]]) -> dict[str, Any]:
    only_ours = sorted(ours["edges"] - theirs)
    only_theirs = sorted(theirs - ours["edges"])
    ours_categories = Counter(categorise_ours(e, ours) for e in only_ours)
    theirs_categories = Counter(categorise_theirs(e, ours) for e in only_theirs)
    RESULTS.mkdir(parents=True, exist_ok=True)
    detail = {
        "only_ours": [[a, b, categorise_ours((a, b), ours)] for a, b in only_ours],
        "only_theirs": [[a, b, categorise_theirs((a, b), ours)] for a, b in only_theirs],
    }
    (RESULTS / f"{corpus}-{tool}-diff.json").write_text(json.dumps(detail, indent=1) + "\n")
    return {
        "edges": len(theirs),
        "common": len(ours["edges"] & theirs),
        "only_ours": len(only_ours),
        "only_theirs": len(only_theirs),
        "only_ours_by": dict(ours_categories),
        "only_theirs_by": dict(theirs_categories),
    }


# -- timing ----------------------------------------------------------------------------------------


def _summary(samples: list[Sample]) -> dict[str, float]:
    """Best and median wall time, median CPU time and peak memory of repeated runs.

    The best of N is what the ratios use, for every tool alike: on a shared machine the slower
    runs measure the neighbours, not the tool.
    """
    return {
        "best": min(s[0] for s in samples),
        "median": statistics.median(s[0] for s in samples),
        "cpu": statistics.median(s[2] for s in samples),
        "rss_mb": max(s[1] for s in samples) / 1024,
    }


def _pick_file_to_change(src: Path, facts: dict[str, Any]) -> Path:
    """A file many others import (so a change is realistic), edited by appending a comment."""
    counts = Counter(b for _, b in facts["edges"])
    target = counts.most_common(1)[0][0] if counts else sorted(facts["files"])[0]
    return src / target


def run_corpus(corpus: Corpus, work: Path) -> dict[str, Any]:
    rofl = rofl_argv()
    sink = work / "stdout.txt"
    madge_json = work / f"{corpus.name}-madge.json"
    dc_json = work / f"{corpus.name}-depcruise.json"
    src_arg = os.path.relpath(corpus.src, corpus.root)
    madge = [str(node_bin("madge")), "--json", *corpus.madge_args, src_arg]
    depcruise = [
        str(node_bin("depcruise")),
        "--no-config",
        "--output-type",
        "json",
        *corpus.depcruise_args,
        "-f",
        str(dc_json),
        src_arg,
    ]
    madge_runs, dc_runs, cold, nochange, onechange = [], [], [], [], []
    for i in range(REPEAT):
        # each cold scan gets a never-used output folder: deleting the previous one right before
        # would put the file system's clean-up of 757 files inside our measurement
        out = work / f"{corpus.name}-facts-{i}"
        scan = [*rofl, "scan", str(corpus.src), "--out", str(out), "--json"]
        madge_runs.append(measure(madge, corpus.root, madge_json))
        dc_runs.append(measure(depcruise, corpus.root, sink))
        cold.append(measure(scan, corpus.root, sink))
        summary = json.loads(sink.read_text())
        nochange.append(measure(scan, corpus.root, sink))
        assert json.loads(sink.read_text())["parsed"] == 0
    facts = our_facts(out)
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    victim = _pick_file_to_change(corpus.src, facts)
    original = victim.read_bytes()
    try:
        for i in range(REPEAT):
            victim.write_bytes(original + f"\n// bench edit {i}\n".encode())
            onechange.append(measure(scan, corpus.root, sink))
            assert json.loads(sink.read_text())["parsed"] == 1
    finally:
        victim.write_bytes(original)
    measure(scan, corpus.root, sink)

    madge_t, dc_t = _summary(madge_runs), _summary(dc_runs)
    cold_t, nochange_t, onechange_t = _summary(cold), _summary(nochange), _summary(onechange)
    prefix = "" if src_arg == "." else src_arg.rstrip("/") + "/"
    dc_edges, _ = depcruise_edges(dc_json, prefix)
    return {
        "corpus": corpus.name,
        "files": summary["files"],
        "madge_s": round(madge_t["best"], 3),
        "depcruise_s": round(dc_t["best"], 3),
        "cold_s": round(cold_t["best"], 3),
        "nochange_s": round(nochange_t["best"], 3),
        "onechange_s": round(onechange_t["best"], 3),
        "cold_ratio": round(cold_t["best"] / madge_t["best"], 3),
        "nochange_ratio": round(nochange_t["best"] / madge_t["best"], 3),
        "onechange_ratio": round(onechange_t["best"] / madge_t["best"], 3),
        "median_s": {
            "madge": round(madge_t["median"], 3),
            "cold": round(cold_t["median"], 3),
            "nochange": round(nochange_t["median"], 3),
            "onechange": round(onechange_t["median"], 3),
        },
        "cpu_s": {
            "madge": round(madge_t["cpu"], 3),
            "depcruise": round(dc_t["cpu"], 3),
            "cold": round(cold_t["cpu"], 3),
            "nochange": round(nochange_t["cpu"], 3),
            "onechange": round(onechange_t["cpu"], 3),
        },
        "madge_rss_mb": round(madge_t["rss_mb"], 1),
        "depcruise_rss_mb": round(dc_t["rss_mb"], 1),
        "ours_rss_mb": round(max(cold_t["rss_mb"], nochange_t["rss_mb"], onechange_t["rss_mb"]), 1),
        "repeat": REPEAT,
        "changed_file": os.path.relpath(victim, corpus.src),
        "ours_edges": len(facts["edges"]),
        "ours_specifiers": {k: counts[k] for k in ("resolves", "external", "unresolved")},
        "vs_madge": compare(corpus.name, "madge", facts, madge_edges(madge_json)),
        "vs_depcruise": compare(corpus.name, "depcruise", facts, dc_edges),
    }


def format_table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| corpus | files | madge s | cold s (ratio) | no change s (ratio) | one changed s (ratio) "
        "| CPU s madge / cold / no change / one changed "
        "| peak MiB ours / madge / depcruise | edges ours / madge / depcruise | only ours vs madge | only madge |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        lines.append(
            f"| {r['corpus']} | {r['files']} | {r['madge_s']:.2f} | {r['cold_s']:.2f} ({r['cold_ratio']:.2f}x) "
            f"| {r['nochange_s']:.3f} ({r['nochange_ratio']:.3f}x) | {r['onechange_s']:.3f} ({r['onechange_ratio']:.3f}x) "
            f"| {r['cpu_s']['madge']:.2f} / {r['cpu_s']['cold']:.2f} / {r['cpu_s']['nochange']:.3f} / {r['cpu_s']['onechange']:.3f} "
            f"| {r['ours_rss_mb']} / {r['madge_rss_mb']} / {r['depcruise_rss_mb']} "
            f"| {r['ours_edges']} / {r['vs_madge']['edges']} / {r['vs_depcruise']['edges']} "
            f"| {r['vs_madge']['only_ours']} | {r['vs_madge']['only_theirs']} |"
        )
    return head + "\n".join(lines) + "\n"


def format_differences(rows: list[dict[str, Any]]) -> str:
    lines = []
    for r in rows:
        for tool in ("madge", "depcruise"):
            cmp = r[f"vs_{tool}"]
            if tool == "madge":
                spec = r["ours_specifiers"]
                lines.append(
                    f"- {r['corpus']}: our specifiers resolve to {spec['resolves']} files, "
                    f"{spec['external']} packages, {spec['unresolved']} unresolved"
                )
            lines.append(
                f"- {r['corpus']} vs {tool}: {cmp['common']} common edges, "
                f"{cmp['only_ours']} only ours, {cmp['only_theirs']} only {tool}"
            )
            for side, label in (("only_ours_by", "only ours"), ("only_theirs_by", f"only {tool}")):
                for category, n in sorted(cmp[side].items(), key=lambda kv: -kv[1]):
                    lines.append(f"  - {label}: {n} {category}")
    return "\n".join(lines) + "\n"


def main() -> list[dict[str, Any]]:
    wanted = {n for n in os.environ.get("SCAN_BENCH_CORPORA", "").split(",") if n}
    corpora = [c for c in ensure() if not wanted or c.name in wanted]
    precompile()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rofl-scan-bench-") as tmp:
        for corpus in corpora:
            rows.append(run_corpus(corpus, Path(tmp)))
    table = format_table(rows)
    differences = format_differences(rows)
    print(table)
    print(differences)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scan_compare.json").write_text(json.dumps(rows, indent=1) + "\n")
    (RESULTS / "scan_compare.md").write_text(table + "\n" + differences)
    return rows


if __name__ == "__main__":
    main()
