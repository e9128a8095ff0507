"""A join on a pattern column: the rows of a relation whose pattern matches one text, found in one call.

A rule like ``route_shape(F, W) :- route_dir(W, _, R), src_file(F, _), matches(F, R)`` reads as written
tries every pattern row against every file: one firing of the generated loop and one builtin call per
pair.  ``engine.plan`` joins such a premise through a ``PatternIndex`` instead: once the text is bound,
``rows(text)`` gives the premise's rows whose pattern column ``matches`` (or ``glob``s) it, each distinct
pattern compiled once and all of them tried in one pass (``engine.text_builtins.MatcherSet``).  The rows
and their order per text are those the pair loop would accept, and a refused pattern raises where the
pair loop would: at the first text it is tried on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import text_builtins as T


class PatternIndex:
    """The rows of one perspective and width of a complete table, grouped by the pattern in one column;
    the patterns are compiled when the first text is looked up."""

    __slots__ = ("table", "size", "persp", "width", "col", "compile", "_built")

    def __init__(self, table: Any, persp: str, width: int, col: int, op: str) -> None:
        self.table = table
        self.size = len(table.rows)
        self.persp = persp
        self.width = width
        self.col = col
        self.compile: Callable[[str], T.Matcher] = T.regex if op == "matches" else T.glob_automaton
        self._built: tuple[T.MatcherSet, list[list[tuple]]] | None = None  # the patterns, each one's rows

    def current(self, table: Any) -> bool:
        """Whether this index was built over ``table`` as it is now (tables only grow)."""
        return table is self.table and len(table.rows) == self.size

    def _build(self) -> tuple[T.MatcherSet, list[list[tuple]]]:
        groups: dict[str, list[tuple]] = {}
        persp, width, col = self.persp, self.width, self.col
        for row in self.table.rows:
            if len(row) == width and row[0] == persp:
                pattern = row[col]
                if type(pattern) is str:  # any other value matches no text
                    bucket = groups.get(pattern)
                    if bucket is None:
                        groups[pattern] = [row]
                    else:
                        bucket.append(row)
        compile_ = self.compile
        built = self._built = (T.MatcherSet(tuple(compile_(p) for p in groups)), list(groups.values()))
        return built

    def rows(self, text: Any) -> list[tuple]:
        """The rows whose pattern matches ``text`` (none when it is not a string), in table order per pattern."""
        if type(text) is not str:
            return []
        built = self._built
        if built is None:
            built = self._build()
        matchers, groups = built
        hits = matchers.which(text)
        if not hits:
            return []
        if len(hits) == 1:
            return groups[hits[0]]
        out: list[tuple] = []
        for i in hits:
            out.extend(groups[i])
        return out
