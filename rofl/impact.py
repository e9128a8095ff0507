"""Impact of a change: the files that transitively import a changed file, each with its import chain."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from engine.errors import RoflError
from engine.kernel import Kernel

CHANGED = "changed"
REACH = "impact_reach"
AFFECTED = "affected"


@dataclass(frozen=True, slots=True)
class Affected:
    file: str
    via: tuple[str, ...]  # the affected file, the files it imports along the chain, the changed file


@dataclass(frozen=True, slots=True)
class Impact:
    changed: tuple[str, ...]
    affected: tuple[Affected, ...]
    partial: bool


def normalise(paths: list[str], manifest: dict) -> tuple[list[str], list[str]]:
    """Changed paths as the scan names them (relative to the scanned root); unknown ones are reported."""
    if not isinstance(manifest.get("src", "."), str):
        raise RoflError("manifest.json: 'src' is not a path; run `rofl scan` again to rewrite it")
    src = Path(manifest.get("src", "."))
    files = manifest.get("files", {})
    out, unknown = [], []
    for p in paths:
        cand = p.replace("\\", "/")
        if cand not in files:
            try:
                rel = Path(p).resolve().relative_to(src.resolve()).as_posix()
            except ValueError:
                rel = cand
            cand = rel
        out.append(cand)
        if cand not in files:
            unknown.append(p)
    return sorted(set(out)), unknown


def git_changed(manifest: dict, ref: str) -> list[str]:
    """Files changed in the work tree against REF (untracked files included), relative to the scanned root."""
    if not ref or ref.startswith("-"):
        raise RoflError(f"--git-base {ref!r}: not a git revision; give a branch, tag or commit such as origin/main")
    src = Path(str(manifest.get("src", "."))).resolve()

    def git(*args: str) -> str:
        try:
            proc = subprocess.run(["git", "-C", str(src), *args], capture_output=True, text=True, check=False)
        except FileNotFoundError:
            raise RoflError("--git-base needs git on PATH; install git or use --changed") from None
        if proc.returncode != 0:
            raise RoflError(f"git {' '.join(args)}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'failed'}; run inside the scanned git work tree with a valid REF")
        return proc.stdout

    top = Path(git("rev-parse", "--show-toplevel").strip()).resolve()
    names = git("diff", "--name-only", "-z", "--end-of-options", ref, "--").split("\0")
    names += git("ls-files", "--others", "--exclude-standard", "-z", "--full-name").split("\0")
    out = []
    for name in names:
        if not name:
            continue
        full = top / name
        try:
            out.append(full.relative_to(src).as_posix())
        except ValueError:
            continue
    return sorted(set(out))


def impact(kernel: Kernel, changed: list[str]) -> Impact:
    for path in changed:
        kernel.assert_fact(CHANGED, "main", (path,), who="user")
    kernel.goals = {AFFECTED}
    outcome = kernel.evaluate()
    ctx = outcome.ctx
    table = ctx.tables.get(AFFECTED)
    files = sorted(row[1] for row in (table.rows if table else ()) if row[0] == "main" and type(row[1]) is str)
    return Impact(tuple(changed), tuple(Affected(f, chain(ctx, f)) for f in files), outcome.partial)


def chain(ctx, file: str) -> tuple[str, ...]:
    """Follow the witnesses of impact_reach from ``file`` down to a changed file."""
    provs = ctx.provs.get(REACH, {})
    rules = ctx.decoded.rules
    out = [file]
    row = ("main", file)
    for _ in range(len(provs) + 1):
        rec = provs.get(row)
        if rec is None:
            break
        rule = rules[rec[0]]
        first_rel = rule.clause.body[0].rel
        head_row, dep_row = rec[1][0], rec[1][1]
        target = dep_row[2]
        out.append(target)
        if first_rel == CHANGED:
            break
        row = head_row
    return tuple(out)
