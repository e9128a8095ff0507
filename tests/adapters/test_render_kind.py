"""The render kind: shows wants drawn as components in page order and answered from what a person did (a
field's value, a button's press), a press becoming a does want only the policy grants, the book's checks,
and the plain text a terminal gets."""

from __future__ import annotations

from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.books import DECLARATIONS, BookError
from rofl.adapters.render_kind import RenderAdapter, Shown, Workbench, as_text
from rofl.adapters.rounds import Refused

from tests.adapters.conftest import rows, session
from tests.adapters.render_worlds import BUTTON, FIELD, guest_db, guest_world, guests


def drawn(text: str, workbench: Workbench | None = None, allow: tuple = ()) -> tuple:
    """Run ``text`` with a render adapter holding ``workbench``, without --allow exec; (session, components)."""
    s = session(text, allow, programs=False)
    s.start()
    adapter = s.kinds["render"] = RenderAdapter(workbench or Workbench())
    s.run()
    return s, adapter.components


def outcome(s, cap: str) -> list[tuple]:
    return [(w.text, status, why) for w, (status, why) in s.outcomes.items() if w.cap == cap]


def test_the_wants_are_drawn_in_page_order_from_their_arguments(adapter_env):
    s, components = drawn(guest_world(guest_db(adapter_env / "g.db")))
    assert [(c.kind, c.text) for c in components] == [
        ("heading", "Guest book"),  # component_order -1
        ("card", "Ada"),  # 0 (the default)
        ("field", "Your name"),
        ("button", "Sign"),
    ]
    assert components[1].lines == (("visits", "3"),)  # the other arguments, named by the book
    assert components[2].value is None and not components[3].pressed
    assert rows(s.kernel, "shown[ui](W)") and not rows(s.kernel, "pressed[ui](W)")
    assert not rows(s.kernel, "typed[ui](W, V)")
    assert outcome(s, "greet") == []  # nothing pressed: the world asks nothing of guests
    assert s.processes == 0


def test_a_press_without_does_granted_is_held_and_nothing_runs(adapter_env):
    db = guest_db(adapter_env / "g.db")
    press = Workbench(BUTTON, MappingProxyType({FIELD: "Bob"}))
    s, components = drawn(guest_world(db), press)
    assert rows(s.kernel, "typed[ui](W, V)")[0][1] == "Bob"  # the field's value is its answer
    assert len(rows(s.kernel, "pressed[ui](W)")) == 1
    [(want, status, why)] = outcome(s, "greet")
    assert want == 'greet("Bob")' and status == "want_held"  # the field's value became the argument
    assert why.startswith("ADP_CAPABILITY_DENIED: greet is a does capability") and "--allow does" in why
    assert guests(db) == []  # nothing ran
    assert [c.text for c in components if c.kind == "text"] == []
    assert [c.pressed for c in components if c.kind == "button"] == [True]


def test_a_press_with_does_granted_asks_and_shows_the_answer(adapter_env):
    db = guest_db(adapter_env / "g.db")
    press = Workbench(BUTTON, MappingProxyType({FIELD: "Bob"}))
    s, components = drawn(guest_world(db), press, allow=("does",))
    assert outcome(s, "greet") == [('greet("Bob")', "answered", None)]
    assert guests(db) == ["Bob"]
    assert components[-1].kind == "text" and components[-1].text == "hello Bob"  # drawn in a later round


def test_a_world_that_requires_does_refuses_to_start_without_it(adapter_env):
    db = guest_db(adapter_env / "g.db")
    with pytest.raises(Refused, match=r"ADP_CAPABILITY_DENIED: the world needs greet \(does\).*--allow does"):
        drawn(guest_world(db, optional=False))


def test_a_field_answers_its_initial_value_until_a_person_types(adapter_env):
    world = """
    imports(main, ui). adapter(ui, render, "workbench").
    capability(box, ui, shows). component(box, field). arg(box, 1, label, text). arg(box, 2, value, text).
    answers(box, typed, 2).
    want box("Query", "cycles") :- 1 = 1.
    """
    s, [field] = drawn(world)
    assert field.value == "cycles" and rows(s.kernel, "typed[ui](W, V)")[0][1] == "cycles"
    s, [field] = drawn(world, Workbench(None, MappingProxyType({field.want: "x"})))
    assert field.value == "x" and rows(s.kernel, "typed[ui](W, V)")[0][1] == "x"


BOOK = """
imports(main, ui). adapter(ui, {kind}, {address}).
capability(c, ui, {klass}). {component} arg(c, 1, text, text). answers(c, shown, {arity}).
want c("hi") :- 1 = 1.
"""


