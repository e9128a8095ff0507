"""RE2 runs `matches` and `glob` where it reads a pattern as `re` does: the same answers as the automaton and `re.search`.

Patterns are generated from the subset RE2 is given (literals, `.`, classes, ranges, negation,
groups, alternation, bounded and unbounded repeats, greedy and lazy, `^`, `$`, `\\A`, `\\Z`, `(?s)`)
plus what stays with the automaton (`\\d`, `(?i)`, a `$` before more pattern); texts from a small
alphabet with newlines, so anchors and `.` meet their edge cases.  Python's `re.search` is the oracle.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine import text_builtins as T

pytest.importorskip("re2")

ALPHABET = "ab./\n"
LITERAL = st.sampled_from(["a", "b", "\\.", "/", "\\n", "é", "\\\\"])
CLASS = st.sampled_from(["[ab]", "[^a]", "[a-c]", "[^/]", "[.\\n]", "[^\\n]"])
ATOM = LITERAL | CLASS | st.just(".")


def _repeat(p: str, q: str) -> str:
    return f"(?:{p}){q}"


REGEX = st.recursive(
    ATOM,
    lambda sub: st.one_of(
        st.tuples(sub, sub).map("".join),
        st.tuples(sub, sub).map(lambda t: f"(?:{t[0]}|{t[1]})"),
        st.tuples(sub, st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "{0,2}?", "*?", "+?"])).map(
            lambda t: _repeat(*t)
        ),
        sub.map(lambda p: f"({p})"),
    ),
    max_leaves=6,
)
ANCHORED = st.tuples(
    st.sampled_from(["", "^", "\\A", "(?s)"]), REGEX, st.sampled_from(["", "$", "\\Z", "(?:/|$)"])
).map("".join)
TEXT = st.text(ALPHABET, max_size=12)


@settings(max_examples=400, deadline=None)
@given(ANCHORED, st.lists(TEXT, min_size=1, max_size=6))
def test_re2_answers_as_the_automaton_and_re_search(pattern, texts):
    matcher = T.regex(pattern)
    assert matcher.fast is not None, pattern  # the subset is given to RE2
    for text in texts:
        expected = re.search(pattern, text) is not None
        assert matcher.search(text) is expected, (pattern, text)
        assert matcher.automaton.search(text) is expected, (pattern, text)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["\\d", "(?i)A", "\\w+", "a$b", "a$\\n", "\\s"]).flatmap(lambda p: st.tuples(st.just(p), REGEX)),
    st.lists(st.text(ALPHABET + "A1 _", max_size=8), min_size=1, max_size=4),
)
def test_what_re2_reads_otherwise_stays_with_the_automaton(parts, texts):
    pattern = parts[0] + parts[1]
    matcher = T.regex(pattern)
    assert matcher.fast is None, pattern
    for text in texts:
        assert matcher.search(text) is (re.search(pattern, text) is not None), (pattern, text)


GLOB = st.lists(
    st.sampled_from(["src", "*", "**", "*.test.*", "a?", "[ab]", "[!a]", "__tests__"]), min_size=1, max_size=3
)
PATH = st.lists(st.sampled_from(["src", "a", "b", "x.test.ts", "__tests__", "ab", ".git"]), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(GLOB, st.sampled_from(["", "/"]), st.sampled_from(["", "/"]), st.lists(PATH, min_size=1, max_size=5))
def test_globs_run_by_re2_answer_as_the_automaton(segments, lead, trail, paths):
    pattern = lead + "/".join(segments) + trail
    if pattern.strip("/") == "":
        return
    matcher = T.glob_automaton(pattern)
    assert matcher.fast is not None, pattern
    for parts in paths:
        path = "/".join(parts)
        expected = re.search(T.glob_regex(pattern), path) is not None
        assert matcher.search(path) is expected is matcher.automaton.search(path), (pattern, path)


def test_a_path_with_a_lone_surrogate_is_matched_by_the_automaton():
    path = "src/\udcff/x.test.ts"  # an undecodable file name, as os.fsdecode gives it: RE2 cannot read it
    assert T.glob(path, "*.test.*") and T.matches(path, "^src/.*\\.ts$") and not T.matches(path, "^lib/")
