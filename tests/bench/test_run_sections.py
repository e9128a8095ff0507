"""`make bench` runs each section in a fresh interpreter: a command a section measures reports its own peak
memory, not that of a bench process grown by an earlier section (Linux keeps a process's peak RSS across
fork and exec)."""

from __future__ import annotations

import math
import sys

import pytest

from bench import run

GROWN_MB = 256


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the inherited peak is Linux's accounting")
def test_a_section_measures_its_commands_apart_from_a_grown_bench_process():
    grown = bytearray(GROWN_MB << 20)
    for i in range(0, len(grown), 4096):  # touch every page: resident, as an earlier section's closures were
        grown[i] = 1
    (row,) = run._run_section("probe", "tests.bench.section_probe")
    del grown
    assert row["workload"] == "probe"
    assert row["child_peak_mb"] < GROWN_MB / 4, row  # a bare interpreter, not the grown parent
    assert math.isnan(row["ratio"])  # rows come back as they were, NaN included
