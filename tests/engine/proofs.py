"""A derivation tree checked against the full evaluation, step by step (tests of why and of witnesses)."""

from __future__ import annotations

from rofl.engine.base.errors import UnknownRelation
from rofl.engine.kernel import Kernel

from tests.conftest import BOOT


def assert_valid_proof(k: Kernel, full, node) -> int:
    """Check a derivation tree against the full evaluation ``full`` of kernel ``k``: it is well-founded (no
    fact rests on itself), every fact in it holds there, a base leaf is a base fact, a negated premise holds nowhere, and each derived fact follows by its
    rule from its positive premises alone (re-derived in a kernel holding only those and the rule).  The
    tree's depth."""

    def lit_of(text: str):
        (lit,) = k.question(text).literals
        return lit

    fact = lit_of(node.text)
    assert full.holds(fact.rel, (fact.persp, *fact.args)), node.text
    if node.kind == "base":
        assert (fact.persp, *fact.args) in k.store.base.get(fact.rel, {}), node.text
        return 1
    assert node.kind == "derived" and node.rule_text is not None, node
    premises: list[str] = []
    depth = 0
    for child in node.children:
        if child.kind == "negation":  # no fact matches the negated literal (a relation nothing defines: none)
            try:
                assert not k.query(child.text.removeprefix("not ")).rows, child.text
            except UnknownRelation:
                pass
        elif child.kind in ("base", "derived"):
            assert not child.text.endswith(" (see above)"), child.text  # well-founded: never rests on itself
            premises.append(child.text + ".\n")
            depth = max(depth, assert_valid_proof(k, full, child))
        else:
            assert child.kind == "builtin", child
    step = Kernel(BOOT)
    step.load_text("".join(premises) + node.rule_text)
    assert step.evaluate().holds(fact.rel, (fact.persp, *fact.args)), (node.text, premises, node.rule_text)
    return depth + 1
