"""Fact file names: every name the scanner gives has the shape loaders recognise as the scanner's (a leftover
of an interrupted scan is told from a hand-written file by that shape alone)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.scanner.factfile import fact_name, is_fact_name


@settings(max_examples=200, deadline=None)
@given(path=st.text(min_size=1, max_size=300), content_hash=st.text("0123456789abcdef", min_size=16, max_size=16))
def test_every_given_name_is_recognised(path, content_hash):
    name, digest = fact_name(path, content_hash, path.encode("utf-8", "surrogatepass"))
    assert is_fact_name(name)
    assert name.endswith(f".{content_hash[:12]}-{digest}.rofl")
    assert not name.split("/", 1)[1].startswith("-")


def test_hand_written_names_are_not_the_scanners():
    for name in ("code/mine.rofl", "code/a.0123456789ab.rofl", "extra/a.0123456789ab-0123456789abcdef.rofl"):
        assert not is_fact_name(name), name
