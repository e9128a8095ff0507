"""Saving and restoring a whole store: a versioned, checksummed, canonically ordered JSON document.

Format ``rofl-store`` version 3 (one JSON object, UTF-8, no insignificant white space):

  {"format": "rofl-store", "version": 3, "sha256": <hex of the body's canonical JSON>, "body": {
     "tick": T, "counters": {...},
     "strings":    [s0, s1, ...]                                     the strings of the base columns, once each
     "metas":      [[who_or_null, tick_or_null], ...]                the distinct fact metadata
     "base":       [[rel, meta, kinds, columns], ...]                one entry per relation, by name; its rows
                                                                     in canonical order, column by column:
                                                                     ``kinds`` one letter a column ("s": string
                                                                     ids into ``strings``, "i": integers, "t":
                                                                     terms, "c": one integer or string in every
                                                                     row), or "r" with ``columns`` the row
                                                                     list when rows differ in width; ``meta``
                                                                     an index into ``metas`` for every row, or
                                                                     a list of one index a row
     "history":    [[rel, row, rule_id, first, last], ...]          provenance frozen at tick boundaries:
                                                                     the rule derived the fact at every
                                                                     tick first..last
     "past":       [[rel, row, rule_id, tick], ...]                  facts installed from a finished tick
     "tick_log":   [[tick, [[rel, row], ...]], ...]
     "provenance": [[rel, row, rule_id, witness_rows, support, [extra rule ids]], ...]  current tick
  }}

Versions 1 and 2 wrote ``"base": [[rel, row, who_or_null, tick_or_null], ...]`` (and version 1 the
history as ``[rel, row, rule_id, tick]``); both are still read.  The columns make saving and restoring
a million facts a few C-level passes (``zip``, ``map``, one ``json`` call) instead of a Python loop
over every row.

A term is encoded as JSON: an integer as a number, a string as a string, an atom or compound
``f(a, b)`` as the list ``["f", a, b]`` (the tuple the kernel holds, which ``json`` writes as an
array).  Rules travel as their reflected facts, so restoring never
parses source text, and nothing in the file is ever executed (no pickle).  A file whose checksum does
not match, or of another format or a newer version, is refused before anything is loaded.
"""

from __future__ import annotations

import hashlib
import json
from itertools import repeat
from operator import itemgetter
from pathlib import Path

from .base import safe_write
from .base.errors import RoflError, StoreFormatError
from .store import Store
from .terms import compound, fact_key

FORMAT = "rofl-store"
VERSION = 3


def decode(value):
    if type(value) is list:
        if not value or type(value[0]) is not str:
            raise StoreFormatError("a compound term must start with its name")
        return compound(value[0], *[decode(a) for a in value[1:]])
    if type(value) in (int, str):
        return value
    raise StoreFormatError(f"not a term: {value!r}")


def _unrow(values) -> tuple:
    if type(values) is not list or not values or type(values[0]) is not str:
        raise StoreFormatError("a row must start with its perspective")
    return tuple([v if type(v) is int or type(v) is str else decode(v) for v in values])


def _key(rel: str, row: tuple) -> tuple:
    return (rel, fact_key(row))


def _base_columns(store: Store) -> tuple[list, list, list]:
    """The base facts column by column: ``(strings, metas, base)`` of the version 3 body."""
    strings: dict[str, int] = {}
    metas: dict[tuple, int] = {}
    base: list = []
    for rel in store.relations():
        facts = store.sorted_rows(rel)
        values = list(facts.values())
        ids = set(map(id, values))  # the store shares one FactMeta per (who, tick)
        by_id = {id(values[0]): values[0]} if len(ids) == 1 else dict(zip(map(id, values), values))
        index = {}
        for key, m in by_id.items():
            index[key] = metas.setdefault((m.who, m.tick), len(metas))
        meta = index.popitem()[1] if len(index) == 1 else list(map(index.__getitem__, map(id, values)))
        rows = list(facts)
        widths = set(map(len, rows))
        if len(widths) != 1:
            base.append([rel, meta, "r", rows])
            continue
        kinds = []
        columns: list = []
        for c in range(widths.pop()):
            col = list(map(itemgetter(c), rows))  # zip(*rows) would make an iterator a row
            types = set(map(type, col))
            if len(col) > 1 and (types == {str} or types == {int}) and len(set(col)) == 1:
                kinds.append("c")  # one value in every row: a perspective, usually
                columns.append(col[0])
            elif types == {str}:
                for text in dict.fromkeys(col):
                    if text not in strings:
                        strings[text] = len(strings)
                kinds.append("s")
                columns.append(list(map(strings.__getitem__, col)))
            elif types == {int}:
                kinds.append("i")
                columns.append(col)
            else:
                kinds.append("t")
                columns.append(col)
        base.append([rel, meta, "".join(kinds), columns])
    return list(strings), [list(key) for key in metas], base


