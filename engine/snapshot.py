"""A store's rows before a call and putting them back after it: what lets a server lend one loaded kernel to many calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .kernel import Kernel


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a loaded kernel's store holds before any call: every relation's rows, the hole counters and
    the tick; and each relation's change counter as the last restore left it."""

    rows: dict[str, frozenset]
    counters: dict[str, int]
    tick: int
    versions: dict[str, int]  # updated by each restore

    @staticmethod
    def of(kernel: Kernel) -> Snapshot:
        store = kernel.store
        rows = {rel: frozenset(facts) for rel, facts in store.base.items()}
        return Snapshot(rows, dict(store.counters), store.tick, dict(store.versions))

    def restore(self, kernel: Kernel, keep: frozenset[str] = frozenset()) -> bool:
        """Retract every row a call added to a relation it changed (compared with the rows held before,
        whatever order evaluation left them in), except in the relations ``keep`` names, which a later
        restore looks at again; False when the call did more than add (removed a fact, ran a tick):
        then the kernel is dropped."""
        store = kernel.store
        if store.tick != self.tick:
            return False
        moved = [rel for rel in {*store.base, *self.rows} if store.versions.get(rel, 0) != self.versions.get(rel, 0)]
        for rel in moved:
            now = store.base.get(rel, {})
            before = self.rows.get(rel, frozenset())
            if len(now) < len(before) or any(row not in now for row in before):
                return False
            if rel not in keep:
                for row in [row for row in now if row not in before]:
                    kernel.retract(rel, row[0], row[1:])
        store.counters.clear()
        store.counters.update(self.counters)
        self.versions.update({rel: n for rel, n in store.versions.items() if rel not in keep})
        return True

    def added(self, kernel: Kernel, rels: frozenset[str]) -> bool:
        """Whether the store holds rows of ``rels`` it did not hold when loaded."""
        return any(len(kernel.store.base.get(rel, {})) != len(self.rows.get(rel, ())) for rel in rels)
