"""`? L` in the REPL answers from the perspectives the asker (main) sees (kernel.md §5); `?? L` from every one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel

from rofl.repl import Repl
from tests.conftest import BOOT

PERSPS = ("a", "b", "c", "d")


def repl(text: str) -> Repl:
    kernel = Kernel(BOOT)
    kernel.load_text(text, "w.rofl")
    return Repl(kernel)


def answers(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith("--")]


def test_a_perspective_main_does_not_import_is_not_answered_from():
    r = repl("imports(main, a).\np(0).\np[a](1).\np[b](2).\n")
    out = r.execute("? p[S](X)")
    assert answers(out) == ["S = a, X = 1", "S = main, X = 0"]
    assert "-- 1 more from perspectives main does not see" in out and "?? p[S](X)" in out
    assert answers(r.execute("?? p[S](X)")) == ["S = a, X = 1", "S = b, X = 2", "S = main, X = 0"]
    assert answers(r.execute("? p[b](X)")) == ["no"]  # named, but hidden
    assert answers(r.execute("?? p[b](X)")) == ["X = 2"]
    assert answers(r.execute("? p[_](X)")) == ["X = 0", "X = 1"]  # an anonymous perspective too
    assert answers(r.execute("? p[a](1)")) == ["yes"]
    r.execute("q(X) :- p[b](X).")  # reads b without importing it or declaring a bridge
    assert answers(r.execute("? leak[audit](A, B)")) == ["A = b, B = main"]  # the kernel's namespaces stay readable
    assert "Q = main" in answers(r.execute("? sees[boot](main, Q)"))


def test_imports_are_followed_transitively_and_a_bridge_shows_its_source():
    r = repl("imports(main, a).\nimports(a, b).\np[b](2).\np[c](3).\np[d](4).\nbridge got(X) :- p[c](X).\n")
    assert answers(r.execute("? p[S](X)")) == ["S = b, X = 2", "S = c, X = 3"]
    assert answers(r.execute("? got(X)")) == ["X = 3"]


@settings(max_examples=25, deadline=None)
@given(
    st.sets(st.tuples(st.sampled_from(("main", *PERSPS)), st.sampled_from(PERSPS))),
    st.sets(st.tuples(st.sampled_from(("main", *PERSPS)), st.integers(0, 3)), min_size=1),
)
def test_visible_answers_are_the_facts_of_the_imports_closure(imports, facts):
    text = "".join(f"imports({p}, {q}).\n" for p, q in sorted(imports))
    text += "".join(f"p[{s}]({n}).\n" for s, n in sorted(facts))
    r = repl(text)
    seen, grew = {"main"}, True  # the oracle: reachability over the imports edges
    while grew:
        more = {q for p, q in imports if p in seen} - seen
        grew = bool(more)
        seen |= more
    expected = sorted(f"S = {s}, X = {n}" for s, n in facts if s in seen)
    out = r.execute("? p[S](X)")
    assert answers(out) == (expected or ["no"])
    hidden = len(facts) - len(expected)
    assert (f"-- {hidden} more" in out) == bool(hidden)
    assert answers(r.execute("?? p[S](X)")) == sorted(f"S = {s}, X = {n}" for s, n in facts)
