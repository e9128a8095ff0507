"""The base store: asserted facts with their metadata, frozen history, holes and the tick."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import vocabulary as V
from .history import History
from .terms import canonical_rows


@dataclass(frozen=True, slots=True)
class FactMeta:
    """Who asserted a base fact (None: nobody named) and the tick it lives in (None: timeless)."""

    who: str | None
    tick: int | None


@dataclass(slots=True)
class Store:
    """Base facts per relation name: ``{rel: {row: FactMeta}}`` with rows ``(persp, *args)``.

    ``history`` holds provenance frozen at tick boundaries (``engine.history.History``);
    ``past`` maps a fact installed from a finished tick to its ``(rule_id, tick)`` origin.
    """

    base: dict = field(default_factory=dict)
    tick: int = 0
    history: History = field(default_factory=History)
    past: dict = field(default_factory=dict)
    tick_log: list = field(default_factory=list)
    counters: dict = field(default_factory=lambda: {"load": 0, "q": 0})
    _metas: dict = field(default_factory=dict)
    _sorted: set = field(default_factory=set)
    versions: dict = field(default_factory=dict)  # rel -> change counter (not saved)
    owned: int = 0  # change counter of the facts that name who asserted them (not saved): asserted_by's version
    changes: int = 0  # change counter of every relation together (not saved): in_perspective's version
    _meta_tables: dict = field(default_factory=dict)  # metadata relation -> (its version, its full Table)
    dirty: set = field(default_factory=set, compare=False)  # relations touched since ``changes`` was ``dirty_since``
    dirty_since: int = field(default=0, compare=False)

    def touch(self, rel: str) -> None:
        self.touch_only(rel)
        self._sorted.discard(rel)

    def meta(self, who: str | None, tick: int | None) -> FactMeta:
        key = (who, tick)
        m = self._metas.get(key)
        if m is None:
            m = self._metas[key] = FactMeta(who, tick)
        return m

    def has(self, rel: str, row: tuple) -> bool:
        facts = self.base.get(rel)
        return facts is not None and row in facts

    def add(self, rel: str, row: tuple, who: str | None, journal: list | None = None) -> bool:
        """Assert a base fact; return False when it was already there."""
        facts = self.base.get(rel)
        if facts is None:
            facts = self.base[rel] = {}
        if row in facts:
            return False
        facts[row] = self.meta(who, None if rel in V.TIMELESS_RELATIONS else self.tick)
        if who is not None:
            self.owned += 1
        self.touch(rel)
        if journal is not None:  # flat (rel, row, rel, row, ...): a loaded scan journals millions of facts
            journal += (rel, row)
        return True

    def add_many(self, rel: str, rows: Iterable[tuple], who: str | None) -> int:
        """Assert many base facts of ``rel`` at once (``add`` for each, without a journal); the number new."""
        facts = self.base.get(rel)
        if facts is None:
            facts = self.base[rel] = {}
        before = len(facts)
        meta = self.meta(who, None if rel in V.TIMELESS_RELATIONS else self.tick)
        setdefault = facts.setdefault
        for row in rows:
            setdefault(row, meta)
        added = len(facts) - before
        if added:
            if who is not None:
                self.owned += added
            self.touch(rel)
        elif not facts:
            del self.base[rel]
        return added

    def remove(self, rel: str, row: tuple) -> bool:
        facts = self.base.get(rel)
        if facts is None or row not in facts:
            return False
        if facts[row].who is not None:
            self.owned += 1
        del facts[row]
        if not facts:
            del self.base[rel]
        self.touch(rel)
        return True

    def rollback(self, journal: list) -> None:
        """Remove what ``add`` journaled, newest first."""
        for i in range(len(journal) - 2, -1, -2):
            self.remove(journal[i], journal[i + 1])

    def sorted_rows(self, rel: str) -> dict:
        """The relation's base facts, re-ordered canonically (cached until the relation changes)."""
        facts = self.base[rel]
        if rel not in self._sorted:
            rows = canonical_rows(facts)
            if rows != list(facts):  # asserted in canonical order already (a scan's rows are): kept as they are
                self.base[rel] = facts = {row: facts[row] for row in rows}
            self._sorted.add(rel)
        return facts

    def adopt(self, rel: str, facts: dict) -> None:
        """Install a relation's base facts that the caller already holds in canonical order."""
        self.base[rel] = facts
        self._sorted.add(rel)
        self.owned += 1
        self.touch_only(rel)

    def set_meta(self, rel: str, row: tuple, meta: FactMeta) -> None:
        """Replace the metadata of a fact that is there (a fact carried into the next tick)."""
        facts = self.base[rel]
        if facts[row].who is not None or meta.who is not None:
            self.owned += 1
        facts[row] = meta

    def touch_only(self, rel: str) -> None:
        self.versions[rel] = self.versions.get(rel, 0) + 1
        self.changes += 1
        self.dirty.add(rel)

    def touched_since(self, changes: int) -> set | None:
        """The relations touched since the store's ``changes`` counter read ``changes`` (a copy), or None
        when that is not known here (the set was reset at another point since)."""
        return set(self.dirty) if changes == self.dirty_since else None

    def mark_clean(self) -> None:
        """Start a new ``dirty`` set at the current ``changes``."""
        self.dirty = set()
        self.dirty_since = self.changes

    def metadata_table(self, rel: str, build: Callable[[], Any]) -> Any:
        """The full table of metadata relation ``rel`` (``engine.metadata``), built by ``build()`` only
        when the facts it reflects changed since it was last built."""
        version = self.owned if rel == V.ASSERTED_BY else self.changes
        hit = self._meta_tables.get(rel)
        if hit is not None and hit[0] == version:
            return hit[1]
        table = build()
        self._meta_tables[rel] = (version, table)
        return table

    def known_metadata(self, rel: str) -> Any:
        """The full table of metadata relation ``rel`` when one is built for the current facts, else None."""
        hit = self._meta_tables.get(rel)
        version = self.owned if rel == V.ASSERTED_BY else self.changes
        return hit[1] if hit is not None and hit[0] == version else None

    def relations(self) -> list[str]:
        return sorted(self.base)
