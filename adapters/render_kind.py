"""The render kind: each want of a ``shows`` capability is one component (heading, text, card, button, field) drawn for a person on the workbench, answered from what that person did.

The book's address is ``"workbench"``; ``component(Cap, Kind)`` says what each want of ``Cap`` draws and
``component_order(Cap, N)`` where it stands (ascending N, default 0, then in the order the wants were
first shown).  A component's content is its want's arguments: argument 1 is its text (a heading's, a
paragraph's, a card's title, a button's label, a field's label), a field's argument 2 its initial
value, and every other argument a line ``name: value`` under it (``name`` from the book's ``arg``).

What comes back is what the person did, so a world can act on it with its own want rules:

* heading, text, card: ``answers(Cap, Rel, 1)``, one row: the component was shown;
* field: ``answers(Cap, Rel, 2)``, one row holding the value the field holds (what the person typed,
  else its initial value; no row when it holds neither);
* button: ``answers(Cap, Rel, 1)``, one row when this evaluation is the press of that button, none
  otherwise.  A press never runs anything itself: a world's ``want`` rule that reads the row asks a
  ``does`` capability, which the host's policy must grant (``--allow does``) like any other.

Drawing happens in this process (nothing starts, no socket opens): the components are kept on the
adapter (``RenderAdapter.components``) for whoever shows them, a page of ``rofl server``
(``servers/render_page.py``) or a terminal (``as_text``).  What the person did arrives as a
``Workbench`` given to the adapter before the rounds run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from rofl.engine.terms import Term, format_term

from .batch import Batch, Reply
from .books import Book, Capability
from .policy import NO_MATCHING_ADAPTER, UNSUPPORTED_CAPABILITY, why
from .secrets import Scrubber
from .wants import Want

if TYPE_CHECKING:
    from .kinds import KindContext

ADDRESS = "workbench"
MAX_VALUE = 10_000  # characters a field's value may hold
# the answer arity each component kind has, and what its one row means
ARITY = {"heading": 1, "text": 1, "card": 1, "button": 1, "field": 2}
MEANS = {
    "heading": "that it was shown",
    "text": "that it was shown",
    "card": "that it was shown",
    "button": "that it was pressed",
    "field": "the value it holds",
}


def check(cap: Capability, book: Book) -> str | None:
    """Why a capability of a render book cannot be served (decided locally), or None."""
    if book.address != ADDRESS:
        return why(NO_MATCHING_ADAPTER, f'adapter {book.name}: a render adapter\'s address is "{ADDRESS}"')
    if cap.render is None:
        return why(
            UNSUPPORTED_CAPABILITY,
            f"capability {cap.name} has no component({cap.name}, Kind) for its render book "
            "(Kind: heading, text, card, button or field)",
        )
    kind = cap.render.kind
    if cap.answer_arity != ARITY[kind]:
        return why(
            UNSUPPORTED_CAPABILITY,
            f"capability {cap.name}: a {kind} answers {MEANS[kind]}; write answers({cap.name}, Relation, {ARITY[kind]})",
        )
    if not cap.args:
        return why(
            UNSUPPORTED_CAPABILITY,
            f"capability {cap.name}: a {kind} shows its want's first argument; declare arg({cap.name}, 1, text, text)",
        )
    return None


@dataclass(frozen=True, slots=True)
class Workbench:
    """What the person did: the button pressed (its want's text, as ``Shown.want``) and the value typed
    into each field (by the field's want text)."""

    pressed: str | None = None
    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class Shown:
    """One component drawn: its want's text (its name on a page and in a press), capability, kind, text,
    the lines under it (``(name, value)``), a field's value, whether this evaluation pressed it."""

    want: str
    cap: str
    kind: str
    text: str
    lines: tuple[tuple[str, str], ...]
    value: str | None
    pressed: bool

    def as_json(self) -> dict:
        return {
            "want": self.want,
            "capability": self.cap,
            "kind": self.kind,
            "text": self.text,
            "lines": [{"name": n, "value": v} for n, v in self.lines],
            "value": self.value,
            "pressed": self.pressed,
        }


def term_text(term: Term) -> str:
    """A want argument as a person reads it: a string as itself, an atom as its name, else ROFL text."""
    if type(term) is str:
        return term
    if isinstance(term, tuple) and len(term) == 1 and type(term[0]) is str:
        return term[0]
    return format_term(term)


class RenderAdapter:
    """Draws the components of a session's ``shows`` wants and answers them from ``workbench``."""

    def __init__(self, workbench: Workbench | None = None, scrubber: Scrubber | None = None) -> None:
        self.workbench = workbench or Workbench()
        self.scrubber = scrubber or Scrubber(())
        self._shown: dict[str, tuple[tuple[int, int], Shown]] = {}

    def ask(self, batch: Batch) -> Reply:
        cap = batch.cap
        assert cap.render is not None  # check() refused it otherwise
        answers: dict[Want, tuple[tuple, ...]] = {}
        for want in batch.wants:
            shown = self._draw(cap, want)
            if shown.want not in self._shown:
                self._shown[shown.want] = ((cap.render.order, len(self._shown)), shown)
            if shown.kind == "field":
                answers[want] = () if shown.value is None else ((shown.value,),)
            elif shown.kind == "button":
                answers[want] = ((),) if shown.pressed else ()
            else:
                answers[want] = ((),)
        return Reply(answers, {})

    def _draw(self, cap: Capability, want: Want) -> Shown:
        kind = cap.render.kind if cap.render is not None else "text"
        texts = [self.scrubber.scrub(term_text(a)) for a in want.args]
        names = [a.name for a in cap.args]
        rest = 2 if kind == "field" else 1
        typed = self.workbench.values.get(want.text)
        value = typed if typed is not None else (texts[1] if kind == "field" and len(texts) > 1 else None)
        return Shown(
            want.text,
            cap.name,
            kind,
            texts[0] if texts else "",
            tuple(zip(names[rest:], texts[rest:])),
            value if kind == "field" else None,
            kind == "button" and self.workbench.pressed == want.text,
        )

    @property
    def components(self) -> tuple[Shown, ...]:
        """Every component drawn so far, in page order."""
        return tuple(shown for _, shown in sorted(self._shown.values(), key=lambda kv: kv[0]))


def as_text(components: tuple[Shown, ...]) -> str:
    """The components as plain text for a terminal, one block each, in page order ("" when none)."""
    out: list[str] = []
    for c in components:
        text = _one_line(c.text)
        if c.kind == "heading":
            out += ["", text, "=" * max(len(text), 3)] if out else [text, "=" * max(len(text), 3)]
        elif c.kind == "text":
            out.append(text)
        elif c.kind == "card":
            out += [f"+-- {text}"]
        elif c.kind == "button":
            out.append(f"[ {text} ]{'  (pressed)' if c.pressed else ''}")
        else:
            out.append(f"{text}: [{_one_line(c.value) if c.value is not None else '____'}]")
        bar = "| " if c.kind == "card" else "  "
        out += [f"{bar}{_one_line(n)}: {_one_line(v)}" for n, v in c.lines]
        if c.kind == "card":
            out.append("+--")
    return "\n".join(out)


def _one_line(text: str) -> str:
    """``text`` on one line of a terminal: line breaks as spaces, control characters left out."""
    flat = " ".join(text.splitlines())
    return "".join(ch for ch in flat if ch >= " " and ch != "\x7f")


def make_adapter(context: KindContext) -> RenderAdapter:
    """The render kind's adapter for one session: nothing pressed, no field typed (a terminal); a page
    gives the session an adapter holding what its person did (``servers/render_routes.py``)."""
    return RenderAdapter(Workbench(), context.scrubber)
