"""An answer's JSON is what its fields say: names, omissions, inlined objects, skipped fields, nested values of any kind."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rofl.questions.answer import doc, skip, to_json


@dataclass(frozen=True, slots=True)
class Leaf:
    name: str = doc("a name", json="title")
    note: str | None = doc("omitted when None", omit_none=True, default=None)
    hidden: int = skip(0)


@dataclass(frozen=True, slots=True)
class Extra:
    more: int = doc("joins its parent", default=0)


@dataclass(frozen=True, slots=True)
class Empty:
    only: int = skip(1)


@dataclass(frozen=True, slots=True)
class Node:
    items: Any = doc("anything")
    extra: Extra = doc("inlined", inline=True, default=Extra())
    empty: Empty = doc("a dataclass with no JSON field", default=Empty())


class Knows:
    def __init__(self, value: int) -> None:
        self.value = value

    def __json__(self) -> dict:
        return {"knows": self.value}


def reference(value: Any) -> Any:
    """The JSON as the field metadata defines it, written plainly (the fast path must agree)."""
    if hasattr(value, "__json__"):
        return value.__json__()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            if f.metadata.get("skip"):
                continue
            item = getattr(value, f.name)
            if item is None and f.metadata.get("omit_none"):
                continue
            if f.metadata.get("inline"):
                out.update(reference(item))
                continue
            out[f.metadata.get("json") or f.name] = reference(item)
        return out
    if isinstance(value, (frozenset, set)):
        return [reference(v) for v in sorted(value)]
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [reference(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): reference(v) for k, v in value.items()}
    return value


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5))
leaves = st.builds(Leaf, st.text(max_size=5), st.one_of(st.none(), st.text(max_size=3)), st.integers())
values = st.recursive(
    st.one_of(scalars, leaves, st.builds(Knows, st.integers()), st.frozensets(st.integers(), max_size=4)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.builds(Node, inner, st.builds(Extra, st.integers())),
    ),
    max_leaves=20,
)


@given(values)
def test_the_json_of_any_answer_value_follows_its_field_metadata(value):
    assert to_json(value) == reference(value)


def test_a_dataclass_with_no_json_field_is_an_empty_object():
    assert to_json(Node(items=(Leaf("a", hidden=3),))) == {"items": [{"title": "a"}], "more": 0, "empty": {}}