def book(**over: str) -> str:
    values = {
        "kind": "render",
        "address": '"workbench"',
        "klass": "shows",
        "component": "component(c, heading).",
        "arity": "1",
    }
    return BOOK.format(**{**values, **over})


@pytest.mark.parametrize(
    ("over", "code", "words"),
    [
        ({"component": ""}, "ADP_UNSUPPORTED_CAPABILITY", "has no component(c, Kind)"),
        ({"address": '"screen"'}, "ADP_NO_MATCHING_ADAPTER", 'address is "workbench"'),
        (
            {"arity": "2"},
            "ADP_UNSUPPORTED_CAPABILITY",
            "a heading answers that it was shown; write answers(c, Relation, 1)",
        ),
        ({"component": "component(c, field)."}, "ADP_UNSUPPORTED_CAPABILITY", "answers(c, Relation, 2)"),
        ({"klass": "does"}, "ADP_UNSUPPORTED_CAPABILITY", "a render adapter cannot serve a does capability"),
        ({"klass": "reads"}, "ADP_UNSUPPORTED_CAPABILITY", "a render adapter cannot serve a reads capability"),
    ],
)
def test_a_capability_the_kind_cannot_draw_fails_locally(adapter_env, over, code, words):
    text = book(**over).replace("capability(c, ui", "optional(c). capability(c, ui")
    s, components = drawn(text, allow=("does",))
    [(_, status, why)] = outcome(s, "c")
    assert status == "failed" and why.startswith(code) and words in why, why
    assert components == ()


def test_a_capability_without_arguments_fails_locally(adapter_env):
    s, _ = drawn(book().replace("arg(c, 1, text, text).", ""))
    [(_, status, why)] = outcome(s, "c")
    assert status == "failed" and "shows its want's first argument" in why


@pytest.mark.parametrize(
    ("component", "words"),
    [
        ("component(c, widget).", "Kind one of heading, text, card, button, field"),
        ('component(c, "heading").', "Kind one of"),
        ("component(c).", "component takes 2 arguments"),
        ("component(c, heading). component(c, text).", "has two component declarations"),
        ("component_order(c, 1).", "has component_order but no component(c, Kind)"),
        ('component(c, heading). component_order(c, "first").', "an integer N"),
    ],
)
def test_a_malformed_component_declaration_is_a_book_error(adapter_env, component, words):
    with pytest.raises(BookError, match="book declaration") as raised:
        drawn(book(component=component))
    assert words in str(raised.value)


def test_data_cannot_declare_components(adapter_env, rofl):
    assert {"component", "component_order"} <= set(DECLARATIONS)
    (adapter_env / "world.rofl").write_text(book(component=""))
    (adapter_env / "data.rofl").write_text("component(c, heading).\n")
    code, out, err = rofl("ask", "shown[ui](W)", "world.rofl", "--load-as", "sensor", "data.rofl")
    assert code == 2 and "ADP_CAPABILITY_DENIED" in err and "component(c, heading)" in err and "sensor" in err


def test_a_terminal_gets_the_components_as_text_and_a_pipe_only_the_answer(adapter_env, rofl, monkeypatch):
    (adapter_env / "world.rofl").write_text(guest_world(guest_db(adapter_env / "g.db")))
    code, piped, _ = rofl("ask", "shown[ui](W)", "world.rofl")
    assert code == 0 and "==========" not in piped and piped.startswith("W = ")
    monkeypatch.setattr("rofl.rounds.on_terminal", lambda: True)
    code, out, _ = rofl("ask", "shown[ui](W)", "world.rofl")
    assert code == 0
    assert out.startswith("Guest book\n==========\n+-- Ada\n| visits: 3\n+--\nYour name: [____]\n[ Sign ]\n\n")
    assert out.endswith(piped)


def shown(kind: str, text: str, lines: tuple = (), value: str | None = None) -> Shown:
    return Shown(f"c({text!r})", "c", kind, text, lines, value, False)


TEXTS = st.text(st.characters(codec="utf-8"), max_size=40)


@given(st.sampled_from(["heading", "text", "card", "button", "field"]), TEXTS, TEXTS, TEXTS)
def test_each_text_of_a_component_stays_on_its_own_line_without_control_characters(kind, text, name, value):
    out = as_text((shown(kind, text, ((name, value),), value if kind == "field" else None),))
    lines = out.split("\n")
    assert all(ch >= " " and ch != "\x7f" for line in lines for ch in line)
    assert len(lines) == {"heading": 3, "card": 3, "text": 2, "button": 2, "field": 2}[kind]
    flat = "".join(ch for ch in " ".join(text.splitlines()) if ch >= " " and ch != "\x7f")
    assert flat in lines[0]  # the component's own text, whole, on its first line
