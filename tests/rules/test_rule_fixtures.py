"""The rules of rules/code.rofl and the presets of rules/presets.rofl, each against its fixture file
(tests/rules/fixtures/*.txt: facts in, rows out; the format is tests/rules/fixture_files.py's), on a
kernel built directly: no scan, no command line.  A failing case names its file, line and title."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rofl.engine.parse import parse_program

from tests.rules.fixture_files import (
    CODE_RULES,
    PRESETS,
    Case,
    FixtureError,
    Kernels,
    all_cases,
    compare,
    expected_rows,
    fresh_rows,
    input_facts,
    read_cases,
)

CASES = all_cases()

# The relations of rules/code.rofl that users read (docs/commands.md, `rofl relations`): each has a case.
READ_BY_USERS = frozenset(
    {
        "dependency",
        "runtime_dependency",
        "package_wide_dependency",
        "runtime_package_wide_dependency",
        "package_wide_target",
        "unfollowed_workspace_import",
        "depends_on",
        "used_by",
        "in_cycle",
        "cycle_edge",
        "runtime_depends_on",
        "runtime_in_cycle",
        "runtime_cycle_edge",
        "impact_reach",
        "affected",
        "orphan",
        "imported",
        "is_entry",
        "route_entry",
        "unused_export",
        "export_provided",
        "unfollowed_alias",
        "virtual_module",
        "unresolved_import",
        "external_package",
        "violation",
    }
)
# Its helper relations: steps of the ones above, checked through them.
HELPERS = frozenset(
    {
        "package_offers",
        "package_unoffered",
        "package_nonsource",
        "package_nonsource_glob",
        "package_wide_subpath_target",
        "package_wide_subpath_matched",
        "package_wide_import_target",
        "package_followed",
        "impact_edge",
        "entry_glob",
        "default_entry_glob",
        "route_base",
        "route_base_dir",
        "route_dir",
        "route_top",
        "app_marker",
        "app_root",
        "remix_root_file",
        "route_candidate",
        "route_shape",
        "route_path",
        "route_inside",
        "route_between",
        "route_child",
        "route_folder",
        "route_has_inner",
        "export_used",
        "all_exports_used",
        "import_for_use",
        "reexport_row",
        "star_reexport",
        "name_imported",
        "namespace_imported",
        "npm_package_name",
        "imports",
        "authority",
    }
)


IDS = [f"{c.path.stem}: {c.title}" for c in CASES]


@pytest.fixture(scope="module")
def kernels() -> Kernels:
    return Kernels()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_rule_holds_the_rows_its_fixture_expects(case: Case, kernels: Kernels) -> None:
    compare(case, kernels.rows(case))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_kernel_of_its_own_evaluated_whole_holds_the_same_rows(case: Case) -> None:
    compare(case, fresh_rows(case))


def test_every_relation_code_rofl_concludes_is_covered_or_a_named_helper() -> None:
    concluded = {c.head.rel for c in parse_program(CODE_RULES.read_text(encoding="utf-8"), str(CODE_RULES))}
    covered = {c.relation for c in CASES}
    assert concluded - READ_BY_USERS - HELPERS == set(), (
        "a new relation: add it to READ_BY_USERS (and a fixture) or HELPERS"
    )
    assert READ_BY_USERS - covered == set(), "a relation users read has no fixture case"


def test_every_preset_has_its_fixture_file_with_a_finding_and_a_clean_case() -> None:
    presets = set(re.findall(r"^rule\((\w+),", PRESETS.read_text(encoding="utf-8"), flags=re.MULTILINE))
    by_preset: dict[str, list[Case]] = {}
    for case in CASES:
        if case.use is not None:
            by_preset.setdefault(case.use, []).append(case)
    assert presets - set(by_preset) == set(), "a preset of rules/presets.rofl has no fixture file"
    for name, cases in by_preset.items():
        assert {c.path.name for c in cases} == {f"{name}.txt"}, f"preset {name}: one fixture file, {name}.txt"
        assert any(c.expected.strip() for c in cases) and any(not c.expected.strip() for c in cases), (
            f"{name}.txt: a case with findings and one with none"
        )
    assert any(c.presets and c.use is None for c in CASES), "the forbidden rules (no preset) have a fixture file"


def test_every_fixture_file_has_cases_with_distinct_titles() -> None:
    paths = {c.path for c in CASES}
    assert paths, "no fixture file found"
    for path in paths:
        titles = [c.title for c in CASES if c.path == path]
        assert len(titles) == len(set(titles)), f"{path.name}: two cases with one title"


WRONG = """-- a fixture with one right case and one wrong one
# relation: dependency[code]

# title: a relative import is a dependency
src_resolves[code]("src/a.ts", "./b", "src/b.ts").
# expect:
dependency[code]("src/a.ts", "src/b.ts").

# title: a case expecting the reverse edge
src_resolves[code]("src/a.ts", "./b", "src/b.ts").
# expect:
dependency[code]("src/b.ts", "src/a.ts").
"""


def test_a_wrong_case_fails_naming_its_file_and_title(tmp_path: Path) -> None:
    path = tmp_path / "dependency.txt"
    path.write_text(WRONG, encoding="utf-8")
    right, wrong = read_cases(path)
    kernels = Kernels()
    compare(right, kernels.rows(right))
    with pytest.raises(AssertionError) as failed:
        compare(wrong, kernels.rows(wrong))
    message = str(failed.value)
    assert f"{path}:9: a case expecting the reverse edge" in message
    assert 'missing:    dependency[code]("src/b.ts", "src/a.ts")' in message
    assert 'unexpected: dependency[code]("src/a.ts", "src/b.ts")' in message


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("# title: t\na(1).\n", "has no '# expect:' line"),
        ("# relation: a\n# title: t\n# expect:\nb(1).\n", "is no fact of a[main]"),
        ("# relation: a\na(1).\n# title: t\n# expect:\n", "a clause before the first '# title:' line"),
        ("# relation: a\n# title: t\n# expects:\n", "unknown directive"),
        ("# relation: a\n# title: t\n# preset: no_circular\n# expect:\n", "belongs in the file's header"),
        ("# relation: a\n# title: t\na(X) :- b(X).\n# expect:\n", "a fixture states facts only"),
    ],
)
def test_a_malformed_fixture_is_refused_naming_its_line(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FixtureError, match=re.escape(why)):
        for case in read_cases(path):
            expected_rows(case)
            input_facts(case)
