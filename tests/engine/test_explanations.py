"""why, whynot and excise: negated premises, metadata relations, the best partial match, several supports."""

from __future__ import annotations

from tests.conftest import EXAMPLES
from tests.engine.semantics import a, load, rows


def test_why_shows_a_ground_negated_premise_as_a_failure_demonstration():
    k = load((EXAMPLES / "sensors.rofl").read_text())
    k.load_file(EXAMPLES / "sensor_readings.rofl", who="sensor_net")
    node = k.why("outlier", "main", (a("s3"),))
    neg = [c for c in node.children if c.kind == "negation"]
    assert len(neg) == 1 and neg[0].text == "not corroborated[main](s3)"
    assert neg[0].children and all(c.kind == "rule" for c in neg[0].children)


def test_why_instantiates_and_demonstrates_a_negated_premise_with_a_wildcard():
    k = load("node(a). node(d). edge(a, b).\npath(X, Y) :- edge(X, Y).\nlonely(X) :- node(X), not path(X, _).")
    node = k.why("lonely", "main", (a("d"),))
    (neg,) = [c for c in node.children if c.kind == "negation"]
    assert "path[main](d, _)" in neg.text
    assert neg.children  # the rule for path and the premise that fails for d


def test_why_treats_metadata_relations_like_stored_relations():
    k = load("authority(p, alice).")
    k.assert_fact("x", "p", (1,), who="mallory")
    ((fact,),) = k.query("forged[audit](F)").rows
    node = k.why("forged", "audit", (fact,))
    kinds = [c.kind for c in node.children]
    assert "missing" not in kinds, "\n".join(node.lines())


def test_whynot_names_the_failing_premise_of_the_best_partial_match():
    k = load("a(1, 2). a(1, 3). b(3).\np(X) :- a(X, Y), b(Y), c(Y).")
    (rule,) = k.whynot("p", "main", (1,)).children
    assert [(c.kind, c.text) for c in rule.children] == [
        ("ok", "a[main](1, 3)"),
        ("ok", "b[main](3)"),
        ("fails", "c[main](3)"),
    ]
    assert k.whynot("b", "main", (9,)).kind == "missing"


def test_excise_multiple_supports_and_facts_gained_through_negation():
    k = load("a(1). b(1). c(1). c(2).\nq(X) :- a(X).\nq(X) :- b(X).\nn(X) :- c(X), not a(X).\nm(X) :- c(X), not q(X).")
    removed, added = k.excise("a", "main", (1,))
    assert removed == ["a[main](1)"]  # q(1) keeps its second support; m(1) stays absent
    assert added == ["n[main](1)"]
    # excise leaves the store as it was
    assert rows(k, "q(X)") == [(1,)] and rows(k, "n(X)") == [(2,)]


def test_excise_of_a_fact_that_is_also_derived():
    k = load("q(1). r(1).\nq(X) :- r(X).\ns(X) :- q(X).")
    assert k.excise("q", "main", (1,)) == ([], [])
    assert k.excise("r", "main", (1,)) == (["r[main](1)"], [])
