"""Every quick command at the baseline commit beside the working tree, on the same tree in the same run (issue 23).

The baseline is commit ``089fa01``, the last one before issue 23's restructuring (packages top-level
engine/, scanner/, ...).  Its source is ``git archive``'d into bench/.cache/baseline-089fa01/src and
pip-installed (not editable) into bench/.cache/baseline-089fa01/venv once; later runs reuse both (a
stamp file says the install finished).  The working tree is the project's own .venv (editable).

Per tree (bench/.cache/repos/trpc and the synthetic bench/.cache/synthetic/mono-2000, each when
present), each version scans cold into its own fact folder; then each command runs as a fresh
process, first once untimed (it builds the caches a first question builds; its time is shown), then
``RUNS`` times per version, baseline and current interleaved (3 when a run takes over ``SLOW_S``):
``scan`` (no change), ``impact`` (one changed file), ``ask`` (``dependency[code](A, B)``), ``why`` and
``whynot`` (one import that holds, one that does not), ``relations``, ``cycles``, ``audit``,
``summary``, ``export dependency`` (JSON) and ``report`` (HTML to a file); and ``ask-cold``, the same
``ask`` on a fresh copy of the folder the cold scan left (no cache built yet), once per run.  Only flags both versions
accept are used.  Medians of wall and CPU seconds and the peak RSS (/usr/bin/time's %M) per command;
a command more than ``SLOWER`` slower is measured again (the two rounds' samples pooled) before it is
listed as slower.  Each command's answer is compared between the versions (the affected files, the
rows, the cycles, the totals...): a mismatch is printed, since a faster wrong answer is no win.

``python bench/commands_bench.py [trpc] [mono-2000] [--runs N] [--only ask,ask-cold]``; also section ``commands`` of bench/run.py.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
BASELINE = "089fa01"
HOME = CACHE / f"baseline-{BASELINE}"
WORK = CACHE / "commands"
RUNS = 5
SLOW_RUNS = 3
SLOW_S = 3.0  # a command whose first timed run takes longer than this runs SLOW_RUNS times
SLOWER = 1.15  # a ratio above this is measured again, then listed as slower
TIME = Path("/usr/bin/time")
OK_CODES = (0, 1, 3)  # answers, no answer / findings, partial


@dataclass(frozen=True, slots=True)
class Version:
    """One installed rofl: its name in the table and the interpreter that runs it."""

    name: str
    python: Path

    def argv(self, *args: str) -> list[str]:
        return [str(self.python), "-m", "rofl.cli", *args]


@dataclass(frozen=True, slots=True)
class Sample:
    """One fresh process."""

    wall: float
    cpu: float
    rss_mb: float
    code: int
    out: str


@dataclass(frozen=True, slots=True)
class Tree:
    """A source tree and the questions asked of it."""

    name: str
    src: Path


def _say(text: str) -> None:
    print(text, flush=True)


def baseline_python() -> Path:
    """The baseline's interpreter, installing it once (idempotent: a finished install is reused)."""
    src, venv, stamp = HOME / "src", HOME / "venv", HOME / "installed"
    python = venv / "bin" / "python"
    if stamp.is_file() and stamp.read_text().strip() == BASELINE and python.exists():
        _say(f"baseline {BASELINE}: reusing the install in {HOME.relative_to(ROOT)}")
        return python
    started = time.perf_counter()
    shutil.rmtree(HOME, ignore_errors=True)
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = [str(python), "-m", "pip", "install", "-q", "--no-compile", str(src)]
    done = subprocess.run(install, capture_output=True, text=True)
    if done.returncode != 0:  # no build isolation: the build backend from the venv itself
        subprocess.run([str(python), "-m", "pip", "install", "-q", "setuptools>=68", "wheel"], check=True)
        done = subprocess.run([*install, "--no-build-isolation"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"installing the baseline {BASELINE} failed: {done.stderr[-1500:]}")
    stamp.write_text(BASELINE + "\n")
    _say(f"baseline {BASELINE}: installed into {venv.relative_to(ROOT)} in {time.perf_counter() - started:.0f} s")
    return python


def run(argv: list[str], cwd: Path) -> Sample:
    """One fresh process: wall seconds, CPU seconds and peak RSS (MB, 0 when /usr/bin/time is absent)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        timed = [str(TIME), "-o", report.name, "-f", "%U %S %M", *argv] if TIME.exists() else argv
        started = time.perf_counter()
        done = subprocess.run(timed, cwd=cwd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - started
        figures = report.read().split()[-3:] if TIME.exists() else []
    if done.returncode not in OK_CODES or "Traceback (most recent call last)" in done.stderr:
        raise RuntimeError(f"{' '.join(argv[3:6])} exited {done.returncode}: {done.stderr.strip()[-600:]}")
    if len(figures) == 3:
        return Sample(wall, float(figures[0]) + float(figures[1]), int(figures[2]) / 1024, done.returncode, done.stdout)
    return Sample(wall, wall, 0.0, done.returncode, done.stdout)


# --- the answers compared between the versions -------------------------------------------------------


def _json(out: str) -> Any:
    try:
        return json.loads(out)
    except ValueError:
        return None


def _scan(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return {k: d.get(k) for k in ("files", "parsed", "removed", "errors")}


def _impact(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return sorted(a["file"] if isinstance(a, dict) else a for a in d.get("affected", []))


def _ask(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return sorted(tuple(sorted(a.items())) for a in d.get("answers", []))


def _tree(node: object) -> object:
    """A derivation tree without what names a version (rule ids, the format version, holds/forged/partial)."""
    if isinstance(node, dict):
        skip = ("rule", "version", "holds", "forged", "partial")
        return {k: _tree(v) for k, v in node.items() if k not in skip}
    if isinstance(node, list):
        return [_tree(v) for v in node]
    return node


def _holds(s: Sample, _: Path) -> object:
    return {"exit": s.code, "tree": _tree(_json(s.out))}


def _relations(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return {(r["relation"], r.get("perspective")): r.get("rows") for r in d.get("relations", [])}


def _cycles(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return sorted(sorted(c.get("files", [])) for c in d.get("components", []))


def _audit(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return {"exit": s.code, "clean": d.get("clean"), "audits": d.get("audits")}


def _summary(s: Sample, _: Path) -> object:
    d = _json(s.out) or {}
    return d.get("totals")


def _export(s: Sample, written: Path) -> object:
    d = _json(written.read_text(encoding="utf-8")) if written.is_file() else None
    if not isinstance(d, dict):
        return None
    return sorted((e.get("source"), e.get("target")) for e in d.get("links", []))


def _written(s: Sample, written: Path) -> object:
    return {"exit": s.code, "written": written.is_file() and written.stat().st_size > 0}


@dataclass(frozen=True, slots=True)
class Command:
    """One command as both versions are asked it: its argument list and how its answer is read."""

    name: str
    args: Callable[[Path, Path], list[str]]  # (fact folder, output file) -> arguments
    answer: Callable[[Sample, Path], object]
    fresh: bool = False  # each run on a new copy of the folder as the cold scan left it (no cache yet)


def commands(tree: Tree, changed: str, holds: str, fails: str) -> list[Command]:
    src = str(tree.src)

    def facts(*rest: str) -> Callable[[Path, Path], list[str]]:
        return lambda f, _o: [*rest, "--facts", str(f)]

    return [
        Command("scan", lambda f, _o: ["scan", src, "--out", str(f), "--json"], _scan),
        Command("impact", facts("impact", "--changed", changed, "--json"), _impact),
        Command("ask", facts("ask", "dependency[code](A, B)", "--json"), _ask),
        Command("ask-cold", facts("ask", "dependency[code](A, B)", "--json"), _ask, fresh=True),
        Command("why", facts("why", holds, "--json"), _holds),
        Command("whynot", facts("whynot", fails, "--json"), _holds),
        Command("relations", facts("relations", "--json"), _relations),
        Command("cycles", facts("cycles", "--json"), _cycles),
        Command("audit", facts("audit", "--json"), _audit),
        Command("summary", facts("summary", "--json"), _summary),
        Command(
            "export",
            lambda f, o: ["export", "dependency", "--facts", str(f), "--format", "json", "-o", str(o)],
            _export,
        ),
        Command("report", lambda f, o: ["report", "--facts", str(f), "--out", str(o)], _written),
    ]


def _fact(a: str, b: str) -> str:
    return f"dependency[code]({json.dumps(a)}, {json.dumps(b)})"


def questions(tree: Tree, edges: list[tuple[str, str]]) -> tuple[str, str, str]:
    """The changed file (the most imported one; the scale benchmark's own for the synthetic tree),
    an import that holds into it, and one that does not (its reverse, or a self-import)."""
    if tree.name.startswith("mono-"):
        from bench.synthetic_monorepo import changed_file

        changed = changed_file()
    else:
        changed = min(Counter(b for _, b in edges).most_common(), key=lambda kv: (-kv[1], kv[0]))[0]
    present = set(edges)
    importer = min(a for a, b in edges if b == changed)
    fails = (changed, importer) if (changed, importer) not in present else (changed, changed)
    return changed, _fact(importer, changed), _fact(*fails)


# --- the measurement -------------------------------------------------------------------------------


@dataclass
class Measured:
    """One command's samples per version (mutable while it is measured)."""

    command: Command
    first: dict[str, Sample]
    samples: dict[str, list[Sample]]
    repeated: bool = False

    def median(self, version: str, field: str) -> float:
        return statistics.median(getattr(s, field) for s in self.samples[version])

    def ratio(self, field: str = "wall") -> float:
        base = self.median("baseline", field)
        return self.median("current", field) / base if base else float("nan")


def _round(
    measured: Measured, versions: list[Version], folders: dict[str, Path], outs: dict[str, Path], runs: int
) -> None:
    for i in range(runs):
        order = versions if i % 2 == 0 else versions[::-1]
        for v in order:
            folder = folders[v.name]
            if measured.command.fresh:
                folder = folder.with_name("fresh")
                shutil.rmtree(folder, ignore_errors=True)
                shutil.copytree(folders[v.name].with_name("pristine"), folder, symlinks=True)
            argv = v.argv(*measured.command.args(folder, outs[v.name]))
            measured.samples[v.name].append(run(argv, folders[v.name].parent))


def measure(command: Command, versions: list[Version], folders: dict[str, Path], runs: int) -> Measured:
    outs = {v.name: folders[v.name].parent / f"{v.name}-{command.name}.out" for v in versions}
    measured = Measured(command, {}, {v.name: [] for v in versions})
    if not command.fresh:  # a first run, untimed: it builds what a first question builds
        measured.first = {
            v.name: run(v.argv(*command.args(folders[v.name], outs[v.name])), folders[v.name].parent) for v in versions
        }
    _round(measured, versions, folders, outs, 1)
    if command.fresh:
        measured.first = {name: samples[0] for name, samples in measured.samples.items()}
    if max(s.wall for ss in measured.samples.values() for s in ss) > SLOW_S:
        runs = min(runs, SLOW_RUNS)
    _round(measured, versions, folders, outs, runs - 1)
    if measured.ratio() > SLOWER:  # slower-looking: a second round before it is called slower
        _round(measured, versions, folders, outs, runs)
        measured.repeated = True
    return measured


def answers_differ(measured: Measured, folders: dict[str, Path]) -> str:
    """'' when both versions gave the same answer, else what differs."""
    got = {}
    for name, samples in measured.samples.items():
        written = folders[name].parent / f"{name}-{measured.command.name}.out"
        got[name] = measured.command.answer(samples[-1], written)
    base, cur = got["baseline"], got["current"]
    if measured.command.name == "relations" and isinstance(base, dict) and isinstance(cur, dict):
        differ = sorted(f"{k[0]}[{k[1]}] {base[k]} -> {cur[k]}" for k in base.keys() & cur.keys() if base[k] != cur[k])
        gone = sorted(f"{k[0]}[{k[1]}]" for k in base.keys() - cur.keys())
        text = "; ".join(differ[:5]) + (f"; only in the baseline: {', '.join(gone[:5])}" if gone else "")
        return text.strip("; ")
    if base == cur:
        return ""
    if isinstance(base, list) and isinstance(cur, list):
        return f"{len(base)} -> {len(cur)} items"
    return f"{str(base)[:80]} -> {str(cur)[:80]}"


def bench_tree(tree: Tree, versions: list[Version], runs: int, only: frozenset[str] = frozenset()) -> list[dict]:
    work = WORK / tree.name
    shutil.rmtree(work, ignore_errors=True)
    folders = {v.name: work / v.name / "facts" for v in versions}
    cold = {}
    for v in versions:
        folders[v.name].parent.mkdir(parents=True)
        cold[v.name] = run(
            v.argv("scan", str(tree.src), "--out", str(folders[v.name]), "--json"), folders[v.name].parent
        )
        shutil.copytree(folders[v.name], folders[v.name].with_name("pristine"), symlinks=True)
    files = (_json(cold["current"].out) or {}).get("files")
    _say(
        f"\n### {tree.name} ({files} files, {tree.src.relative_to(ROOT)})\n\ncold scan: "
        + ", ".join(f"{n} {s.wall:.2f} s" for n, s in cold.items())
    )
    edges_out = run(
        versions[0].argv("ask", "dependency[code](A, B)", "--facts", str(folders["baseline"]), "--json"), work
    )
    edges = [(a["A"], a["B"]) for a in (_json(edges_out.out) or {}).get("answers", [])]
    changed, holds, fails = questions(tree, edges)
    _say(f"impact --changed {changed}; why {holds}; whynot {fails}\n")
    rows: list[dict] = []
    table = [
        "| command | baseline s | current s | ratio | CPU ratio | baseline MB | current MB | first run b / c s | same answer |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for command in commands(tree, changed, holds, fails):
        if only and command.name not in only:
            continue
        try:
            measured = measure(command, versions, folders, runs)
        except RuntimeError as error:
            _say(f"{command.name}: not measured: {error}")
            continue
        differs = answers_differ(measured, folders)
        row = {
            "case": f"{tree.name} {command.name}",
            "baseline_s": round(measured.median("baseline", "wall"), 3),
            "current_s": round(measured.median("current", "wall"), 3),
            "ratio": round(measured.ratio(), 3),
            "cpu_ratio": round(measured.ratio("cpu"), 3),
            "baseline_mb": round(max(s.rss_mb for s in measured.samples["baseline"])),
            "current_mb": round(max(s.rss_mb for s in measured.samples["current"])),
            "rss_ratio": round(measured.ratio("rss_mb"), 3),
            "first_baseline_s": round(measured.first["baseline"].wall, 2),
            "first_current_s": round(measured.first["current"].wall, 2),
            "runs": len(measured.samples["current"]),
            "same_answer": not differs,
            "mismatch": differs,
        }
        rows.append(row)
        line = (
            f"| {command.name}{' (repeated)' if measured.repeated else ''} | {row['baseline_s']:.3f} | {row['current_s']:.3f}"
            f" | {row['ratio']:.2f} | {row['cpu_ratio']:.2f} | {row['baseline_mb']} | {row['current_mb']}"
            f" | {row['first_baseline_s']:.2f} / {row['first_current_s']:.2f} | {'yes' if not differs else 'NO: ' + differs} |"
        )
        table.append(line)
        _say(f"{command.name}: {row['ratio']:.2f}x ({row['runs']} runs each)")
    _say("\n" + "\n".join(table) + "\n")
    return rows


def trees(wanted: list[str]) -> list[Tree]:
    found = []
    trpc = CACHE / "repos" / "trpc"
    if trpc.is_dir():
        found.append(Tree("trpc", trpc))
    else:
        _say(f"trpc: {trpc.relative_to(ROOT)} is absent (bench/monorepos.py fetches it); skipped")
    from bench import synthetic_monorepo as synthetic

    if synthetic.THREE.is_dir():
        found.append(Tree("mono-2000", synthetic.ensure(2_000)))
    else:
        _say("mono-2000: three/src is absent (run `python bench/run.py scan` once); skipped")
    return [t for t in found if not wanted or t.name in wanted]


def main(argv: list[str] | None = None) -> list[dict]:
    args = list(argv or [])
    runs = RUNS
    if "--runs" in args:
        at = args.index("--runs")
        runs = int(args[at + 1])
        del args[at : at + 2]
    only: frozenset[str] = frozenset()
    if "--only" in args:
        at = args.index("--only")
        only = frozenset(args[at + 1].split(","))
        del args[at : at + 2]
    versions = [Version("baseline", baseline_python()), Version("current", ROOT / ".venv" / "bin" / "python")]
    if not versions[1].python.exists():
        versions[1] = Version("current", Path(sys.executable))
    _say(
        f"baseline = {BASELINE} (before issue 23), current = the working tree; {runs} runs each, interleaved "
        f"({SLOW_RUNS} when a run takes over {SLOW_S:.0f} s), medians; on a shared machine the ratios are what counts"
    )
    rows: list[dict] = []
    for tree in trees(args):
        rows += bench_tree(tree, versions, runs, only)
    slower = [r for r in rows if r["ratio"] > SLOWER]
    wrong = [r for r in rows if not r["same_answer"]]
    _say(
        f"Slower than the baseline by more than {SLOWER - 1:.0%}: "
        + (", ".join(f"{r['case']} {r['ratio']:.2f}x" for r in slower) or "none")
    )
    _say("Answers that differ: " + ("; ".join(f"{r['case']}: {r['mismatch']}" for r in wrong) or "none"))
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
