"""Loading a scan's fact files into a kernel one at a time: each read and checked (``rofl.loading.factdir``), parsed,
its values shared, the relations a command does not keep left out, asserted, and its text dropped.

What a fold of the whole folder at once would hold (every text, every parsed clause) is never alive:
the peak is the store and one file.  Equal strings and integers in different facts are one object
(a scan repeats each file's path in every fact of it), which halves the store of a large scan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rofl.engine.base.errors import RoflError
from rofl.engine.clauses import Clause, Literal
from rofl.engine.factlines import read_facts
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program
from rofl.engine.vocabulary import NAMESPACES, PRIVATE_PERSP


@dataclass(slots=True)
class Loading:
    """The state of one load: the shared values, and each left-out ``(relation, perspective)`` a fact of
    which was asserted once (so the kernel declares it as it would have, before it is dropped whole)."""

    keeps: Callable[[str], bool] | None = None
    memo: dict = field(default_factory=dict)
    seen: set = field(default_factory=set)

    def clauses(self, text: str, source: str) -> tuple[list[Clause], set]:
        """The clauses of one file, with shared values and without the facts of relations not kept
        (but the first of each ``(relation, perspective)``); and the pairs that first fact opened.
        A file of the scanner's fact lines is read by ``read_facts``; any other by ``parse_program``."""
        rows = read_facts(text, self.memo)
        if rows is None:
            return self._parsed(text, source)
        keeps, seen = self.keeps, self.seen
        opened: set = set()
        if keeps is None:
            return [Clause(Literal(r, p, a, t), (), False, False, n, 1) for r, p, a, t, n in rows], opened
        kept: dict = {}  # relation: whether the command keeps it
        out: list[Clause] = []
        for rel, persp, args, temporal, n in rows:
            keep = kept.get(rel)
            if keep is None:
                keep = kept[rel] = keeps(rel)
            if not keep and persp not in NAMESPACES and persp != PRIVATE_PERSP:
                pair = (rel, persp)
                if pair in seen or pair in opened:
                    continue
                opened.add(pair)
            out.append(Clause(Literal(rel, persp, args, temporal), (), False, False, n, 1))
        return out, opened

    def _parsed(self, text: str, source: str) -> tuple[list[Clause], set]:
        """``clauses`` of a text ``parse_program`` reads: its facts rebuilt with shared values."""
        keeps, memo, seen = self.keeps, self.memo, self.seen
        opened: set = set()
        out: list[Clause] = []
        for c in parse_program(text, source):
            head = c.head
            if c.body or c.want or head.persp in NAMESPACES or head.persp == PRIVATE_PERSP:
                out.append(c)  # rules and facts the kernel renames or refuses: as parsed
                continue
            if keeps is not None and not keeps(head.rel):
                pair = (head.rel, head.persp)
                if pair in seen or pair in opened:
                    continue
                opened.add(pair)
            args = tuple(
                [memo.setdefault(a, a) if type(a) is str or type(a) is int else _shared(a, memo) for a in head.args]
            )
            persp = memo.setdefault(head.persp, head.persp) if type(head.persp) is str else head.persp
            out.append(Clause(Literal(head.rel, persp, args, head.temporal), (), False, False, c.line, c.col))
        return out, opened

    def load(self, kernel: Kernel, path: Path, who: str | None, text: str) -> None:
        """Parse and assert one file (nothing of it when it does not parse or the kernel refuses it)."""
        clauses, opened = self.clauses(text, str(path))
        kernel.add_clauses(clauses, who, str(path), evaluate_now=False)
        self.seen |= opened

    def drop_left_out(self, kernel: Kernel) -> None:
        """Remove the relations not kept (their first facts, asserted only so that they are declared)."""
        if self.keeps is not None:
            kernel.drop_relations(self.keeps)


def _shared(value: object, memo: dict) -> object:
    """``value`` with its strings and integers the first equal ones ``memo`` met (a bool stays itself)."""
    if type(value) is str or type(value) is int:
        return memo.setdefault(value, value)
    if isinstance(value, tuple):
        return tuple(_shared(v, memo) for v in value)
    return value


def load_each(
    kernel: Kernel,
    sources: Iterable[tuple[Path, str | None, str]],
    loading: Loading,
    failed: Callable[[Path, RoflError], None],
) -> int:
    """Load each source in turn (its text dropped before the next is read); one that does not load is
    rolled back alone and given to ``failed``.  The number of sources read."""
    count = 0
    for path, who, text in sources:
        count += 1
        try:
            loading.load(kernel, path, who, text)
        except RoflError as exc:
            failed(path, exc)
        del text
    return count
