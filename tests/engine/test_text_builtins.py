"""matches(Text, Regex) and glob(Text, Pattern): Python's re and git's own .gitignore matching as oracles,
linear time on the pattern that makes re backtrack, refusals that name the line."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.text_builtins import PatternError, glob, glob_regex, matches

# -- matches: the same answers as re.search --------------------------------------------------------


def _regex():
    """Random regexes over a small alphabet: classes, categories, groups, alternation, every quantifier,
    anchors, (?i) and (?s)."""
    atom = st.sampled_from(
        ["a", "b", "A", "/", r"\.", ".", "[ab]", "[^a]", "[a-cX-Z]", r"\d", r"\w", r"\W", r"\s", r"\S", "x", r"\Z", "é"]
    )

    def extend(inner):
        quant = st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "*?", "+?", ""])
        group = st.builds(lambda body, q: f"(?:{body}){q}", inner, quant)
        alt = st.builds(lambda a, b: f"{a}|{b}", inner, inner)
        seq = st.builds(lambda a, b: a + b, inner, inner)
        return group | alt | seq | st.builds(lambda a, q: a + q, atom, quant)

    body = st.recursive(atom, extend, max_leaves=6)
    flags = st.sampled_from(["", "(?i)", "(?s)", "(?is)"])
    anchor = st.sampled_from(["", "^", r"\A"])
    return st.builds(lambda f, lead, b, tail: f + lead + b + tail, flags, anchor, body, st.sampled_from(["", "$"]))


@settings(max_examples=300, deadline=None)
@given(pattern=_regex(), text=st.text(alphabet="abAB/.x1 \néÉ_", max_size=10))
def test_matches_agrees_with_re_search(pattern, text):
    try:
        compiled = re.compile(pattern)
    except re.error:  # Python refuses it (a quantified anchor): so do we, with Python's message
        with pytest.raises(PatternError, match="not a valid regular expression"):
            matches(text, pattern)
        return
    assert matches(text, pattern) == bool(compiled.search(text)), (pattern, text)


def test_the_backtracking_pattern_runs_in_linear_time():
    # re.search("(a+)+$", "a" * 30 + "!") takes minutes; the automaton reads the text once.
    evil = "a" * 20_000 + "!"
    assert matches(evil, "(a+)+$") is False
    assert matches(evil[:-1], "(a+)+$") is True
    assert matches(evil, "^(a|aa)*!$") is True
    # the answer is re's on a text short enough for re to finish
    assert matches("aaaaaaaaaaaa!", "(a+)+$") == bool(re.search("(a+)+$", "aaaaaaaaaaaa!"))


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a)\1", "back-reference"),
        (r"(?=a)b", "look-ahead"),
        (r"(?<!a)b", "look-around"),
        (r"\bsrc", "word boundary"),
        (r"a*+", "possessive"),
        (r"(?m)^a", "(?m)"),
        ("(", "not a valid regular expression"),
        ("(?:a{1,100}){1,100}", "too large"),
        ("a" * 1001, "limit is 1000"),
    ],
)
def test_patterns_that_cannot_run_in_linear_time_are_refused(pattern, why):
    with pytest.raises(PatternError, match=re.escape(why)):
        matches("a", pattern)


def test_matches_only_holds_for_strings():
    assert matches(("atom",), "atom") is False
    assert matches(12, "1") is False


# -- glob: the same answers as git gives for a .gitignore holding the one pattern -----------------------

SEGMENTS = ["a", "b", "ab", "a.ts", "b.test.ts", "__tests__", ".x"]
PATTERN_PARTS = ["a", "b", "*", "?", "**", "*.ts", "*.test.*", "[ab]", "[!a]*", "a*", "__tests__", ".*"]


@pytest.fixture(scope="module")
def git_ignores(tmp_path_factory):
    """``ignored(pattern, path)``: does `git check-ignore` ignore the path (a file) under that one pattern?"""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("gitignore")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def ignored(pattern: str, path: str) -> bool:
        (repo / ".gitignore").write_text(pattern + "\n")
        done = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=repo)
        assert done.returncode in (0, 1), done
        return done.returncode == 0

    return ignored


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(st.sampled_from(PATTERN_PARTS), min_size=1, max_size=4),
    lead=st.booleans(),
    trail=st.booleans(),
    path=st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4),
)
def test_glob_agrees_with_git_check_ignore(git_ignores, parts, lead, trail, path):
    pattern = ("/" if lead else "") + "/".join(parts) + ("/" if trail else "")
    text = "/".join(path)
    assert glob(text, pattern) == git_ignores(pattern, text), (pattern, text, glob_regex(pattern))


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        ("src/ui/button.tsx", "src/ui", True),  # a folder matches what it holds
        ("src/uikit/button.tsx", "src/ui", False),
        ("packages/a/src/x.test.ts", "*.test.*", True),  # no slash: any depth
        ("lib/src/ui/x.ts", "/src/ui", False),  # a leading slash anchors at the root
        ("lib/src/ui/x.ts", "src/ui", False),  # so does a slash in the middle
        ("a/__tests__/b.ts", "__tests__/", True),
        ("a/__tests__", "__tests__/", False),  # a trailing slash: folders only
        ("src/a/b/c.ts", "src/**/*.ts", True),
        ("src/c.ts", "src/**/*.ts", True),
        ("src/a/c.ts", "src/*.ts", False),  # one * never crosses a /
    ],
)
def test_glob_semantics_a_user_relies_on(text, pattern, expected):
    assert glob(text, pattern) is expected


def test_glob_negation_is_written_with_not():
    with pytest.raises(PatternError, match="not glob"):
        glob("a", "!a")


# -- in rules and questions ---------------------------------------------------------------------------

PROGRAM = r"""
file("src/ui/button.tsx"). file("src/db/conn.ts"). file("src/ui/__tests__/button.test.ts").
ui_code(F) :- file(F), glob(F, "src/ui/"), not glob(F, "__tests__/").
typescript(F) :- file(F), matches(F, "\\.tsx?$"), not matches(F, "^src/db/").
"""


def test_builtins_in_rules_answer_and_explain(rofl, tmp_path):
    program = tmp_path / "p.rofl"
    program.write_text(PROGRAM)
    code, out, _ = rofl("ask", "ui_code(F)", program)
    assert (code, out.split()) == (0, ["F", "=", '"src/ui/button.tsx"'])
    code, out, _ = rofl("ask", "typescript(F)", program, "--json")
    assert code == 0 and '"src/db/conn.ts"' not in out and '"src/ui/button.tsx"' in out
    code, out, _ = rofl("why", 'ui_code("src/ui/button.tsx")', program)
    assert code == 0
    assert 'glob("src/ui/button.tsx", "src/ui/")' in out
    assert 'not glob("src/ui/button.tsx", "__tests__/")' in out


def test_a_refused_constant_pattern_names_its_file_and_line(rofl, tmp_path):
    program = tmp_path / "p.rofl"
    program.write_text('file("a").\n\nbad(F) :- file(F), matches(F, "(a)\\\\1").\n')
    code, out, err = rofl("ask", "bad(F)", program)
    assert code == 2
    assert f"{program}:3:" in err and "back-reference" in err and "Traceback" not in err


def test_a_refused_pattern_from_a_fact_is_one_line(rofl, tmp_path):
    program = tmp_path / "p.rofl"
    program.write_text('file("a"). pattern("(?=a)").\nbad(F) :- file(F), pattern(P), matches(F, P).\n')
    code, _, err = rofl("ask", "bad(F)", program)
    assert code == 2 and "look-ahead" in err and len(err.strip().splitlines()) == 1


def test_a_builtin_call_with_the_wrong_shape_is_a_syntax_error(rofl, tmp_path):
    program = tmp_path / "p.rofl"
    program.write_text('file("a").\nbad(F) :- file(F), glob(F).\n')
    code, _, err = rofl("ask", "bad(F)", program)
    assert code == 2 and "glob(Text, Pattern)" in err


LITERAL_PARTS = [*PATTERN_PARTS, "\\*", "\\?", "x\\", "[!b]a", "[a-c]b", "ab*ba", "?b", "a.b"]


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(LITERAL_PARTS), min_size=1, max_size=4),
    lead=st.booleans(),
    trail=st.booleans(),
    path=st.lists(st.sampled_from([*SEGMENTS, "*", "a*b", "?", "x\\", "ab", "ba.b", "b"]), min_size=1, max_size=4),
)
def test_the_literal_prefilter_never_changes_a_glob(parts, lead, trail, path):
    """A glob's required texts (``glob_literals``) only answer "no" early: the answer is its regex's."""
    pattern = ("/" if lead else "") + "/".join(parts) + ("/" if trail else "")
    text = "/".join(path)
    try:
        expected = re.search(glob_regex(pattern), text) is not None
    except PatternError:
        return
    assert glob(text, pattern) == expected, (pattern, text, glob_regex(pattern))
