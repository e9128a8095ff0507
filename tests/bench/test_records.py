"""The benchmark record: which columns are figures, how a run compares with the record, what is a regression."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from bench import records


def test_only_ratio_columns_of_row_dicts_are_figures():
    rows = [
        {"workload": "dag 2000/6000", "ratio": 1.7, "ours_eval_s": 0.8, "facts_per_s": 90_000, "ok": True},
        {"corpus": "three", "cold_ratio": 0.9, "nochange_ratio": float("nan")},
        {"question": "impact", "speedup": 12.0},
        "not a row",
    ]
    found = {f.name: f.value for f in records.figures("kernel", rows)}
    assert found == {
        "kernel: dag 2000/6000: ratio": 1.7,
        "kernel: three: cold_ratio": 0.9,
        "kernel: impact: speedup": 12.0,
    }
    assert records.figures("audit", None) == []


def test_a_figure_more_than_the_tolerance_worse_is_a_regression_either_way_round(tmp_path):
    path = tmp_path / "RECORDS.json"
    path.write_text(json.dumps({"figures": {"s: a: ratio": 2.0, "s: b: speedup": 10.0, "s: c: ratio": 2.0}}))
    measured = [
        records.Figure("s: a: ratio", 2.4),  # 20% slower than the peer than before: worse
        records.Figure("s: b: speedup", 8.0),  # 20% less speed-up: worse
        records.Figure("s: c: ratio", 1.0),  # better
        records.Figure("s: d: ratio", 9.0),  # new: never a regression
    ]
    compared = {c.figure.name: c for c in records.compare(measured, path)}
    assert [n for n, c in compared.items() if c.regression] == ["s: a: ratio", "s: b: speedup"]
    assert compared["s: d: ratio"].recorded is None
    text = records.render(list(compared.values()))
    assert "Regressions" in text and "- s: a: ratio: 2.4, recorded 2" in text and "not recorded" in text


def test_recording_merges_and_keeps_figures_of_sections_not_run(tmp_path):
    path = tmp_path / "RECORDS.json"
    records.record([records.Figure("kernel: x: ratio", 1.5)], path)
    records.record([records.Figure("scan: y: cold_ratio", 0.5)], path)
    assert records.recorded(path) == {"kernel: x: ratio": 1.5, "scan: y: cold_ratio": 0.5}
    path.write_text("{not json")
    assert records.recorded(path) == {}  # an unreadable record compares with nothing


@given(st.floats(0.01, 100), st.floats(0.01, 100))
def test_regression_means_worse_by_more_than_the_tolerance(old, new):
    lower = records.Comparison(records.Figure("s: r: ratio", new), old)
    higher = records.Comparison(records.Figure("s: r: speedup", new), old)
    assert lower.regression == (new > old * (1 + records.TOLERANCE) and (new - old) / old > records.TOLERANCE)
    assert higher.regression == ((old - new) / old > records.TOLERANCE)
