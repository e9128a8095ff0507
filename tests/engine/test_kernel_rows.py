"""``Kernel.rows`` reads the asserted facts of a relation without reaching into the store, and
``Kernel.drop_relations`` forgets whole relations so that the next evaluation no longer sees them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.engine.base.errors import LoadRejected
from rofl.engine.kernel import Kernel
from rofl.engine.namespace import stored_name

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


rows_strategy = st.lists(
    st.tuples(st.sampled_from(["a.ts", "b.ts", "c.ts"]), st.one_of(st.integers(-3, 3), st.sampled_from(["x", "y"]))),
    max_size=12,
)


@given(first=rows_strategy, second=rows_strategy)
def test_assert_rows_is_loading_the_same_facts(first, second):
    """Rows asserted at once are the facts a program of them asserts: the same store (asserter and all),
    the same declarations, the same answers, the same audit (none forged under the loader's authority)."""
    from rofl.engine.terms import format_fact

    def program(rows: list) -> str:
        return "\n".join(format_fact("e", "code", row) + "." for row in rows)

    loaded, bulk = Kernel(BOOT), Kernel(BOOT)
    for k in (loaded, bulk):
        k.load_text(
            "authority(code, scanner).\nreach(A, B) :- e[code](A, B).\nreach(A, C) :- reach(A, B), e[code](B, C)."
        )
    for rows in (first, second):
        if rows:
            loaded.load_text(program(rows), who="scanner")
        new = set(rows) - {r[1:] for r in bulk.rows("e")}
        assert bulk.assert_rows("e", "code", [("code", *row) for row in rows], "scanner") == len(new)
    assert loaded.store.base == bulk.store.base
    for question in ("reach(A, B)", "forged[audit](F)", "edb(R)"):
        assert loaded.query(question).rows == bulk.query(question).rows


def test_assert_rows_counts_what_is_new_and_refuses_what_loading_treats_apart():
    k = Kernel(BOOT)
    assert k.assert_rows("e", "code", [("code", "a", 1), ("code", "b", 2), ("code", "a", 1)], "scanner") == 2
    assert k.assert_rows("e", "code", [("code", "a", 1), ("code", "c", 3)], "scanner") == 1
    assert sorted(k.rows("e", "code")) == [("code", "a", 1), ("code", "b", 2), ("code", "c", 3)]
    for rel, persp in (("authority", "main"), ("e", "audit"), ("e", "boot"), ("rule", "main")):
        with pytest.raises(LoadRejected):
            k.assert_rows(rel, persp, [("x",)], "user")


PERSPS = st.sampled_from(["main", "code", "audit"])
EDITS = st.lists(
    st.tuples(st.sampled_from(["add", "remove", "drop"]), st.sampled_from(["p", "q"]), PERSPS, st.integers(0, 2)),
    min_size=1,
    max_size=20,
)


@given(EDITS)
def test_names_in_a_perspective_follow_every_change(edits):
    """``names_in`` keeps each relation's perspectives between calls; after any assert, retract or drop it
    names exactly the relations with a base fact in the perspective (and those rules conclude there)."""
    k = Kernel(BOOT)
    k.load_text("r[audit](X) :- s(X).")
    for kind, rel, persp, value in edits:
        if kind == "add":
            k.assert_fact(rel, persp, (value,))
        elif kind == "remove":
            k.retract(rel, persp, (value,))
        else:
            k.drop_relations(lambda name, rel=rel: name != rel)
        for asked in ("main", "code", "audit"):
            held = {name for name in ("p", "q") if any(row[0] == asked for row in k.rows(name))}
            named = k.names_in(asked) & {"p", "q"}
            assert named == held
    assert stored_name("r", "audit") in k.names_in("audit")  # concluded there by a rule
