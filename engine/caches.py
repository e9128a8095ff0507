"""What one kernel's evaluations reuse, owned by the kernel and typed: decoded rules, strata, the last
complete evaluation, dependency cones and evaluation schedules.  Nothing here changes a result; it only saves work, and the
steps it saves are charged to the budget as if the work had been done."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class RulesEntry:
    """Decoded rules, valid while the reflection relations have these versions."""

    key: tuple
    decoded: object  # engine.rulebook.DecodedRules


@dataclass(frozen=True, slots=True)
class StrataEntry:
    """A finished stratification: valid while the rules and the relations it reads are unchanged."""

    key: tuple
    strata: dict
    steps: int  # what computing it cost
    items: tuple = ()  # the strata as sorted (relation, stratum) pairs: the schedules' key


@dataclass(frozen=True, slots=True)
class Previous:
    """What the last complete evaluation computed, for reuse by the next one."""

    rule_ids: tuple
    versions: dict
    naive: bool
    ctx: object  # engine.evaluate.Context
    heads: frozenset  # relations it derived
    costs: dict  # head relation -> steps its component took (shared by the component's heads)
    owned: int = 0  # the store's ``owned`` counter then (asserted_by's version)


@dataclass(slots=True)
class Caches:
    rules: RulesEntry | None = None
    strata: StrataEntry | None = None
    last: Previous | None = None
    cones: dict = field(default_factory=dict)  # head relation -> frozenset of the relations it depends on
    cone_ids: tuple = ()  # the rule ids the cones and schedules were computed for
    schedules: dict = field(default_factory=dict)  # (strata, goals) -> evaluation order (engine.evaluate._schedule)
    guards: tuple | None = None  # (rule ids, relations, checks): what can stop a rule (engine.evaluate._guards)
    dead: frozenset | None = None  # the rules that could not fire in the last evaluation (engine.evaluate.dead_rules)

    def clear(self) -> None:
        self.rules = self.strata = self.last = None
        self.cones = {}
        self.schedules = {}
        self.cone_ids = ()
        self.guards = self.dead = None
