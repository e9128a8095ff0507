"""The columnar store file: restore(save(store)) is the store, each base string is written once, forgeries are refused.

Random stores hold terms of every kind (integers of any size and sign, strings with any code point,
lone surrogates included, atoms, nested compounds), several perspectives and fact metadata (who,
tick), relations whose rows differ in width and columns that mix kinds.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine import persist
from rofl.engine.base.errors import StoreFormatError
from rofl.engine.store import Store
from rofl.engine.terms import compound

TEXT = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from(["\udcff", "\n", '"', "\\"]), max_size=6)
ATOMIC = st.integers() | TEXT | st.sampled_from(["a", "b"]).map(lambda n: compound(n))
TERMS = st.recursive(
    ATOMIC,
    lambda sub: st.tuples(st.sampled_from(["f", "g"]), st.lists(sub, min_size=1, max_size=3)).map(
        lambda t: compound(t[0], *t[1])
    ),
    max_leaves=6,
)
COLUMN = st.sampled_from(["int", "str", "term", "const"])
META = st.tuples(st.none() | st.sampled_from(["user", "code"]), st.none() | st.integers(0, 3))


@st.composite
def stores(draw) -> Store:
    store = Store()
    store.tick = draw(st.integers(0, 5))
    for r in range(draw(st.integers(0, 4))):
        rel = f"rel{r}"
        kinds = draw(st.lists(COLUMN, max_size=3))
        const = draw(ATOMIC)
        facts = store.base[rel] = {}
        for _ in range(draw(st.integers(1, 12))):
            width = len(kinds) if draw(st.booleans()) or not kinds else draw(st.integers(0, 4))
            persp = draw(st.sampled_from(["main", "code", "user"]))
            args = []
            for c in range(width):
                kind = kinds[c] if c < len(kinds) else "term"
                strategy = {"int": st.integers(), "str": TEXT, "term": TERMS, "const": st.just(const)}[kind]
                args.append(draw(strategy))
            facts[(persp, *args)] = store.meta(*draw(META))
    return store


def _items(store: Store) -> list:
    return [(rel, list(store.base[rel].items())) for rel in store.relations()]


@settings(max_examples=150, deadline=None)
@given(stores(), st.data())
def test_restore_of_save_is_the_store_strings_are_written_once_and_damage_is_refused(store, draw):
    data = persist.dumps(store)
    start = data.index(b',"body":') + len(b',"body":')
    at = draw.draw(st.integers(start, len(data) - 3))
    byte = draw.draw(st.integers(0, 255).filter(lambda b: b != data[at]))
    with pytest.raises(StoreFormatError) as refused:  # any damaged byte of the body: one line naming the file
        persist.loads(data[:at] + bytes([byte]) + data[at + 1 :], "damaged.store")
    assert "\n" not in str(refused.value) and str(refused.value).startswith("damaged.store: ")
    restored = persist.loads(data)
    assert _items(restored) == _items(store)  # dumps put the store in canonical order: the same order
    assert restored.tick == store.tick and restored.counters == store.counters
    assert persist.dumps(restored) == data
    body = json.loads(data)["body"]
    assert len(body["strings"]) == len(set(body["strings"]))  # a string shared by many rows: written once


def test_a_string_of_a_million_rows_is_written_once():
    store = Store()
    store.base["f"] = {("main", i, "packages/shared/src/index.ts"): store.meta(None, 0) for i in range(2000)}
    data = persist.dumps(store)
    assert data.count(b"packages/shared/src/index.ts") == 1 and data.count(b'"main"') == 1
    assert _items(persist.loads(data)) == _items(store)


def _forge(data: bytes, edit) -> bytes:
    """The store file with its body edited and the checksum fixed to match (a forgery, not damage)."""
    doc = json.loads(data)
    edit(doc["body"])
    body = json.dumps(doc["body"], ensure_ascii=True, separators=(",", ":"))
    head = json.dumps(
        {"format": "rofl-store", "version": persist.VERSION, "sha256": hashlib.sha256(body.encode()).hexdigest()},
        separators=(",", ":"),
    )
    return (head[:-1] + ',"body":' + body + "}\n").encode()


def _sample() -> bytes:
    store = Store()
    store.base["f"] = {("main", i, f"s{i % 3}", compound("g", i)): store.meta("user", None) for i in range(5)}
    store.base["g"] = {("main", 1): store.meta(None, 0), ("code", 2): store.meta(None, 1)}
    return persist.dumps(store)


def _set_column(body: dict, rel: int, col: int, value) -> None:
    body["base"][rel][3][col] = value


FORGERIES = {
    "string_index_out_of_range": lambda b: _set_column(b, 0, 2, [99] * 5),
    "negative_string_index": lambda b: _set_column(b, 0, 2, [-1] * 5),
    "float_in_an_integer_column": lambda b: _set_column(b, 0, 1, [0.5] * 5),
    "bool_in_an_integer_column": lambda b: _set_column(b, 0, 1, [True] * 5),
    "short_column": lambda b: _set_column(b, 0, 1, [1, 2]),
    "unknown_kind": lambda b: b["base"][0].__setitem__(2, "cxyz"),
    "kinds_longer_than_columns": lambda b: b["base"][0].__setitem__(2, "cisti"),
    "perspective_not_a_string": lambda b: b["base"][0].__setitem__(3, [5, *b["base"][0][3][1:]]),
    "meta_index_out_of_range": lambda b: b["base"][0].__setitem__(1, 7),
    "meta_list_of_wrong_length": lambda b: b["base"][1].__setitem__(1, [0]),
    "meta_of_wrong_type": lambda b: b["metas"].append([5, "x"]),
    "string_table_with_a_number": lambda b: b["strings"].append(5),
    "relation_twice": lambda b: b["base"].append(b["base"][0]),
    "bad_term_in_a_term_column": lambda b: _set_column(b, 0, 3, [[]] * 5),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forged_store_is_refused_in_one_line(name):
    data = _sample()
    persist.loads(data)
    with pytest.raises(StoreFormatError, match="malformed") as refused:
        persist.loads(_forge(data, FORGERIES[name]), "forged.store")
    assert "\n" not in str(refused.value) and str(refused.value).startswith("forged.store: ")
