"""The ask question: every binding of a query's variables over the loaded facts, with the proofs asked for."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from rofl.engine.kernel import Kernel

from .answer import Answer, doc, skip
from .explain import ProofTree, WhyAnswer, ground_fact
from .params import RoundsOptions
from .status import answered

if TYPE_CHECKING:
    from ..loading.source import Source


@dataclass(frozen=True, slots=True)
class AskOptions(RoundsOptions):
    """`rofl ask`'s options (its click parameters' names): the query over the programs and the rounds."""

    query: str = field(kw_only=True)
    why_facts: tuple[str, ...] = ()
    whynot_facts: tuple[str, ...] = ()
    public_key: str | None = None


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
        from .jsonout import term

        return {v: term(t) for v, t in zip(self.variables, self.rows[index])}

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        from .jsonout import term

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
    notes: tuple[str, ...] = skip(())
    rounds_partial: bool = skip(False)  # the adapter rounds' budget ran out
    run: Any = skip(None)  # the adapter rounds (rofl.questions.rounds.AdapterRun), for what they drew

    def status(self) -> int:
        return answered(bool(self.rows), self.rounds_partial or self.partial)


def ask(options: AskOptions, source: Source) -> AskAnswer:
    """Answer the query over what ``options`` loads through ``source``: the bindings, the proofs asked for,
    and the lines the command line prints on stderr (the facts stale, forged facts, partial)."""
    from rofl.engine.namespace import qualify_literal
    from rofl.engine.parse import parse_body
    from rofl.engine.query import plan

    from ..loading.kernel import incomplete_fact_files
    from .rounds import run_note

    o = options
    question = plan(parse_body(o.query, "<query>"))
    whys = [ground_fact(f) for f in o.why_facts]
    whynots = [ground_fact(f) for f in o.whynot_facts]
    goals = question.goals | {qualify_literal(w).rel for w in whys + whynots}
    kernel = o.load(source, public_key=o.public_key, refuse_forged=True, reads=frozenset(goals))
    notes: list[str] = []
    if o.facts is not None:  # it answers from the facts as they are: say so when the sources moved on
        from .staleness import stale_warning

        folder = Path(o.facts)
        line = stale_warning(lambda: source.manifest(folder), folder, "ask")
        notes += [line] if line is not None else []
    if o.facts is not None and (o.rules or o.load_as):  # only a program given here can hold a usurping rule
        from .forgery import usurped_facts

        usurped = usurped_facts(kernel)
        if usurped:
            notes.append(
                f"rofl ask: warning: {len(usurped)} fact(s) only usurping rules derive are forged (forged[audit]); "
                "run `rofl audit` to see them"
            )
    run = o.adapter_rounds(kernel, source)  # a refusal names the FILE:LINE it is written at
    notes += run_note(run)
    answer = ask_of(
        kernel,
        o.query,
        question,
        o.budget,
        goals,
        list(zip(o.why_facts, whys)),
        list(zip(o.whynot_facts, whynots)),
        run,
        incomplete_fact_files(kernel) if o.facts is not None else None,
    )
    rounds_partial = bool(run is not None and run.partial)
    if rounds_partial:
        notes.append("-- partial: the round budget ran out; raise --rounds for a complete answer")
    elif answer.partial:
        notes.append("-- partial: the budget ran out; raise --budget for a complete answer")
    return replace(answer, notes=tuple(notes), rounds_partial=rounds_partial, run=run)


def ask_of(
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
    from .rounds import at_boundary

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
