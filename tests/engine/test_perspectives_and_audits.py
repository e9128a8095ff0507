"""Perspectives and boot's audits: variable perspectives in heads, leaks through imports and bridges, forged facts."""

from __future__ import annotations

from tests.engine.semantics import a, boot, load, rows


def test_variable_perspective_in_head_bound_from_an_atom_argument():
    k = load("src(s1, 5). src(s2, 6).\nr[S](X) :- src(S, X).\nback(S, X) :- r[S](X).")
    assert rows(k, "r[s1](X)") == [(5,)]
    assert rows(k, "r[S](X)") == [(a("s1"), 5), (a("s2"), 6)]
    assert rows(k, "back(S, X)") == [(a("s1"), 5), (a("s2"), 6)]
    assert rows(k, "r(X)") == []


def test_leak_audit_imports_and_bridges():
    k = load("v(1).\nw[p](X) :- v(X).")
    assert rows(k, "leak[audit](A, B)") == [(a("main"), a("p"))]
    k = load("v(1).\nbridge w[p](X) :- v(X).")
    assert rows(k, "leak[audit](A, B)") == []
    assert rows(k, "w[p](X)") == [(1,)]
    k = load("imports(p, q). imports(q, main).\nv(1).\nw[p](X) :- v(X).")
    assert rows(k, "leak[audit](A, B)") == []
    assert (a("p"), a("main")) in rows(k, "sees[boot](A, B)")
    k = load("imports(p, main).\nv[q](1).\nw[p](X) :- v[q](X).")  # p sees main, not q
    assert rows(k, "leak[audit](A, B)") == [(a("q"), a("p"))]


def test_forged_audit():
    k = load("authority(p, alice).")
    k.assert_fact("x", "p", (1,), who="alice")
    assert rows(k, "forged[audit](F)") == []
    k.assert_fact("x", "p", (2,), who="mallory")
    assert rows(k, "forged[audit](F)") == [(("$fact", a("x"), a("p"), ("$args", 2)),)]


def test_audits_stay_empty_across_a_tick_on_boot_alone():
    k = boot()
    assert rows(k, "leak[audit](A, B)") == []
    k.tick()
    assert rows(k, "leak[audit](A, B)") == []


def test_usurp_audit_and_a_copy_of_a_held_rule():
    """A rule loaded by someone without authority over its head's perspective is usurp[audit]; a copy of a
    rule a program with no identity already holds is that program's rule (rules are their content)."""
    k = load("authority(p, alice).\nv(1).\nimports(p, main).\nw[p](X) :- v(X).")
    k.load_text("u[p](X) :- v(X).\nw[p](X) :- v(X).", who="mallory")
    assert [r[1:] for r in rows(k, "usurp[audit](R, P, W)")] == [(a("p"), a("mallory"))]
    assert rows(k, "loaded_by(R, W)") == [(rows(k, "usurp[audit](R, P, W)")[0][0], a("mallory"))]
