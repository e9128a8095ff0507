"""The relations question: every relation with its perspective, arity, rows, where it is defined and what it means."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.kernel import Kernel

from ..loading.budgets import COUNT_BUDGET
from ..loading.source import KernelInputs
from .answer import Answer, doc, skip
from .params import picked
from .status import Exit

if TYPE_CHECKING:
    from ..loading.source import Source


@dataclass(frozen=True, slots=True)
class RelationsOptions:
    """`rofl relations`' options (its click parameters' names)."""

    files: tuple[str, ...] = ()
    load_as: tuple[tuple[str, str], ...] = ()
    facts: str | None = None
    rules: tuple[str, ...] = ()
    store: str | None = None
    budget: int = COUNT_BUDGET

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> RelationsOptions:
        return picked(cls, params)


@dataclass(frozen=True, slots=True)
class RelationInfo:
    """One relation."""

    relation: str = doc("Its name as written in rules.")
    perspective: str | None = doc("The perspective it lives in.")
    arity: int = doc("How many arguments it takes.")
    rows: int = doc("Rows that hold (a lower bound when partial, for derived relations).")
    defined: str = doc("Where: FILE:LINE of its first rule or fact, scanner, kernel, facts or store.")
    comment: str = doc("The comment above its first rule, what it means.")


@dataclass(frozen=True, slots=True)
class RelationsAnswer(Answer):
    """Every relation of the loaded programs or scan."""

    QUESTION = "relations"
    relations: tuple[RelationInfo, ...] = doc("Every relation, by name.")
    partial: bool = doc("Whether counting derived rows ran out of budget (their counts are lower bounds).")
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.OK


def relations(options: RelationsOptions, source: Source) -> RelationsAnswer:
    """Every relation of what ``options`` loads through ``source``, each found in the program files loaded."""
    from ..loading.kernel import BOOT, CODE_RULES

    o = options
    kernel = source.kernel(KernelInputs(o.files, o.load_as, o.budget, store=o.store, facts=o.facts, rules=o.rules))
    paths = [BOOT] + ([CODE_RULES] if o.facts is not None else []) + [Path(f) for f in o.files]
    paths += [Path(f) for _, f in o.load_as] + [Path(r) for r in o.rules]
    return relations_of(kernel, paths, scanned=o.facts is not None, stored=o.store is not None)


def relations_of(kernel: Kernel, paths: Sequence[Path], scanned: bool, stored: bool) -> RelationsAnswer:
    """Every public relation of ``kernel``; ``paths`` are the program files to find definitions in
    (none for a saved store), ``scanned`` whether facts came from a scan."""
    from rofl.engine.namespace import is_private

    where = definitions(list(paths)) if not stored else {}
    listed = []
    for info in kernel.relations():
        if is_private(info.rel):
            continue
        found = where.get((info.rel, info.persp, info.arity)) or where.get((info.rel, None, info.arity))
        if found is not None:
            place, comment = found
        elif info.origin == "kernel":
            place, comment = "kernel", ""
        elif info.origin == "facts" and scanned:
            place, comment = "scanner", ""
        else:
            place, comment = ("store" if stored else "facts"), ""
        listed.append(RelationInfo(info.name, info.persp, info.arity, info.rows, place, comment))
    return RelationsAnswer(tuple(listed), bool(kernel.outcome.partial))


def definitions(paths: list[Path]) -> dict[tuple, tuple[str, str]]:
    """``{(rel, persp, arity): (where, comment)}`` for the first clause of each signature in ``paths``
    (rules before facts); ``comment`` is the block of ``--`` lines right above it."""
    from rofl.engine.base.safe_write import MAX_PROGRAM_BYTES, read_regular
    from rofl.engine.clauses import is_var
    from rofl.engine.namespace import qualify
    from rofl.engine.parse import parse_program

    found: dict[tuple, tuple[int, str, str]] = {}
    for path in paths:
        try:
            text = read_regular(path, MAX_PROGRAM_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the kernel build reports unreadable files
        lines = text.split("\n")
        for clause in parse_program(text, str(path)):
            head = qualify(clause).head
            key = (head.rel, None if is_var(head.persp) else head.persp, len(head.args))
            rank = 0 if clause.body else 1
            if key in found and found[key][0] <= rank:
                continue
            comment: list[str] = []
            n = clause.line - 2
            while n >= 0 and lines[n].lstrip().startswith("--"):
                comment.insert(0, re.sub(r"\s*-{3,}\s*$", "", lines[n].strip()[2:].strip()))
                n -= 1
            found[key] = (rank, f"{_shown(path)}:{clause.line}", " ".join(c for c in comment if c))
    return {k: (where, comment) for k, (_, where, comment) in found.items()}


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when it lies inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel
