"""A cold load's reading of one fact file (``Loading.clauses``) gives the same clauses, the same
``(relation, perspective)`` pairs opened and the same shared values whether the file is read by the fast
reader of the scanner's lines or by ``parse_program``, with and without the relations a command leaves
out; a file with any line the fast reader does not know loads (or fails, with the same message) as
``parse_program`` reads it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine.base.errors import RoflError
from rofl.engine.parse import parse_program

from rofl.loading.factload import Loading
from tests.engine.test_factlines import KNOWN_TEXT, ODD_LINES, _fact, _fields, _file, _value

FILES = st.lists(_file(_fact(_value(KNOWN_TEXT)) | st.just('x[audit]("a").') | st.just("y[boot](1).")), max_size=4)


def _loads(loading: Loading, texts: list[str], read) -> list:
    """What ``read`` (a Loading's clauses) makes of each text in turn, the pairs it opened, and the memo."""
    out = []
    for n, text in enumerate(texts):
        clauses, opened = read(loading)(text, f"f{n}.rofl")
        loading.seen |= opened
        out.append((_fields(clauses), sorted(opened)))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FILES, st.sampled_from((None, 0, 1, 2)))
def test_a_file_loads_the_same_whichever_reader_reads_it(texts: list[str], dropping: int | None) -> None:
    keeps = None if dropping is None else (lambda rel: len(rel) % 3 != dropping)  # about a third left out
    fast, slow = Loading(keeps), Loading(keeps)
    assert _loads(fast, texts, lambda lo: lo.clauses) == _loads(slow, texts, lambda lo: lo._parsed)
    assert fast.seen == slow.seen


def test_the_values_of_a_fast_read_file_are_shared_with_the_other_files() -> None:
    loading = Loading()
    first, _ = loading.clauses('p[code]("a.ts", 7).\n', "a.rofl")
    second, _ = loading.clauses('q[code]("a.ts", 7, static).\n', "b.rofl")
    assert all(a is b for a, b in zip(first[0].head.args, second[0].head.args))


@pytest.mark.parametrize("odd", ODD_LINES)
def test_a_file_with_a_line_the_fast_reader_does_not_know_loads_as_parsed(odd: str) -> None:
    text = f'-- rofl scan facts for "a.ts"\nsrc_file[code]("a.ts", "1").\n{odd}\nsrc_line[code]("a.ts", 2).\n'
    try:
        expected = _fields(parse_program(text, "a.rofl"))
    except RoflError as exc:
        with pytest.raises(RoflError) as got:
            Loading().clauses(text, "a.rofl")
        assert str(got.value) == str(exc)
    else:
        assert _fields(Loading().clauses(text, "a.rofl")[0]) == expected
