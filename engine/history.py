"""Frozen provenance: which rule derived which fact at which finished tick, as runs of consecutive ticks.

Every finished tick records every derivation of that tick, whether its relation was computed afresh
or taken over unchanged from the previous evaluation, so a live store and one restored mid-run record
the same history.  A relation taken over unchanged keeps an *open* run: nothing is copied at a tick
boundary, and the run is closed (written out) only when the relation changes, or when the history is
read or saved.  Runs of one derivation that touch are merged, so the saved form is canonical.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .plan import extra_rules, rule_of
from .terms import fact_key


@dataclass(slots=True)
class _Open:
    provs: dict  # row -> provenance record of one evaluation (never changed once the evaluation ended)
    mores: dict  # row -> [support, extra rule indexes] of the facts with more than one firing
    rules: tuple  # that evaluation's decoded rules (records index into them)
    start: int
    source: object = None  # the evaluation's records of the relation (the run stays open while they are the same)


@dataclass(slots=True)
class History:
    runs: dict = field(default_factory=dict)  # (rel, row, rule_id) -> [[start, end], ...] ascending
    open: dict = field(default_factory=dict)  # rel -> _Open
    last: int = -1  # the last finished tick
    frozen: dict | None = None  # the ``provs`` of the last freeze: then ``open`` holds one run per relation of it

    # -- recording at a tick boundary -------------------------------------------------------------
    def freeze(
        self,
        tick: int,
        provs: dict,
        staged: dict,
        rules: tuple,
        mores: dict,
        staged_mores: dict,
        carried: tuple | None = None,
        resolve: Callable[[str, tuple, object], tuple[int, ...]] | None = None,
    ) -> None:
        """Record the finished ``tick``: ``provs`` (rel -> {row: record}) of the tick's evaluation and
        the ``staged`` records of its @next rules (``mores``, ``staged_mores``: their extra rules,
        ``engine.plan.again``).  ``carried``: ``(before, fresh)`` when ``provs`` is the ``before`` of
        an evaluation except for the relations in ``fresh`` (sorted); when ``before`` is what the last
        freeze recorded, only those relations are looked at.  A relation whose records the evaluation did
        not keep (``engine.evaluate.LeanRecords``, of a loading evaluation a tick takes over) has its rules
        found once, by ``resolve`` (``Context.rule_indexes``), when its run opens."""
        self.last = tick
        open_ = self.open
        if carried is not None and carried[0] is self.frozen and self.frozen is not None:
            names: tuple | list = carried[1]
            check: tuple | list = names
        else:
            names = sorted(provs)
            check = sorted(open_)
        for rel in check:
            run = open_.get(rel)
            if run is not None and provs.get(rel) is not run.source:
                self._close(rel, run, tick - 1)
                del open_[rel]
        for rel in names:
            if rel not in open_ and rel in provs:
                records, more = provs[rel], mores.get(rel, {})
                if not isinstance(records, dict):
                    assert resolve is not None, "a lean relation's rules are found by its evaluation"
                    records, more = _found(rel, records, resolve)
                open_[rel] = _Open(records, more, rules, tick, provs[rel])
        self.frozen = provs
        runs = self.runs
        for rel in sorted(staged):
            more = staged_mores.get(rel, {})
            for row, rec in staged[rel].items():
                for rix in _rule_indexes(rec, more.get(row) if more else None):
                    key = (rel, row, rules[rix].rid)
                    spans = runs.get(key)
                    if spans is not None and spans[-1][1] + 1 >= tick:
                        if spans[-1][1] < tick:
                            spans[-1][1] = tick
                    else:
                        self._add(key, tick, tick)

    def _close(self, rel: str, run: _Open, end: int) -> None:
        if end < run.start:
            return
        rules = run.rules
        more = run.mores
        for row, rec in run.provs.items():
            for rix in _rule_indexes(rec, more.get(row)):
                self._add((rel, row, rules[rix].rid), run.start, end)

    def _add(self, key: tuple, start: int, end: int) -> None:
        spans = self.runs.get(key)
        if spans is None:
            self.runs[key] = [[start, end]]
        elif spans[-1][1] + 1 >= start:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])

    def settle(self) -> None:
        """Write out every open run up to the last finished tick; they stay open."""
        for rel in sorted(self.open):
            run = self.open[rel]
            self._close(rel, run, self.last)
            run.start = max(run.start, self.last + 1)

    # -- reading -----------------------------------------------------------------------------------
    def entries(self) -> Iterator[tuple[str, tuple, str, int]]:
        """Every ``(rel, row, rule_id, tick)`` of the finished ticks."""
        self.settle()
        for (rel, row, rid), spans in self.runs.items():
            for start, end in spans:
                for t in range(start, end + 1):
                    yield rel, row, rid, t

    def canonical(self) -> list[list]:
        """The runs as ``[rel, row, rule_id, start, end]``, canonically ordered (for saving)."""
        self.settle()
        keys = sorted(self.runs, key=lambda k: (k[0], fact_key(k[1]), k[2]))
        return [[rel, row, rid, s, e] for rel, row, rid in keys for s, e in self.runs[(rel, row, rid)]]

    def load(self, runs: list, last: int) -> None:
        """Install saved runs ``(rel, row, rule_id, start, end)``; ``last`` is the last finished tick."""
        self.runs = {}
        self.open = {}
        self.frozen = None
        self.last = last
        for rel, row, rid, start, end in sorted(runs, key=lambda r: (r[0], fact_key(r[1]), r[2], r[3])):
            self._add((rel, row, rid), start, end)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, History) and self.canonical() == other.canonical()


def _rule_indexes(rec: int | tuple, more: int | list | None) -> tuple[int, ...]:
    """The rules that derived a fact: its record's rule, then the others (``engine.plan.again``)."""
    return (rule_of(rec), *extra_rules(more))


def _found(rel: str, lean: Any, resolve: Callable[[str, tuple, object], tuple[int, ...]]) -> tuple[dict, dict]:
    """Records and extra rules (as ``again`` keeps them) of a relation whose evaluation kept no records
    (``lean``, an ``engine.evaluate.LeanRecords``): each fact's rules found."""
    records: dict = {}
    more: dict = {}
    for row, rec in lean.items():
        first, *others = resolve(rel, row, rec)
        records[row] = first
        if others:  # the history reads the rules alone (``_rule_indexes``), not the support before them
            more[row] = [1 + len(others), others]
    return records, more
