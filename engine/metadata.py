"""Fact metadata presented as relations: ``in_perspective`` and ``asserted_by`` read from the base store.

They are answered from the store itself rather than stored as facts: a lookup by fact (column 1)
is a dictionary probe into the base store, and the full table is built only when a rule or a query
really scans it.
"""

from __future__ import annotations

from . import vocabulary as V
from .reflect import fact_from_term, fact_term
from .store import Store
from .tables import Table


class _ByFact:
    """The column-1 index of a metadata relation, computed per probe."""

    __slots__ = ("store", "who", "pair")

    def __init__(self, store: Store, who: bool, pair: bool) -> None:
        self.store = store
        self.who = who
        self.pair = pair  # keyed by (perspective, fact) instead of the fact alone

    def get(self, fact, default=()):
        if self.pair:
            if type(fact) is not tuple or len(fact) != 2 or fact[0] != "main":
                return default
            fact = fact[1]
        ref = fact_from_term(fact)
        if ref is None or ref[0] in V.VIRTUAL_RELATIONS:
            return default
        rel, row = ref
        facts = self.store.base.get(rel)
        meta = facts.get(row) if facts is not None else None
        if meta is None:
            return default
        if self.who:
            return [("main", fact, (meta.who,))] if meta.who is not None else default
        return [("main", fact, (row[0],))]


class MetadataTable:
    """A read-only table over the base store's fact metadata."""

    __slots__ = ("store", "rel", "_table")

    def __init__(self, store: Store, rel: str) -> None:
        self.store = store
        self.rel = rel
        self._table: Table | None = None

    def _full(self) -> Table:
        if self._table is None:
            self._table = self.store.metadata_table(self.rel, self._build)
        return self._table

    def _build(self) -> Table:
        table = Table()
        rows = table.rows
        for frel in self.store.relations():
            if frel in V.VIRTUAL_RELATIONS:
                continue
            for frow, meta in self.store.sorted_rows(frel).items():
                if self.rel == V.IN_PERSPECTIVE:
                    rows[("main", fact_term(frel, frow), (frow[0],))] = -1
                elif meta.who is not None:
                    rows[("main", fact_term(frel, frow), (meta.who,))] = -1
        return table

    @property
    def rows(self) -> dict:
        return self._full().rows

    @property
    def indexes(self) -> dict:
        return self._full().indexes

    def index(self, cols: tuple):
        if cols in ((1,), (0, 1)):
            return _ByFact(self.store, self.rel == V.ASSERTED_BY, cols == (0, 1))
        return self._full().index(cols)

    def add(self, row: tuple, rnd: int) -> None:
        raise TypeError(f"{self.rel} is read-only")
