"""A premise joined on its pattern column (``engine.pattern_index``) derives what the pair loop derives.

``hit(F, W) :- pat(W, R), file(F), matches(F, R)`` is evaluated through a pattern index: every file
looks up the pattern rows it matches in one pass (``engine.text_builtins.MatcherSet``).  Python's
``re.search`` over every (pattern, text) pair is the oracle for ``matches``; for ``glob`` the regex a
glob stands for (``glob_regex``, whose agreement with git is tested in test_text_builtins).  Patterns
come from the subset RE2 runs and from what stays with the automaton, texts include non-strings and a
lone surrogate, and the pass RE2 abandons (out of memory) is simulated.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine import rulebook
from rofl.engine import text_builtins as T
from rofl.engine.kernel import Kernel
from rofl.engine.terms import format_term

from .test_re2_matching import ANCHORED, GLOB, PATH

pytest.importorskip("re2")

AUTOMATON_ONLY = st.sampled_from(["\\d", "(?i)A", "a$b", "\\s", "^a\\w"])  # RE2 would read these otherwise
PATTERN = ANCHORED | AUTOMATON_ONLY
TEXT = st.text("ab./\nA1 ", max_size=10) | st.just("src/\udcff/a")  # a lone surrogate: no UTF-8 for RE2


def _program(pats: list, files: list, op: str) -> str:
    facts = [f"pat(w{i}, {format_term(p)})." for i, p in enumerate(pats)]
    facts += [f"file({format_term(f)})." for f in files]
    return "\n".join([*facts, f"hit(F, W) :- pat(W, R), file(F), {op}(F, R)."])


def _hits(program: str) -> set[tuple]:
    """The answers to ``hit(F, W)``, the atom W by its name."""
    kernel = Kernel()
    kernel.load_text(program)
    return {(text, atom[0]) for text, atom in kernel.query("hit(F, W)").rows}


@pytest.fixture
def generated(monkeypatch) -> list[str]:
    """The generated source of every rule variant compiled while the test runs."""
    sources: list[str] = []
    compile_variant = rulebook.compile_variant

    def recorded(*args, **kwargs):
        fn = compile_variant(*args, **kwargs)
        sources.append(fn.source)
        return fn

    monkeypatch.setattr(rulebook, "compile_variant", recorded)
    return sources


@settings(max_examples=200, deadline=None)
@given(
    st.lists(PATTERN | st.integers(0, 3), min_size=1, max_size=6),
    st.lists(TEXT | st.integers(0, 3), min_size=1, max_size=6),
)
def test_a_pattern_join_derives_what_re_search_says_of_every_pair(pats, files):
    expected = {
        (text, f"w{i}")
        for i, p in enumerate(pats)
        for text in files
        if type(p) is str and type(text) is str and re.search(p, text)
    }
    found = _hits(_program(pats, files, "matches"))
    assert found == expected


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(GLOB, st.sampled_from(["", "/"]), st.sampled_from(["", "/"])), min_size=1, max_size=4),
    st.lists(PATH, min_size=1, max_size=5),
)
def test_a_glob_join_derives_what_each_globs_regex_says(globs, paths):
    pats = [lead + "/".join(segments) + trail for segments, lead, trail in globs]
    pats = [p for p in pats if p.strip("/")] or ["*"]
    files = ["/".join(parts) for parts in paths]
    expected = {(path, f"w{i}") for i, p in enumerate(pats) for path in files if re.search(T.glob_regex(p), path)}
    found = _hits(_program(pats, files, "glob"))
    assert found == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(PATTERN, min_size=1, max_size=8), st.lists(TEXT, min_size=1, max_size=6), st.booleans())
def test_a_matcher_set_lists_the_patterns_each_text_matches(patterns, texts, abandoned):
    matchers = T.MatcherSet(tuple(T.regex(p) for p in patterns))
    if abandoned and matchers._set is not None:  # RE2 gives up on a pass: it says "nothing", as out of memory

        class Abandoned:
            def Match(self, data):
                return []

        matchers._set = Abandoned()
    for text in texts:
        assert matchers.which(text) == [i for i, p in enumerate(patterns) if re.search(p, text)], text


def test_the_join_reads_the_pattern_index_and_the_pair_test_is_gone(generated):
    found = _hits(_program(["^src/", "test"], ["src/a.test.ts", "lib/b.ts"], "matches"))
    assert found == {("src/a.test.ts", "w0"), ("src/a.test.ts", "w1")}
    (source,) = [s for s in generated if "'hit'" in s]
    assert "pattern_index('pat'" in source and "_matches(" not in source


def test_a_premise_joined_on_another_column_keeps_its_index(generated):
    """``pat`` shares ``W`` with ``owner``: the rule joins on it, the pattern test stays a test."""
    program = "\n".join(
        [
            'pat(w, "^src/"). pat(v, "^lib/"). owner(w, "src/a"). owner(v, "src/b").',
            "hit(F, W) :- owner(W, F), pat(W, R), matches(F, R).",
        ]
    )
    assert _hits(program) == {("src/a", "w")}
    (source,) = [s for s in generated if "'hit'" in s]
    assert "pattern_index" not in source


def test_a_refused_pattern_in_a_joined_premise_is_the_error_the_pair_loop_gives(rofl, tmp_path):
    program = tmp_path / "p.rofl"
    program.write_text(
        'file("a"). pattern(ok, "^a"). pattern(bad, "(?=a)").\nm(F, W) :- pattern(W, P), file(F), matches(F, P).\n'
    )
    code, _, err = rofl("ask", "m(F, W)", program)
    assert code == 2 and "look-ahead" in err and len(err.strip().splitlines()) == 1


def test_thousands_of_patterns_are_one_set_and_answer_as_each_alone():
    """A large pattern column (a glob per package) is still one RE2 pass, with the answers of each pattern."""
    globs = [f"packages/p{i}/**/*.test.{i % 7}.ts" for i in range(4000)]  # past RE2's default budget for a set
    matchers = T.MatcherSet(tuple(T.glob_automaton(g) for g in globs))
    assert matchers._set is not None
    for path in [
        "packages/p21/src/a.test.0.ts",
        "packages/p22/a.test.0.ts",
        "packages/p2999/x/y.test.3.ts",
        "lib/x.ts",
    ]:
        assert matchers.which(path) == [i for i, g in enumerate(globs) if re.search(T.glob_regex(g), path)], path


def test_a_fact_a_pattern_join_derived_has_its_proof(rofl, tmp_path):
    program = tmp_path / "p.rofl"
    program.write_text(
        'pat(a, "^x"). pat(b, "y$"). file("x/y"). file("z").\nhit(F, W) :- pat(W, R), file(F), matches(F, R).\n'
    )
    code, out, _ = rofl("why", 'hit("x/y", b)', program)
    assert code == 0 and 'pat[main](b, "y$")' in out and 'matches("x/y", "y$")    -- builtin holds' in out
    code, out, _ = rofl("whynot", 'hit("z", a)', program)
    assert code == 0 and 'matches("z", "^x")    -- fails' in out
