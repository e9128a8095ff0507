"""The fast reader of the scanner's fact lines gives exactly the clauses ``parse_program`` gives (relation,
perspective, arguments with their types, temporal, line, column), shares equal values through the memo,
and refuses (None) every text with a line it does not know, so that the general parser reads it (same
clauses, same errors); every real fact file of the bench caches is read by it, equal to the parser."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine.factlines import fact_clauses, read_facts
from rofl.engine.parse import parse_program
from rofl.engine.terms import format_term

NAMES = st.from_regex(r"[a-z][A-Za-z0-9_]{0,6}", fullmatch=True)
KEYWORDS = ("not", "is", "mod", "want", "bridge")
# what the scanner writes: any text (quotes, backslashes, unicode, newlines, control characters)
ANY_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from('"\\\n\t\r\x00\x7f\u2028é𝄞'), max_size=12)
# texts whose quoted form the fast reader knows (no control character nor DEL, but \n \t \r)
KNOWN_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")) | st.sampled_from('"\\\n\t\r'), max_size=12
)
INTS = st.integers(-(10**30), 10**30) | st.integers(-3, 3)


def _value(text: st.SearchStrategy) -> st.SearchStrategy:
    return text | INTS | NAMES.map(lambda n: (n,))


def _fact(value: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        lambda rel, persp, args, temporal: (
            f"{rel}{f'[{persp}]' if persp else ''}({', '.join(format_term(a) for a in args)}){temporal}."
        ),
        NAMES,
        st.none() | NAMES,
        st.lists(value, min_size=1, max_size=5),
        st.sampled_from(("", "", "@init", "@now")),
    )


def _file(fact: st.SearchStrategy) -> st.SearchStrategy:
    line = fact | st.just("") | st.just('-- rofl scan facts for "a.ts"')
    return st.lists(line, max_size=8).map("\n".join) | st.lists(fact, max_size=8).map(lambda ls: "\n".join(ls) + "\n")


def _typed(term: object) -> object:
    """``term`` with the type of every value beside it (so 1 and True, or "a" and ("a",), differ)."""
    if isinstance(term, tuple):
        return ("tuple", tuple(_typed(t) for t in term))
    return (type(term).__name__, term)


def _fields(clauses: list) -> list:
    return [
        (
            c.head.rel,
            _typed(c.head.persp),
            _typed(c.head.args),
            c.head.temporal,
            c.body,
            c.want,
            c.bridge,
            c.line,
            c.col,
        )
        for c in clauses
    ]


def _same_as_parser(text: str) -> list | None:
    fast = fact_clauses(text, {})
    if fast is not None:
        assert _fields(fast) == _fields(parse_program(text, "f.rofl"))
    return fast


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_file(_fact(_value(KNOWN_TEXT))))
def test_scanner_fact_files_are_read_fast_and_equal_to_the_parser(text: str) -> None:
    words = {w.strip("()[],.@") for w in text.replace("(", " ").replace(",", " ").split()}
    fast = _same_as_parser(text)
    assert fast is not None or not words.isdisjoint(KEYWORDS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_file(_fact(_value(ANY_TEXT))))
def test_any_fact_file_read_fast_equals_the_parser(text: str) -> None:
    _same_as_parser(text)


# lines the reader does not know (some valid ROFL, some errors): each sends the whole text to the parser
ODD_LINES = (
    "p(X) :- q(X).",
    ' r("a").',
    'r("a") .',
    'r("a",  "b").',
    'r("a","b").',
    "r(007).",
    "r(X).",
    'r("\\q").',
    'r("\\u{41}").',
    "r(1)@next.",
    "not(1).",
    "r(is).",
    "r(f(a)).",
    'r("a").\r',
    'r("a")',
    'r("a).',
    'r("a"). -- note',
    "  -- indented comment",
    " ",
    'r("a\tb").',
    "r(1.5).",
    'R("a").',
    'r[X]("a").',
    "r(- 1).",
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_file(_fact(_value(KNOWN_TEXT))), st.integers(0, 8), st.sampled_from(ODD_LINES))
def test_a_line_the_reader_does_not_know_sends_the_text_to_the_parser(text: str, at: int, odd: str) -> None:
    lines = text.split("\n")
    lines.insert(min(at, len(lines)), odd)
    memo: dict = {}
    assert read_facts("\n".join(lines), memo) is None
    assert memo == {}  # nothing of a text the parser reads is shared


def test_equal_values_are_the_ones_the_memo_met_first() -> None:
    memo: dict = {}
    first = read_facts('r[code]("a/b.ts", 12345678901, x).\n', memo)
    second = read_facts('-- c\ns[code]("a/b.ts", 12345678901, x)@init.\n', memo)
    assert first is not None and second is not None
    assert all(a is b for a, b in zip(first[0][2], second[0][2]))
    assert second[0][3:] == ("init", 2) and first[0][1] is second[0][1]


def test_a_long_integer_reads_as_the_parser_reads_it() -> None:
    """Read as Python reads integers: whole when the limit is off (the command line turns it off), else refused
    here and by the parser."""
    text = f"r({'9' * 5000}, -{'1' * 4400}).\n"
    limit = sys.get_int_max_str_digits()
    try:
        sys.set_int_max_str_digits(0)
        assert _same_as_parser(text) is not None
        sys.set_int_max_str_digits(4300)
        assert read_facts(text, {}) is None
        with pytest.raises(ValueError):
            parse_program(text)
    finally:
        sys.set_int_max_str_digits(limit)


BENCH = Path(__file__).resolve().parents[2] / "bench" / ".cache"


def _real_fact_files() -> list[Path]:
    """The fact files of the scans the benches keep (real repositories and the 2,000-file monorepo)."""
    folders = [*BENCH.glob("facts/*/manifest.json"), *BENCH.glob("commands/*/*/*/manifest.json")]
    return sorted(path for manifest in folders for path in manifest.parent.glob("**/*.rofl"))


def _check_real(files: list[Path]) -> None:
    if not files:
        pytest.skip("no fact files under bench/.cache (run bench/commands_bench.py first)")
    for path in files:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        fast = fact_clauses(text, {})
        assert fast is not None, f"{path}: a scanner file the fast reader does not know"
        assert _fields(fast) == _fields(parse_program(text, str(path))), path


def test_a_sample_of_the_real_fact_files_is_read_fast_and_equal() -> None:
    _check_real(_real_fact_files()[::400])


@pytest.mark.slow
def test_every_real_fact_file_is_read_fast_and_equal() -> None:
    _check_real(_real_fact_files())
