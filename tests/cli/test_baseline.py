"""Baselines (`rofl audit --baseline FILE`, `--write-baseline FILE`): known findings are ignored, new ones
reported, fixed ones listed, and the baseline only shrinks."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli.test_rules_presets import ALL_PRESETS, MONOREPO, ORPHAN_ALLOWS
from tests.conftest import write_tree

RULES = "".join(f"use({p}).\n" for p in ALL_PRESETS) + ORPHAN_ALLOWS


def scan(rofl, src, facts):
    code, out, err = rofl("scan", src, "--out", facts)
    assert code == 0, err


@pytest.fixture
def project(rofl, tmp_path):
    """``(src, facts, rules)``: the monorepo of test_rules_presets in a private folder, scanned."""
    src, facts, rules = tmp_path / "src", tmp_path / "facts", tmp_path / "rules.rofl"
    write_tree(src, MONOREPO)
    rules.write_text(RULES)
    scan(rofl, src, facts)
    return src, facts, rules


def audit(rofl, project, *extra):
    _, facts, rules = project
    return rofl("audit", "--facts", facts, "--rules", rules, *extra)


def test_round_trip_known_findings_are_ignored(rofl, project, tmp_path):
    baseline = tmp_path / "baseline.json"
    code, out, err = audit(rofl, project, "--write-baseline", baseline)
    assert code == 0 and "written to" in err
    entries = json.loads(baseline.read_text())["findings"]
    keys = [e["key"] for e in entries]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    code, out, _ = audit(rofl, project, "--json")
    assert len(json.loads(out)["findings"]) == len(entries)  # every finding is in the baseline
    code, out, _ = audit(rofl, project, "--baseline", baseline, "--json")
    report = json.loads(out)
    assert (code, report["clean"], report["findings"], report["fixed"]) == (0, True, [], [])
    assert report["known"] == len(entries)
    first = baseline.read_bytes()
    audit(rofl, project, "--write-baseline", baseline)
    assert baseline.read_bytes() == first  # stable: the same findings write the same bytes


def test_new_findings_are_reported_and_fixed_ones_listed(rofl, project, tmp_path):
    src, facts, _ = project
    baseline = tmp_path / "baseline.json"
    audit(rofl, project, "--write-baseline", baseline)
    render = src / "packages/element/src/render.ts"
    # fix one finding (the undeclared perfect-freehand), add another (an undeclared package elsewhere);
    # blank lines on top move every other import of the file without making its findings new
    render.write_text(
        "\n\n" + render.read_text().replace('import stroke from "perfect-freehand";\n', "").replace("stroke, ", "")
    )
    colors = src / "packages/common/src/colors.ts"
    colors.write_text('import chroma from "chroma-js";\n' + colors.read_text())
    scan(rofl, src, facts)
    code, out, _ = audit(rofl, project, "--baseline", baseline, "--json")
    report = json.loads(out)
    assert code == 1
    new = [(f["rule"], f["from"], f["to"], f["line"]) for f in report["findings"]]
    assert new == [("no_undeclared_packages", "packages/common/src/colors.ts", "chroma-js", 1)]
    fixed = [(e["rule"], e["from"], e["to"]) for e in report["fixed"]]
    assert fixed == [("no_undeclared_packages", "packages/element/src/render.ts", "perfect-freehand")]
    code, text, _ = audit(rofl, project, "--baseline", baseline)
    assert "packages/common/src/colors.ts:1: imports chroma-js" in text
    assert (
        "fixed (no longer found; the baseline can drop it): no_undeclared_packages packages/element/src/render.ts perfect-freehand"
        in text
    )


def test_a_baseline_rewritten_against_itself_only_shrinks(rofl, project, tmp_path):
    src, facts, _ = project
    baseline = tmp_path / "baseline.json"
    audit(rofl, project, "--write-baseline", baseline)
    before = {e["key"] for e in json.loads(baseline.read_text())["findings"]}
    (src / "packages/math/src/legacy.ts").unlink()  # fixes the orphan
    (src / "packages/math/src/stale.ts").write_text("export const s = 1;\n")  # a new orphan
    scan(rofl, src, facts)
    code, _, _ = audit(rofl, project, "--baseline", baseline, "--write-baseline", baseline, "--fail-on", "warn")
    assert code == 1  # the new orphan is reported (a warning, failing with --fail-on warn) ...
    after = {e["key"] for e in json.loads(baseline.read_text())["findings"]}
    assert after < before  # ... but not added; the fixed one is dropped
    assert before - after == {"no_orphans\tpackages/math/src/legacy.ts\tpackages/math/src/legacy.ts"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such baseline; write one with `rofl audit --write-baseline"),
        ("{not json", "baseline.json:1: the baseline is not valid JSON"),
        ('{"findings": []}', "not a rofl baseline"),
        ('{"format": 1, "findings": [{"rule": "x"}]}', 'entry 1 has no "key" string'),
    ],
)
def test_a_bad_baseline_is_one_line_and_exit_2(rofl, project, tmp_path, content, message):
    baseline = tmp_path / "baseline.json"
    if content is not None:
        baseline.write_text(content)
    code, _, err = audit(rofl, project, "--baseline", baseline)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_writing_a_baseline_into_a_missing_folder_is_a_user_error(rofl, project, tmp_path):
    code, _, err = audit(rofl, project, "--write-baseline", tmp_path / "nowhere" / "b.json")
    assert code == 2 and "does not exist" in err


def test_a_failed_write_leaves_the_old_baseline_whole(rofl, project, tmp_path, monkeypatch):
    import rofl.engine.base.safe_write as safe_write

    baseline = tmp_path / "baseline.json"
    baseline.write_text('{"format": 1, "findings": []}\n')

    def broken(path, data, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safe_write, "write_atomic", broken)
    code, _, err = audit(rofl, project, "--write-baseline", baseline)
    assert code == 2 and "No space left on device" in err
    assert baseline.read_text() == '{"format": 1, "findings": []}\n'
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("baseline")] == ["baseline.json"]


def test_baseline_copies_between_checkouts(rofl, project, tmp_path):
    """Keys hold no absolute path: a baseline written in one clone serves another."""
    src, _, rules = project
    baseline = tmp_path / "baseline.json"
    audit(rofl, project, "--write-baseline", baseline)
    assert str(src) not in baseline.read_text()
    other = tmp_path / "other"
    shutil.copytree(src, other / "src")
    scan(rofl, other / "src", other / "facts")
    code, out, _ = rofl("audit", "--facts", other / "facts", "--rules", rules, "--baseline", baseline, "--json")
    assert (code, json.loads(out)["clean"]) == (0, True)
