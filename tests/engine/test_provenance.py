"""Provenance: derived_by, support counts, why, whynot and excise."""

from __future__ import annotations

import pytest
from rofl.engine import evaluate
from rofl.engine.explain import why
from rofl.engine.kernel import Kernel

from tests.conftest import BOOT, EXAMPLES
from tests.engine.program_gen import generate
from tests.engine.proofs import assert_valid_proof


def load_sensors(kernel):
    kernel.load_sources([(EXAMPLES / "sensors.rofl", None), (EXAMPLES / "sensor_readings.rofl", "sensor_net")])


def test_sensors_answers(kernel):
    load_sensors(kernel)
    assert kernel.query("verified(V)").rows == ((20,), (21,))
    assert kernel.query("outlier(S)").rows == ((("s3",),),)


def test_sensors_why_outlier_shows_failed_corroboration(kernel):
    load_sensors(kernel)
    node = kernel.why("outlier", "main", (("s3",),))
    assert node.kind == "derived"
    reading, negation = node.children
    assert (reading.kind, reading.text, reading.who) == ("base", "reading[s3](95)", "sensor_net")
    assert negation.kind == "negation" and negation.text == "not corroborated[main](s3)"
    (demo,) = negation.children
    assert demo.kind == "rule" and demo.children[-1].kind == "fails"
    assert demo.children[-1].text.startswith("close[main](95, ")


def test_sensors_whynot_names_the_missing_close_reading(kernel):
    load_sensors(kernel)
    node = kernel.whynot("corroborated", "main", (("s3",),))
    (rule,) = node.children
    failing = rule.children[-1]
    assert failing.kind == "fails" and failing.text.startswith("close[main](95, ")
    # a base relation with no such fact
    assert kernel.whynot("reading", "s1", (99,)).kind == "missing"


def test_sensors_excise_blast_radius(kernel):
    load_sensors(kernel)
    removed, added = kernel.excise("reading", "s1", (20,))
    assert "corroborated[main](s2)" in removed
    assert "verified[main](21)" in removed and "verified[main](20)" in removed
    assert added == ["outlier[main](s2)"]
    # the store is unchanged afterwards
    assert kernel.query("verified(V)").rows == ((20,), (21,))


def test_excise_keeps_a_fact_with_a_second_support(kernel):
    kernel.load_text("a(1). b(1). c(X) :- a(X). c(X) :- b(X). d(X) :- c(X).")
    record = kernel.outcome.provenance("c", ("main", 1))
    assert record.support == 2 and len(record.rules) == 2  # two supports from two rules
    assert record.witness == (("a", ("main", 1)),)
    removed, added = kernel.excise("a", "main", (1,))
    assert removed == ["a[main](1)"] and added == []


def test_derived_by_is_queryable_per_rule(kernel):
    kernel.load_text("a(1). b(1). c(X) :- a(X). c(X) :- b(X).")
    answers = kernel.query("derived_by(F, R, T)").as_dicts()
    mine = [a for a in answers if a["F"] == ("$fact", ("c",), ("main",), ("$args", 1))]
    assert len(mine) == 2 and {a["T"] for a in mine} == {0}


def test_support_counts_count_distinct_firings(kernel):
    kernel.load_text("e(1, 2). e(1, 3). e(2, 4). e(3, 4). p(X, Z) :- e(X, Y), e(Y, Z).")
    assert kernel.outcome.provenance("p", ("main", 1, 4)).support == 2
    assert kernel.outcome.provenance("e", ("main", 1, 2)) is None  # a base fact has no record


def test_witness_is_first_derivation_in_canonical_order(kernel):
    kernel.load_text("e(1, 3). e(1, 2). e(2, 4). e(3, 4). p(X, Z) :- e(X, Y), e(Y, Z).")
    node = kernel.why("p", "main", (1, 4))
    assert [c.text for c in node.children] == ["e[main](1, 2)", "e[main](2, 4)"]


def test_asserted_by_and_in_perspective(kernel):
    kernel.load_sources([(EXAMPLES / "sensor_readings.rofl", "sensor_net")])
    got = kernel.query("asserted_by(F, W)").as_dicts()
    assert {a["W"] for a in got} == {("sensor_net",)}
    assert len(got) == 3
    persp = kernel.query("in_perspective(F, s2)").rows
    assert persp == ((("$fact", ("reading",), ("s2",), ("$args", 21)),),)


@pytest.mark.parametrize("lean_from", [0, evaluate.LEAN_FROM])
def test_every_derived_fact_has_a_well_founded_witness_that_re_derives_it(lean_from, monkeypatch):
    """A compiled rule's record keeps its rule alone and the witness is found again when asked
    (``Context.record``): over random stratified programs (recursion, negation, perspectives), every
    derived fact's proof reaches base facts without resting on itself, and each step of it re-derives its
    fact by its rule (checked in full for each program's first facts, for cycles in all).  Also with every
    relation lean from its first fact, when no record names the rule (``engine.evaluate.LeanRecords``)."""
    monkeypatch.setattr(evaluate, "LEAN_FROM", lean_from)
    checked = 0
    for seed in range(8000, 8030):
        prog = generate(seed)
        k = Kernel(BOOT)
        k.load_text(prog.rofl())
        full = k.evaluate()
        derived = [  # boot's own relations aside, and facts also asserted (their proof is the base fact)
            d for d in full.derived() if d[0] in prog.relations and d[1] not in k.store.base.get(d[0], {})
        ]
        for n, (rel, row, record) in enumerate(derived):
            node = why(full._ctx, k.store, rel, row)
            assert node is not None and record.rule == node.rule, (seed, rel, row)
            assert not any("(see above)" in line for line in node.lines()), (seed, node.lines())
            if n < 20:
                assert_valid_proof(k, full, node)
        checked += len(derived)
    assert checked > 200  # not vacuous: many programs derive many facts
