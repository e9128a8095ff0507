"""What one kernel's evaluations reuse, owned by the kernel and typed: decoded rules, strata, the last
complete evaluation, dependency cones and evaluation schedules.  Nothing here changes a result; it only saves work, and the
steps it saves are charged to the budget as if the work had been done."""

from __future__ import annotations

from collections.abc import Mapping
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
    view: Mapping | None = None  # a read-only view of ``strata`` (engine.result.Result.strata)


@dataclass(slots=True)
class Previous:
    """What the last complete evaluation computed, for reuse by the next one (made once per
    evaluation and never changed: not frozen only because a frozen one costs a tick noticeably more)."""

    rule_ids: tuple
    versions: dict
    naive: bool
    ctx: object  # engine.evaluate.Context
    heads: frozenset  # relations it derived
    costs: dict  # head relation -> steps its component took (shared by the component's heads)
    owned: int = 0  # the store's ``owned`` counter then (asserted_by's version)
    changes: int = -1  # the store's ``changes`` counter then (``Store.touched_since``)
    schedule: object = None  # the engine.evaluate.Schedule it ran
    total: int = 0  # the steps of all its components together (reused ones included)
    strata: StrataEntry | None = None  # the stratification it used
    staged_costs: dict = field(default_factory=dict)  # head of @next rules -> the steps those rules took


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
    dead_blind: bool = False  # ``dead`` was computed before asserted_by was built (engine.evaluate.dead_rules)
    schedule_memo: tuple | None = None  # (strata, goals, dead, schedule) of the last schedule looked up
    carry: bool = True  # an evaluation may start from the last one whole (engine.evaluate._carried); False: never
    persps: dict = field(default_factory=dict)  # relation -> (its version, the perspectives its base facts are in)

    def clear(self) -> None:
        self.rules = self.strata = self.last = None
        self.cones = {}
        self.schedules = {}
        self.cone_ids = ()
        self.guards = self.dead = self.schedule_memo = None
        self.persps = {}
