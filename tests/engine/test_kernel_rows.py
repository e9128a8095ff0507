"""``Kernel.rows`` reads the asserted facts of a relation without reaching into the store, and
``Kernel.drop_relations`` forgets whole relations so that the next evaluation no longer sees them."""

from __future__ import annotations

from rofl.engine.kernel import Kernel

from tests.conftest import BOOT


def test_rows_are_the_asserted_facts_in_a_perspective_or_all_of_them():
    k = Kernel(BOOT)
    k.load_text('p(1). p(2). p[code]("a"). q(X) :- p(X).')
    assert sorted(r[1:] for r in k.rows("p", "main")) == [(1,), (2,)]
    assert [r[1:] for r in k.rows("p", "code")] == [("a",)]
    assert k.rows("q") == ()  # derived, not asserted
    assert k.rows("no_such_relation") == ()


def test_dropped_relations_are_gone_from_the_next_evaluation():
    k = Kernel(BOOT)
    k.load_text("p(1). r(2). q(X) :- p(X). s(X) :- r(X).")
    assert k.query("q(X)").rows and k.query("s(X)").rows  # evaluated once: the caches hold p and r
    k.drop_relations(lambda rel: rel != "p")
    assert k.rows("p") == () and k.rows("r") != ()
    assert not k.query("q(X)").rows and k.query("s(X)").rows
