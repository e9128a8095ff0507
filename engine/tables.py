"""Relation tables: rows ``(persp, *args)`` in insertion order, each with the round it arrived in, and hash indexes."""

from __future__ import annotations

from typing import Any


class Table:
    """The facts of one relation name across perspectives.

    ``rows`` maps each row to the evaluation round that added it (-1 for base facts), in insertion
    order.  ``indexes`` maps a tuple of column numbers to ``{key: [rows]}``; a one-column index is
    keyed by the value itself, a wider one by the tuple of values.  ``pindexes`` are the same for the
    rows of one perspective and one width only (keyed by ``(persp, width, cols)``; with no columns,
    the value is the list of those rows): what a literal with a written perspective reads, without a
    perspective in every key or a width check on every row.  Indexes are built on first use and
    kept up to date by ``add``.
    """

    __slots__ = ("rows", "indexes", "pindexes")

    def __init__(self) -> None:
        self.rows: dict[tuple, int] = {}
        self.indexes: dict[tuple[int, ...], dict] = {}
        self.pindexes: dict[tuple, dict | list] = {}

    def index(self, cols: tuple[int, ...]) -> dict:
        idx = self.indexes.get(cols)
        if idx is None:
            width = max(cols) + 1
            idx = self.indexes[cols] = _grouped([row for row in self.rows if len(row) >= width], cols)
        return idx

    def pindex(self, persp: str, width: int, cols: tuple[int, ...]) -> dict | list:
        """The rows of perspective ``persp`` and length ``width``: a list when ``cols`` is empty, else
        ``{key: [rows]}`` keyed by the value of the one column or the tuple of the columns' values."""
        spec = (persp, width, cols)
        idx = self.pindexes.get(spec)
        if idx is not None:
            return idx
        rows = [row for row in self.rows if len(row) == width and row[0] == persp]
        if not cols:
            self.pindexes[spec] = rows
            return rows
        out = self.pindexes[spec] = _grouped(rows, cols)
        return out

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
        if self.pindexes:
            self._add_pindexes(row)

    def _add_pindexes(self, row: tuple) -> None:
        width = len(row)
        for (persp, w, cols), pidx in self.pindexes.items():
            if w != width or row[0] != persp:
                continue
            if not cols:
                pidx.append(row)  # type: ignore[union-attr]
                continue
            key = row[cols[0]] if len(cols) == 1 else tuple([row[c] for c in cols])
            bucket = pidx.get(key)  # type: ignore[union-attr]
            if bucket is None:
                pidx[key] = [row]  # type: ignore[index]
            else:
                bucket.append(row)

    def add_many(self, rows: list, rnd: int) -> None:
        if not self.indexes and not self.pindexes:
            store = self.rows
            for row in rows:
                store[row] = rnd
            return
        for row in rows:
            self.add(row, rnd)

    def clear_indexes(self) -> None:
        self.indexes.clear()
        self.pindexes.clear()

    def remove(self, row: tuple) -> None:
        self.rows.pop(row, None)
        self.clear_indexes()


def index_key(row: tuple, cols: tuple[int, ...]) -> Any:
    """``row``'s key in an index on ``cols``: the value of its one column, or the tuple of its columns' values
    (``Table.add`` and ``_grouped`` compute it inline: they are hot)."""
    return row[cols[0]] if len(cols) == 1 else tuple([row[c] for c in cols])


def _grouped(rows: list, cols: tuple[int, ...]) -> dict:
    """``{key: [rows]}`` in row order, keyed by the value of the one column or the tuple of the columns' values."""
    out: dict = {}
    if len(cols) == 1:
        c = cols[0]
        for row in rows:
            bucket = out.get(row[c])
            if bucket is None:
                out[row[c]] = [row]
            else:
                bucket.append(row)
    else:
        for row in rows:
            key = tuple([row[c] for c in cols])
            bucket = out.get(key)
            if bucket is None:
                out[key] = [row]
            else:
                bucket.append(row)
    return out


class NarrowIndex:
    """A perspective index over a table that has only column indexes (fact metadata, cycle components):
    the rows of one perspective and width, read through the table's own index on column 0 and ``cols``."""

    __slots__ = ("idx", "persp", "width", "one")

    def __init__(self, idx: Any, persp: str, width: int, one: bool) -> None:
        self.idx = idx
        self.persp = persp
        self.width = width
        self.one = one

    def get(self, key: Any, default: Any = ()) -> Any:
        found = self.idx.get((self.persp, key) if self.one else (self.persp, *key))
        if not found:
            return default
        return [row for row in found if len(row) == self.width]
