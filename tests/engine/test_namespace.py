"""Boot's relations are private: a user may name relations exactly as boot names its helpers and audits,
and gets exactly their own answers, while boot goes on stratifying and auditing."""

from __future__ import annotations

import pytest
from rofl.engine import vocabulary as V
from rofl.engine.base.errors import LoadRejected
from rofl.engine.clauses import Literal, Negated
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program

from tests.conftest import BOOT


def boot_names() -> list[str]:
    """Every relation name boot.rofl writes or reads, except the kernel's own and `imports` (the
    visibility configuration users are meant to write)."""
    names = set()
    for clause in parse_program(BOOT.read_text(encoding="utf-8"), str(BOOT)):
        for item in (clause.head, *clause.body):
            lit = item.lit if isinstance(item, Negated) else item
            if isinstance(lit, Literal):
                names.add(lit.rel)
    return sorted(names - V.RESERVED_SET - {"imports"})


UBASE = {(1, "a"), (2, "b"), (3, "c")}


def user_program(names: list[str]) -> tuple[str, dict]:
    """Each name gets a fact of its own and a rule reading the next name under negation (stratified for
    the user in that order); the expected answers, computed here."""
    lines = [f"ubase({n}, {s})." for n, s in sorted(UBASE)]
    expected: dict[str, set] = {}
    following: set = set()
    for i, name in reversed(list(enumerate(names))):
        lines.append(f"{name}(9, z{i}).")
        if i == len(names) - 1:
            lines.append(f"{name}(X, Y) :- ubase(X, Y), X > 1.")
            derived = {(n, s) for n, s in UBASE if n > 1}
        else:
            lines.append(f"{name}(X, Y) :- ubase(X, Y), not {names[i + 1]}(X, Y).")
            derived = UBASE - following
        expected[name] = derived | {(9, f"z{i}")}
        following = expected[name]
    return "\n".join(lines) + "\n", expected


def answers(k: Kernel, name: str) -> set:
    return {(n, s[0]) for n, s in k.query(f"{name}(N, S)").rows}


@pytest.mark.parametrize("order", ["sorted", "reversed"])
def test_a_user_reusing_every_boot_name_gets_exactly_their_own_answers(order):
    names = boot_names()
    assert {"dep", "dep_neg", "reach", "unstratified", "stratum", "sees", "perspective", "malformed", "leak"} <= set(
        names
    )
    if order == "reversed":
        names = names[::-1]
    text, expected = user_program(names)
    k = Kernel(BOOT)
    k.load_text(text + "w[p](X) :- ubase(X, _).\n")  # a leak, for boot to find
    for name in names:
        assert answers(k, name) == expected[name], name
    # boot still works: strata of the user's relations, the audits, rejection of a real negative cycle
    assert k.outcome.strata[names[0]] == len(names) - 1
    assert k.query("leak[audit](A, B)").rows == ((("main",), ("p",)),)
    assert k.query("malformed[audit](R)").rows == ()
    before = k.facts()
    with pytest.raises(LoadRejected, match="unstratified") as err:
        k.load_text("cyc(X) :- ubase(X, _), not cyc2(X).\ncyc2(X) :- cyc(X).")
    assert "reach[boot]" in err.value.trace
    assert k.facts() == before


def test_the_textbook_reach_program_answers_13_rows():
    k = Kernel(BOOT)
    k.load_text(
        "link(n1, n2). link(n2, n3). link(n3, n1). link(n3, n4). link(n5, n4).\n"
        "reach(X, Y) :- link(X, Y).\nreach(X, Z) :- reach(X, Y), link(Y, Z).\n"
    )
    assert len(k.query("reach(X, Y)").rows) == 13


def test_user_facts_named_like_boot_helpers_do_not_unstratify_a_program():
    k = Kernel(BOOT)
    k.load_text(
        "dep(p, q). dep_neg(p, q). reach(q, p). unstratified(p). stratum(p, 7).\n"
        "e(1). p(X) :- e(X), not q(X). q(X) :- e(X), X > 1."
    )
    assert k.query("p(X)").rows == ((1,),)
    assert k.query("unstratified(X)").rows == ((("p",),),)  # the user's own fact, nothing else


def test_boot_perspective_is_read_only_for_users():
    k = Kernel(BOOT)
    for text in ("dep[boot](a, b).", "sees[boot](X, X) :- e(X)."):
        with pytest.raises(LoadRejected, match=r"perspective \[boot\] is private"):
            k.load_text(text)
    k.load_text("e(1).\nmine(P) :- perspective[boot](P).")
    assert ("main",) in {r[0] for r in k.query("mine(P)").rows}
    # reading [boot] from [main] without imports(main, boot) is a leak like any other
    assert k.query("leak[audit](A, B)").rows == ((("boot",), ("main",)),)