def body_of(store: Store, result=None) -> dict:
    strings, metas, base = _base_columns(store)
    prov = []
    if result is not None:
        for rel, row, p in result.derived():
            prov.append([rel, row, p.rule, [w for _, w in p.witness], p.support, sorted(p.rules[1:])])
    return {
        "tick": store.tick,
        "counters": dict(sorted(store.counters.items())),
        "strings": strings,
        "metas": metas,
        "base": base,
        "history": store.history.canonical(),
        "past": [
            [rel, row, rid, tick] for (rel, row), (rid, tick) in sorted(store.past.items(), key=lambda kv: _key(*kv[0]))
        ],
        "tick_log": [[tick, [[rel, row] for rel, row in facts]] for tick, facts in store.tick_log],
        "provenance": prov,
    }


def dumps(store: Store, result=None) -> bytes:
    # ensure_ascii: any string survives, lone surrogates from undecodable file names included
    body = json.dumps(body_of(store, result), ensure_ascii=True, separators=(",", ":"))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    head = json.dumps({"format": FORMAT, "version": VERSION, "sha256": digest}, separators=(",", ":"))
    return (head[:-1] + ',"body":' + body + "}\n").encode("utf-8")


def save(path: str | Path, store: Store, result=None) -> int:
    """Write the store atomically (``result``: the current ``engine.result.Result``, whose provenance
    records are written too); return the number of bytes written."""
    data = dumps(store, result)
    path = Path(path)
    if not path.name:
        raise RoflError(f"{path}: not a file name; give the store file to write")
    try:
        safe_write.write_atomic(str(path), data)  # an exclusive temporary, never a planted link
    except OSError as exc:
        raise RoflError(f"{path}: cannot write the store ({exc.strerror}); choose a writable file path") from None
    return len(data)


def loads(data: bytes, source: str = "<store>") -> Store:
    try:
        text = data.decode("utf-8")
        doc = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreFormatError(
            f"{source}: not a rofl store file ({exc.__class__.__name__}); save it again with `rofl save`"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StoreFormatError(f"{source}: not a rofl store file; save it again with `rofl save`")
    version = doc.get("version")
    if type(version) is not int or version < 1:
        raise StoreFormatError(
            f"{source}: the store format version {version!r} is not one rofl writes; save the store again"
        )
    if version > VERSION:
        raise StoreFormatError(
            f"{source}: store format version {version} is newer than this rofl reads ({VERSION}); upgrade rofl"
        )
    start = text.find(',"body":')
    body_text = text[start + len(',"body":') : text.rstrip().rfind("}")] if start >= 0 else ""
    if hashlib.sha256(body_text.encode("utf-8")).hexdigest() != doc.get("sha256"):
        raise StoreFormatError(
            f"{source}: the store file is corrupt (checksum mismatch); restore from a good copy or save again"
        )
    try:
        return _build(doc["body"], version)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, StoreFormatError) as exc:
        raise StoreFormatError(f"{source}: the store file is malformed ({exc}); save it again") from None


MAX_STORE_BYTES = 1 << 34  # as rofl/cache.py's bound on a compiled store


def load(path: str | Path) -> Store:
    try:
        data = safe_write.read_regular(path, MAX_STORE_BYTES)  # a FIFO or /dev/zero is refused, never read
    except FileNotFoundError:
        raise StoreFormatError(f"{path}: no such store file; create one with `rofl save`") from None
    except OSError as exc:
        raise StoreFormatError(f"{path}: cannot read ({exc.strerror})") from None
    return loads(data, str(path))


def _only(values: list, kinds: set) -> bool:
    return set(map(type, values)) <= kinds


