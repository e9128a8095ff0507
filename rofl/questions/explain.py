"""The explanation questions: why a fact holds (a derivation tree), why it does not, and what removing it changes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from rofl.engine.base.errors import RoflError
from rofl.engine.explain import Node
from rofl.engine.kernel import Kernel
from rofl.engine.namespace import qualify_literal

from .answer import Answer, doc, skip
from .params import RoundsOptions
from .status import Exit, answered, partial_line

if TYPE_CHECKING:
    from ..loading.source import Source


@dataclass(frozen=True, slots=True)
class ExplainOptions(RoundsOptions):
    """`rofl why`, `rofl whynot` and `rofl excise`'s options (their click parameters' names): one ground FACT
    over the loaded programs (why alone runs adapter rounds)."""

    fact: str = field(kw_only=True)


def ground_fact(text: str) -> Any:
    """Parse the FACT of why/whynot/excise (and ask's --why/--whynot): a ground literal."""
    from rofl.engine.parse import parse_literal
    from rofl.engine.terms import is_ground

    lit = parse_literal(text, "<fact>")
    if not (isinstance(lit.persp, str) and all(is_ground(a) for a in lit.args)):
        raise RoflError(f"<fact>: '{text}' has variables; give a ground fact such as path(a, c)")
    return lit


_NODE_PROPERTIES = {
    "kind": {
        "type": "string",
        "description": "base (asserted), derived (by rule), past (from a finished tick), negation, builtin, aggregate, "
        "solution, holds, missing (no such base fact), rule (a rule that could conclude the fact) or fails "
        "(the premise that fails).",
    },
    "fact": {"type": "string", "description": "The fact (or premise) this node is about."},
    "rule": {"type": "string", "description": "The rule's id, for derived and rule nodes."},
    "rule_text": {"type": "string", "description": "The rule as written."},
    "who": {"type": "string", "description": "Who asserted a base fact (scanner, a --load-as name, ...)."},
    "detail": {"type": "string", "description": "What an aggregate aggregated, or why a premise fails."},
    "children": {"type": "array", "items": {"$ref": "#/$defs/proof_node"}, "description": "The premises."},
    "elided": {
        "type": "integer",
        "description": "How many nodes below this one a bounded answer (an MCP page) left out.",
    },
}


class ProofTree:
    """A derivation tree (``engine.explain.Node``) as JSON: nested objects built without recursion."""

    __slots__ = ("node",)
    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "type": "object",
        "description": "One node of a derivation tree; its children are the premises it rests on.",
        "properties": _NODE_PROPERTIES,
        "$defs": {"proof_node": {"type": "object", "properties": _NODE_PROPERTIES}},
    }

    def __init__(self, node: Node) -> None:
        self.node = node

    def __json__(self) -> dict[str, Any]:
        return self.node.as_dict()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProofTree) and other.node == self.node

    def __hash__(self) -> int:
        return hash(self.node)


@dataclass(frozen=True, slots=True)
class WhyAnswer(Answer):
    """Why a fact holds: one derivation tree down to base facts, or that it does not hold."""

    QUESTION = "why"
    fact: str = doc("The fact asked about, as given.")
    holds: bool = doc("Whether it holds.")
    proof: ProofTree | None = doc("Its derivation tree (its keys are this object's own).", inline=True, omit_none=True)
    forged: tuple[str, ...] = doc("Facts of the tree that are forged (forged[audit]).", default=())
    wants: Mapping[str, Any] | None = doc(
        "With adapters: how each want of the rounds ended.", omit_none=True, default=None
    )
    partial: bool = doc("Whether a budget ran out (a fact that does not hold may hold).", default=False)
    node: Node | None = skip(None)
    notes: tuple[str, ...] = skip(())
    rounds_partial: bool = skip(False)  # the adapter rounds' budget ran out
    run: Any = skip(None)  # the adapter rounds (rofl.questions.rounds.AdapterRun), for what they drew

    def status(self) -> int:
        return answered(self.holds, self.partial or self.rounds_partial)


@dataclass(frozen=True, slots=True)
class WhynotAnswer(Answer):
    """Why a fact does not hold: for each rule that could conclude it, the premise that fails."""

    QUESTION = "whynot"
    proof: ProofTree = doc("The explanation tree (its keys are this object's own).", inline=True)
    holds: bool = doc("Whether the fact holds after all.")
    partial: bool = doc("Whether a budget ran out.", default=False)
    node: Node | None = skip(None)
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return answered(not self.holds, self.partial)  # 0: it does not hold, its failing premises answer


@dataclass(frozen=True, slots=True)
class ExciseAnswer(Answer):
    """What removing one base fact changes: the derived facts lost and gained (recomputed)."""

    QUESTION = "excise"
    removed: tuple[str, ...] = doc("Facts that no longer hold.")
    added: tuple[str, ...] = doc("Facts that hold only without it (through negation).")
    partial: bool = doc("Whether a budget ran out.", default=False)
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.PARTIAL if self.partial else Exit.OK


