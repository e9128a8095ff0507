"""Relation tables: rows ``(persp, *args)`` in insertion order, each with the round it arrived in, and hash indexes."""

from __future__ import annotations


class Table:
    """The facts of one relation name across perspectives.

    ``rows`` maps each row to the evaluation round that added it (-1 for base facts), in insertion
    order.  ``indexes`` maps a tuple of column numbers to ``{key: [rows]}``; a one-column index is
    keyed by the value itself, a wider one by the tuple of values.  Indexes are built on first use
    and kept up to date by ``add``.
    """

    __slots__ = ("rows", "indexes")

    def __init__(self) -> None:
        self.rows: dict[tuple, int] = {}
        self.indexes: dict[tuple[int, ...], dict] = {}

    def index(self, cols: tuple[int, ...]) -> dict:
        idx = self.indexes.get(cols)
        if idx is None:
            idx = {}
            width = max(cols) + 1
            if len(cols) == 1:
                c = cols[0]
                for row in self.rows:
                    if len(row) > c:
                        bucket = idx.get(row[c])
                        if bucket is None:
                            idx[row[c]] = [row]
                        else:
                            bucket.append(row)
            else:
                for row in self.rows:
                    if len(row) >= width:
                        key = tuple([row[c] for c in cols])
                        bucket = idx.get(key)
                        if bucket is None:
                            idx[key] = [row]
                        else:
                            bucket.append(row)
            self.indexes[cols] = idx
        return idx

    def add(self, row: tuple, rnd: int) -> None:
        self.rows[row] = rnd
        for cols, idx in self.indexes.items():
            if len(row) <= max(cols):
                continue
            key = row[cols[0]] if len(cols) == 1 else tuple([row[c] for c in cols])
            bucket = idx.get(key)
            if bucket is None:
                idx[key] = [row]
            else:
                bucket.append(row)

    def add_many(self, rows: list, rnd: int) -> None:
        if not self.indexes:
            store = self.rows
            for row in rows:
                store[row] = rnd
            return
        for row in rows:
            self.add(row, rnd)

    def remove(self, row: tuple) -> None:
        self.rows.pop(row, None)
        self.indexes.clear()