def _column_rows(kinds, columns, strings: list) -> list:
    """The rows of one relation of a version 3 body, from its columns."""
    if kinds == "r":
        if type(columns) is not list:
            raise StoreFormatError("a relation's rows must be a list")
        return [_unrow(row) for row in columns]
    if type(kinds) is not str or type(columns) is not list or len(kinds) != len(columns) or kinds[:1] not in ("s", "c"):
        raise StoreFormatError("a relation's columns must match its kinds, the perspective first")
    if kinds[0] == "c" and type(columns[0]) is not str:
        raise StoreFormatError("a row must start with its perspective")
    decoded: list = []
    constants = []
    for c, (kind, col) in enumerate(zip(kinds, columns)):
        if kind == "c":
            if type(col) is not int and type(col) is not str:
                raise StoreFormatError("a constant column must hold an integer or a string")
            constants.append((c, col))
            continue
        if type(col) is not list:
            raise StoreFormatError("a column must be a list")
        if kind == "s":
            if min(col, default=0) < 0:
                raise StoreFormatError("a string column must hold indices into the string table")
            decoded.append(list(map(strings.__getitem__, col)))  # a non-integer index raises TypeError
        elif kind == "i":
            if not _only(col, {int}):
                raise StoreFormatError("an integer column must hold integers")
            decoded.append(col)
        elif kind == "t":
            decoded.append([v if type(v) is int or type(v) is str else decode(v) for v in col])
        else:
            raise StoreFormatError(f"unknown column kind {kind!r}")
    if len(set(map(len, decoded))) > 1 or (not decoded and constants):
        raise StoreFormatError("a relation's columns differ in length")
    if not constants:
        return list(zip(*decoded))
    n = len(decoded[0]) if decoded else 0
    for c, value in constants:
        decoded.insert(c, repeat(value, n))
    return list(zip(*decoded))


def _base_v3(store: Store, body: dict) -> None:
    strings = body["strings"]
    if type(strings) is not list or not _only(strings, {str}):
        raise StoreFormatError("the string table must be a list of strings")
    metas = []
    for who, tick in body["metas"]:
        if (who is not None and type(who) is not str) or (tick is not None and type(tick) is not int):
            raise StoreFormatError("a fact's metadata must be [who or null, tick or null]")
        metas.append(store.meta(who, tick))
    for rel, meta, kinds, columns in body["base"]:
        if type(rel) is not str or rel in store.base:
            raise StoreFormatError("a relation name must be a string, given once")
        rows = _column_rows(kinds, columns, strings)
        if type(meta) is int:
            facts = dict.fromkeys(rows, metas[meta])
        elif type(meta) is list and len(meta) == len(rows) and min(meta, default=0) >= 0:
            facts = dict(zip(rows, map(metas.__getitem__, meta)))
        else:
            raise StoreFormatError("a relation's metadata must be one index or one index a row")
        store.base[rel] = facts


def _build(body: dict, version: int = VERSION) -> Store:
    store = Store()
    store.tick = int(body["tick"])
    store.counters = {str(k): int(v) for k, v in body["counters"].items()}
    if version >= 3:
        _base_v3(store, body)
    else:
        metas: dict = {}
        for rel, row, who, tick in body["base"]:
            facts = store.base.get(rel)
            if facts is None:
                facts = store.base[str(rel)] = {}
            meta = metas.get((who, tick))
            if meta is None:
                meta = metas[(who, tick)] = store.meta(who, tick)
            facts[_unrow(row)] = meta
    from . import vocabulary as V
    from .reflect import well_formed

    for rel in (V.PREMISE_LIT, V.CONCLUSION_LIT):
        for row in store.base.get(rel, {}):
            if len(row) != 4 or not well_formed(row[3]):
                raise StoreFormatError(f"a reflected rule in {rel} is malformed")
    for rel in list(store.base):
        store.adopt(rel, store.base[rel])  # the file is written in canonical order
    if version == 1:
        runs = [(rel, _unrow(row), rid, int(tick), int(tick)) for rel, row, rid, tick in body["history"]]
    else:
        runs = [(rel, _unrow(row), rid, int(s), int(e)) for rel, row, rid, s, e in body["history"]]
    store.history.load(runs, store.tick - 1)
    store.past = {(rel, _unrow(row)): (rid, int(tick)) for rel, row, rid, tick in body["past"]}
    store.tick_log = [(int(tick), tuple((rel, _unrow(row)) for rel, row in facts)) for tick, facts in body["tick_log"]]
    return store
