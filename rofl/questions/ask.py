"""The ask question: every binding of a query's variables over the loaded facts, with the proofs asked for."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from rofl.engine.kernel import Kernel

from .answer import Answer, doc, skip
from .explain import ProofTree, WhyAnswer


class Bindings(Sequence[Mapping[str, Any]]):
    """The answers' rows as ``{variable: JSON value}``, each converted only when it is read: a text answer
    never builds them, JSON builds each once as it is written."""

    __slots__ = ("rows", "variables")

    def __init__(self, variables: tuple[str, ...], rows: Sequence[tuple]) -> None:
        self.variables = variables
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Mapping[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> Mapping[str, Any] | Sequence[Mapping[str, Any]]:
        if isinstance(index, slice):
            return Bindings(self.variables, self.rows[index])
        from ..jsonout import term

        return {v: term(t) for v, t in zip(self.variables, self.rows[index])}

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        from ..jsonout import term

        variables = self.variables
        for row in self.rows:
            yield {v: term(t) for v, t in zip(variables, row)}

    def __json__(self) -> list[dict[str, Any]]:
        """The rows as JSON values, built without recursion (a term may be 100,000 levels deep)."""
        return [dict(b) for b in self]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bindings) and (other.variables, list(other.rows)) == (self.variables, list(self.rows))

    def __hash__(self) -> int:
        return hash((self.variables, len(self.rows)))


@dataclass(frozen=True, slots=True)
class AskAnswer(Answer):
    """A query's answers: each binding of its variables (none: the query holds or not)."""

    QUESTION = "ask"
    query: str = doc("The query as given.")
    answers: Sequence[Mapping[str, Any]] = doc("Each binding of the query's variables: variable name to value.")
    partial: bool = doc("Whether the budget ran out (answers may be missing).")
    incomplete: tuple[str, ...] | None = doc(
        "With a scan: the listed fact files that are missing (answers may be missing).", omit_none=True, default=None
    )
    wants: Mapping[str, Any] | None = doc(
        "With adapters: how each want of the rounds ended.", omit_none=True, default=None
    )
    why: tuple[WhyAnswer, ...] | None = doc("For each --why FACT: its derivation tree.", omit_none=True, default=None)
    whynot: tuple[ProofTree, ...] | None = doc(
        "For each --whynot FACT: the failing premises.", omit_none=True, default=None
    )
    variables: tuple[str, ...] = skip(())
    rows: Sequence[tuple] = skip(())


def ask(
    kernel: Kernel,
    query: str,
    question: Any,
    budget: int | None,
    goals: set[str],
    why_facts: Sequence[tuple[str, Any]] = (),
    whynot_facts: Sequence[tuple[str, Any]] = (),
    boundary: Any = None,
    incomplete: Sequence[str] | None = None,
) -> AskAnswer:
    """The bindings of the planned ``question`` (``rofl.engine.query.plan``), and for each ``(text,
    literal)`` of ``why_facts``/``whynot_facts`` its proof; ``boundary`` marks what adapters answered."""
    from ..adapting import at_boundary

    answers = kernel.query(question.items, budget, goals=goals)
    whys = []
    for text, lit in why_facts:
        node = at_boundary(kernel.why(lit.rel, lit.persp, lit.args, goals=goals), boundary)
        if node is None:
            whys.append(WhyAnswer(fact=text, holds=False, proof=None))
        else:
            whys.append(WhyAnswer(fact=text, holds=True, proof=ProofTree(node), forged=(), node=node))
    whynots = tuple(ProofTree(kernel.whynot(lit.rel, lit.persp, lit.args, goals=goals)) for _, lit in whynot_facts)
    return AskAnswer(
        query=query,
        answers=Bindings(tuple(answers.variables), answers.rows),
        partial=answers.partial,
        incomplete=tuple(incomplete) if incomplete is not None else None,
        wants=boundary.as_json() if boundary is not None else None,
        why=tuple(whys) if why_facts else None,
        whynot=whynots if whynot_facts else None,
        variables=tuple(answers.variables),
        rows=answers.rows,
    )
