"""The recorded benchmark figures: what `make bench` compares each run with, and flags as a regression.

A section's ``main()`` returns its table rows (dicts); every numeric column whose name says it is a
ratio against the peer measured in the same run (``ratio``, ``*_ratio``, ``ratio_*``, ``*_x``) is a
figure, named ``section: row label: column``.  Ratios are robust to the machine's speed, which is why
only they are recorded: absolute seconds differ between machines, a ratio against a peer run in the
same minute much less.  Lower is better (ours over the peer's), except for a column named as a
speed-up (``speedup``, ``*_faster``), where higher is.

``bench/RECORDS.json`` (committed) holds the figures of the last ``python bench/run.py --record``;
each run prints every figure beside the recorded one with the change, and lists at the end each
figure more than ``TOLERANCE`` worse than recorded.  A regression is reported, never a failure: the
timing of ``make test`` is no benchmark, and neither is one run of ``make bench`` on a busy machine.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

RECORDS = Path(__file__).resolve().parent / "RECORDS.json"
TOLERANCE = 0.15  # a figure more than 15% worse than recorded is a regression
LABEL_KEYS = ("workload", "bench", "question", "case", "name", "corpus", "repo", "repository", "changed", "kind")
HIGHER_BETTER = ("speedup", "_faster")


@dataclass(frozen=True, slots=True)
class Figure:
    """One recorded or measured ratio."""

    name: str  # "section: row label: column"
    value: float

    @property
    def higher_is_better(self) -> bool:
        column = self.name.rsplit(": ", 1)[-1]
        return any(word in column for word in HIGHER_BETTER)


@dataclass(frozen=True, slots=True)
class Comparison:
    """A figure of this run beside the recorded one (None: not recorded yet)."""

    figure: Figure
    recorded: float | None

    @property
    def change(self) -> float | None:
        """Relative change, positive when worse."""
        if self.recorded is None or self.recorded == 0:
            return None
        delta = (self.figure.value - self.recorded) / abs(self.recorded)
        return -delta if self.figure.higher_is_better else delta

    @property
    def regression(self) -> bool:
        change = self.change
        return change is not None and change > TOLERANCE


def _is_ratio(column: str) -> bool:
    return (
        column == "ratio"
        or column.startswith("ratio_")
        or column.endswith(("_ratio", "_x"))
        or any(word in column for word in HIGHER_BETTER)
    )


def _label(row: Mapping[str, Any], index: int) -> str:
    for key in LABEL_KEYS:
        value = row.get(key)
        if isinstance(value, str) and value:
            return value
    return f"row {index + 1}"


def figures(section: str, rows: object) -> list[Figure]:
    """The ratios among a section's returned rows (anything that is not a list of dicts has none)."""
    if not isinstance(rows, list):
        return []
    out: list[Figure] = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            continue
        label = _label(row, index)
        for column, value in row.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not _is_ratio(column):
                continue
            if math.isfinite(value):
                out.append(Figure(f"{section}: {label}: {column}", float(value)))
    return out


def recorded(path: Path = RECORDS) -> dict[str, float]:
    """The recorded figures by name (empty when nothing is recorded or the file is unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("figures") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return {}
    return {k: float(v) for k, v in found.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def compare(measured: Iterable[Figure], path: Path = RECORDS) -> list[Comparison]:
    known = recorded(path)
    return [Comparison(f, known.get(f.name)) for f in measured]


def render(comparisons: list[Comparison]) -> str:
    """The Markdown table of every figure beside its record, then the regressions."""
    if not comparisons:
        return "No ratio was measured in this run (each section says why).\n"
    lines = ["| figure | this run | recorded | change |", "|---|---|---|---|"]
    for c in comparisons:
        shown = "not recorded" if c.recorded is None else f"{c.recorded:.3g}"
        change = (
            ""
            if c.change is None
            else f"{'+' if c.change > 0 else ''}{c.change * 100:.0f}% {'worse' if c.change > 0 else 'better'}"
        )
        lines.append(f"| {c.figure.name} | {c.figure.value:.3g} | {shown} | {change} |")
    bad = [c for c in comparisons if c.regression]
    lines.append("")
    if bad:
        lines.append(f"Regressions (more than {TOLERANCE:.0%} worse than recorded):")
        lines += [f"- {c.figure.name}: {c.figure.value:.3g}, recorded {c.recorded:.3g}" for c in bad]
    else:
        lines.append(f"No figure is more than {TOLERANCE:.0%} worse than recorded.")
    return "\n".join(lines) + "\n"


def record(measured: Iterable[Figure], path: Path = RECORDS) -> int:
    """Merge this run's figures into the record (figures of sections not run stay); how many were written."""
    known = recorded(path)
    fresh = {f.name: round(f.value, 4) for f in measured}
    known.update(fresh)
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=path.parent, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    data = {"recorded": date.today().isoformat(), "commit": commit, "figures": dict(sorted(known.items()))}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return len(fresh)