def why(options: ExplainOptions, source: Source) -> WhyAnswer:
    """One derivation tree of FACT over what ``options`` loads through ``source`` (after the adapter rounds);
    a "does not hold" that cannot be known (an input it needs is not given) is the user error naming it."""
    from .rounds import run_note

    literal = ground_fact(options.fact)
    kernel = options.load(source, reads=frozenset({qualify_literal(literal).rel}))  # its proof reads no other
    run = options.adapter_rounds(kernel, source)
    answer = why_of(kernel, options.fact, literal, run)
    notes = [*run_note(run)]
    line = partial_line(kernel, "why")
    notes += [line] if line is not None else []
    rounds_partial = bool(run is not None and run.partial)
    if rounds_partial:
        notes.append("-- partial: the round budget ran out; raise --rounds for a complete answer")
    if not answer.holds:
        from .inputs import unknowable

        missing = unknowable(kernel, qualify_literal(literal).rel, options.fact)
        if missing is not None:  # "does not hold" would not be known: say what is missing
            raise RoflError(missing)
    if answer.forged:
        forged = answer.forged
        shown = "; ".join(forged[:3]) + (f"; and {len(forged) - 3} more" if len(forged) > 3 else "")
        notes.append(
            f"warning: this derivation rests on {len(forged)} forged fact(s) (forged[audit]: {shown}); run `rofl audit`"
        )
    return replace(answer, notes=tuple(notes), rounds_partial=rounds_partial, run=run)


def whynot(options: ExplainOptions, source: Source) -> WhynotAnswer:
    """For FACT, over what ``options`` loads through ``source``, the failing premise of each rule that could conclude it."""
    literal = ground_fact(options.fact)
    kernel = options.load(source, reads=frozenset({qualify_literal(literal).rel}))  # the rules that could conclude it
    answer = whynot_of(kernel, literal)
    line = partial_line(kernel, "whynot")
    return replace(answer, notes=(line,) if line is not None else ())


def excise(options: ExplainOptions, source: Source) -> ExciseAnswer:
    """The facts lost and gained when base fact FACT is removed, over what ``options`` loads through ``source``."""
    kernel = options.load(source)
    answer = excise_of(kernel, ground_fact(options.fact))
    line = partial_line(kernel, "excise")
    return replace(answer, notes=(line,) if line is not None else ())


def why_of(kernel: Kernel, fact: str, literal: Any, boundary: Any = None) -> WhyAnswer:
    """One derivation tree of the ground ``literal`` (``fact`` as the user wrote it); ``boundary`` marks
    the facts adapters answered (``rofl.questions.rounds.at_boundary``)."""
    from .rounds import at_boundary

    node = kernel.why(literal.rel, literal.persp, literal.args, goals={qualify_literal(literal).rel})
    node = at_boundary(node, boundary) if boundary is not None else node
    partial = bool(kernel.current is not None and kernel.current.partial)
    wants = boundary.as_json() if boundary is not None else None
    if node is None:
        return WhyAnswer(fact=fact, holds=False, proof=None, wants=wants, partial=partial)
    return WhyAnswer(
        fact=fact,
        holds=True,
        proof=ProofTree(node),
        forged=forged_in(node, kernel),
        wants=wants,
        partial=partial,
        node=node,
    )


def whynot_of(kernel: Kernel, literal: Any) -> WhynotAnswer:
    """For each rule that could conclude the ground ``literal``, the premise that fails."""
    node = kernel.whynot(literal.rel, literal.persp, literal.args, goals={qualify_literal(literal).rel})
    partial = bool(kernel.current is not None and kernel.current.partial)
    return WhynotAnswer(proof=ProofTree(node), holds=node.kind == "holds", partial=partial, node=node)


def excise_of(kernel: Kernel, literal: Any) -> ExciseAnswer:
    removed, added = kernel.excise(literal.rel, literal.persp, literal.args)
    partial = bool(kernel.current is not None and kernel.current.partial)
    return ExciseAnswer(removed=tuple(removed), added=tuple(added), partial=partial)


def forged_in(node: Node, kernel: Kernel) -> tuple[str, ...]:
    """The facts of a derivation tree that are forged (``forgery.forged_among``: asked of its facts alone), in
    tree order."""
    from rofl.engine.base.errors import RoflError
    from rofl.engine.namespace import stored_name
    from rofl.engine.parse import parse_program

    from .forgery import forged_among

    texts: dict[str, tuple[str, tuple] | None] = {}
    stack = [node]
    while stack:  # iterative: a derivation may be deep
        n = stack.pop()
        if n.kind in ("base", "derived") and n.text not in texts:
            try:
                head = parse_program(n.text + ".", "<proof>")[0].head
                texts[n.text] = (stored_name(head.rel, head.persp), (head.persp, *head.args))
            except (RoflError, IndexError):
                texts[n.text] = None
        stack.extend(reversed(n.children))
    forged = forged_among(kernel, {ref for ref in texts.values() if ref is not None})
    return tuple(text for text, ref in texts.items() if ref in forged)
