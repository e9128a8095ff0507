"""Saving and restoring a whole store: a versioned, checksummed, canonically ordered JSON document.

Format ``rofl-store`` version 2 (one JSON object, UTF-8, no insignificant white space):

  {"format": "rofl-store", "version": 1, "sha256": <hex of the body's canonical JSON>, "body": {
     "tick": T, "counters": {...},
     "base":       [[rel, row, who_or_null, tick_or_null], ...]     rows as term lists, canonical order
     "history":    [[rel, row, rule_id, first, last], ...]          provenance frozen at tick boundaries:
                                                                     the rule derived the fact at every
                                                                     tick first..last (version 1 wrote
                                                                     [rel, row, rule_id, tick]; still read)
     "past":       [[rel, row, rule_id, tick], ...]                  facts installed from a finished tick
     "tick_log":   [[tick, [[rel, row], ...]], ...]
     "provenance": [[rel, row, rule_id, witness_rows, support, [extra rule ids]], ...]  current tick
  }}

A term is encoded as JSON: an integer as a number, a string as a string, an atom or compound
``f(a, b)`` as the list ``["f", a, b]`` (the tuple the kernel holds, which ``json`` writes as an
array).  Rules travel as their reflected facts, so restoring never
parses source text.  A file whose checksum does not match, or of another format or a newer version,
is refused before anything is loaded.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from . import safe_write
from .errors import RoflError, StoreFormatError
from .store import Store
from .terms import compound, fact_key

FORMAT = "rofl-store"
VERSION = 2


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


def body_of(store: Store, result=None) -> dict:
    base = []
    for rel in store.relations():
        for row, meta in store.sorted_rows(rel).items():
            base.append([rel, row, meta.who, meta.tick])
    prov = []
    if result is not None:
        for rel, row, p in result.derived():
            prov.append([rel, row, p.rule, [w for _, w in p.witness], p.support, sorted(p.rules[1:])])
    return {
        "tick": store.tick,
        "counters": dict(sorted(store.counters.items())),
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
    except (KeyError, TypeError, ValueError, AttributeError, StoreFormatError) as exc:
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


def _build(body: dict, version: int = VERSION) -> Store:
    store = Store()
    store.tick = int(body["tick"])
    store.counters = {str(k): int(v) for k, v in body["counters"].items()}
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
