"""The audit that adds only what its live rules read (rofl.loading.audit_store.needs) answers as a load of every
fact file, for random rule files: rules over [code] relations and relations derived from them, negation,
counts, cycle components, a perspective variable, helper relations, dead rules, facts that turn rules on,
and rules over fact metadata (which take the full load)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.test_audit_reuse import TREE, every_fact_file, run
from tests.conftest import write_tree

# premises that bind F (and G): each reads the scan's [code] facts in another way
BINDING = [
    "src_file[code](F, _)",
    "src_call[code](F, _, G)",
    "dependency[code](F, G)",
    "src_resolves[code](F, _, G)",
    "src_import[code](F, G)",
    "src_export[code](F, G)",
    "src_decl[code](F, G, _, _)",
    "cycle_component[code](dependency, F, G)",
    "src_file[P](F, G)",
    "helper(F, G)",
]
# conditions over a bound F
CONDITIONS = [
    "in_cycle[code](F)",
    "not imported[code](F)",
    "not src_declaration[code](F)",
    'glob(F, "src/lib/**")',
    'matches(F, "[xy][.]js$")',
    "N = count : { dependency[code](F, _) }, N > 0",
    "turned_on(yes)",
    "never_stated(F)",
    'src_in_dir[code](F, D), D != "src"',
]
HELPERS = [
    "helper(F, G) :- dependency[code](F, G).",
    "helper(F, G) :- src_import_kind[code](F, G, _).",
    "helper(F, F) :- src_file[code](F, _), not src_export[code](F, _).",
]
HEADS = ["bad[audit](F)", "violation[audit](F, F)", "odd[audit](F, G)"]
METADATA = "meta[audit](F) :- src_file[code](F, _), asserted_by(X, scanner), in_perspective(X, code), X = F."


@st.composite
def rule_files(draw) -> str:
    lines = draw(st.lists(st.sampled_from(HELPERS), max_size=2, unique=True))
    for _ in range(draw(st.integers(1, 3))):
        head = draw(st.sampled_from(HEADS))
        body = [draw(st.sampled_from(BINDING))]
        body += draw(st.lists(st.sampled_from(CONDITIONS), max_size=2, unique=True))
        if "G" in head and not any("G" in item for item in body):
            head = "bad[audit](F)"
        lines.append(f"{head} :- {', '.join(body)}.")
    if draw(st.booleans()):
        lines.append("turned_on(yes).")
    if draw(st.integers(0, 5)) == 0:
        lines.append(METADATA)
    return "\n".join(lines) + "\n"


def audits_agree(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src, facts = root / "repo", root / "facts"
        write_tree(src, TREE)
        assert run("scan", src, "--out", facts)[0] == 0
        rules = root / "rules.rofl"
        rules.write_text(text)
        reused = run("audit", "--facts", facts, "--rules", rules, "--json")
        with every_fact_file():
            full = run("audit", "--facts", facts, "--rules", rules, "--json")
        assert reused == full, text


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=rule_files())
def test_random_rule_files_audit_as_every_fact_file(text):
    audits_agree(text)


def test_each_kind_of_premise_audits_as_every_fact_file():
    """Every premise and condition once (the property test samples them)."""
    for binding in BINDING:
        audits_agree(f"{HELPERS[0]}\nbad[audit](F) :- {binding}, {CONDITIONS[0]}.\n")
    for condition in CONDITIONS:
        audits_agree(f"turned_on(yes).\nbad[audit](F) :- src_file[code](F, _), {condition}.\n")
    audits_agree(METADATA + "\n")


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=rule_files())
def test_many_random_rule_files_audit_as_every_fact_file(text):
    audits_agree(text)
