"""boot.rofl: the audits, stratification as rules, and live self-condemnation of damaged rules."""

from __future__ import annotations

import pytest
from rofl.engine.base.errors import UnknownRelation
from rofl.engine.reflect import literal_term

AUDITS = ("malformed", "breach", "leak", "forged", "unmoded")


def audit(kernel, rel):
    return [r for r in kernel.query(f"{rel}[audit](X)" if rel != "leak" else "leak[audit](X, Y)").rows]


def test_boot_alone_has_empty_audits(kernel):
    for rel in AUDITS:
        assert audit(kernel, rel) == [], rel
    assert kernel.query("unstratified[boot](R)").rows == ()


def test_whynot_unstratified_reach_is_a_finite_demonstration(kernel):
    node = kernel.whynot("unstratified", "boot", (("boot$reach",),))
    assert node.kind == "absent"
    (rule,) = node.children
    assert rule.children[-1].kind == "fails"
    assert rule.children[-1].text.startswith("dep_neg[boot](boot$reach, ")


def test_strata_are_read_from_boot(kernel):
    kernel.load_text("a(1). b(X) :- a(X), not c(X). c(X) :- a(X), X > 5. d(X) :- b(X), not e(X). e(2).")
    strata = kernel.outcome.strata
    assert strata["a"] == 0 and strata["c"] == 0 and strata["b"] == 1 and strata["d"] == 1
    assert kernel.query("d(X)").rows == ((1,),)


def _rule_ids_concluding(kernel, rel):
    return [r[1][0] for r in kernel.store.base["concludes"] if r[2] == (rel,)]


@pytest.mark.parametrize("damage", ["has_premise", "premise_lit"])
def test_damaging_a_malformed_rule_makes_a_sibling_condemn_it(kernel, damage):
    for rid in _rule_ids_concluding(kernel, "malformed"):
        # work on the booted kernel itself: remove one premise of one malformed rule, live
        rows = [r for r in kernel.store.base[damage] if r[1] == (rid,) and r[2] == 1]
        assert rows, "each malformed rule has a first premise"
        for r in rows:
            kernel.retract(damage, r[0], r[1:])
        condemned = {r[0] for r in kernel.query("malformed[audit](R)").rows}
        assert (rid,) in condemned, f"no sibling condemned {rid} after deleting its {damage}"
        for r in rows:
            kernel.assert_fact(damage, r[0], r[1:])
        assert kernel.query("malformed[audit](R)").rows == ()


def test_a_rule_with_no_premise_is_malformed(kernel):
    kernel.load_text("x(1). y(X) :- x(X).")
    (rid,) = _rule_ids_concluding(kernel, "y")
    for r in [r for r in kernel.store.base["has_premise"] if r[1] == (rid,)]:
        kernel.retract("has_premise", r[0], r[1:])
    for r in [r for r in kernel.store.base["premise_lit"] if r[1] == (rid,)]:
        kernel.retract("premise_lit", r[0], r[1:])
    assert kernel.query("malformed[audit](R)").rows == (((rid,),),)
    with pytest.raises(UnknownRelation):  # the damaged rule no longer runs: nothing defines y
        kernel.query("y(X)")


def test_breach_reports_reflection_asserted_as_facts(kernel):
    lit = literal_term(__import__("rofl.engine.clauses", fromlist=["Literal"]).Literal("edb", "main", (("$var", "X"),)))
    kernel.assert_fact("rule", "main", (("rx",),))
    kernel.assert_fact("concludes", "main", (("rx",), ("edb",)))
    kernel.assert_fact("conclusion_lit", "main", (("rx",), 1, lit))
    assert audit(kernel, "breach") == [(("rx",),)]
    assert kernel.query("edb(X)").rows  # the forged rule did not run: edb holds only the kernel's rows
    assert (("x",),) not in kernel.query("edb(X)").rows


def test_forged_fact_by_wrong_authority(kernel):
    kernel.load_text("authority(code, scanner).")
    kernel.load_text('src_file[code]("a.ts", "abc").', who="scanner")
    assert audit(kernel, "forged") == []
    kernel.load_text('src_file[code]("evil.ts", "000").', who="mallory")
    (row,) = audit(kernel, "forged")
    assert row[0] == ("$fact", ("src_file",), ("code",), ("$args", "evil.ts", "000"))


def test_leak_without_bridge_and_not_with_one(kernel):
    kernel.load_text("secret[vault](1). peek(X) :- secret[vault](X).")
    assert audit(kernel, "leak") == [(("vault",), ("main",))]
    kernel2 = type(kernel)(__import__("tests.conftest", fromlist=["BOOT"]).BOOT)
    kernel2.load_text("secret[vault](1). bridge peek(X) :- secret[vault](X).")
    assert audit(kernel2, "leak") == []
    kernel3 = type(kernel)(__import__("tests.conftest", fromlist=["BOOT"]).BOOT)
    kernel3.load_text("imports(main, vault). secret[vault](1). peek(X) :- secret[vault](X).")
    assert audit(kernel3, "leak") == []


def test_unmoded_builtin(kernel):
    kernel.load_text("n(1). m(X) :- n(X), X < 3.")
    assert audit(kernel, "unmoded") == []
    kernel.retract("mode", "main", ("<", "ii"))
    (rid,) = _rule_ids_concluding(kernel, "m")
    assert audit(kernel, "unmoded") == [((rid,),)]
