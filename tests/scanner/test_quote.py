"""The scanner's quoting fast path renders exactly what engine.terms.quote renders."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rofl.engine.parse import parse_program
from rofl.engine.terms import quote as engine_quote
from rofl.scanner.schema import quote


@given(st.text())
def test_fast_quote_equals_engine_quote(text):
    assert quote(text) == engine_quote(text)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_quoted_strings_parse_back(text):
    (clause,) = parse_program(f'src_import[code]("p", {quote(text)}).')
    assert clause.head.args[1] == text
