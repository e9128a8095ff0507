"""The guest-book world of the render tests: a heading, a card, a field and a button on the workbench, and a
``does`` capability (an SQLite insert, in this process) that a press of the button asks with the field's value."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rofl.engine.terms import quote

BUTTON = 'sign("Sign")'
FIELD = 'name_field("Your name")'


def guest_db(path: Path) -> Path:
    """An empty guest book at ``path``."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS guests(name TEXT)")
    return path


def guests(path: Path) -> list[str]:
    """The names the guest book holds (what the ``does`` capability wrote)."""
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT name FROM guests ORDER BY rowid")]


def guest_world(db: Path, optional: bool = True, card: str = "Ada") -> str:
    """The world: ``optional`` lets it start where ``does`` is not granted (its wants are then held)."""
    return f"""
imports(main, ui).
imports(main, guests).
adapter(ui, render, "workbench").
adapter(guests, sql, {quote(str(db))}).

capability(title, ui, shows).
component(title, heading).
component_order(title, -1).
arg(title, 1, text, text).
answers(title, shown, 1).

capability(guest, ui, shows).
component(guest, card).
arg(guest, 1, name, text).
arg(guest, 2, visits, number).
answers(guest, shown, 1).

capability(name_field, ui, shows).
component(name_field, field).
component_order(name_field, 5).
arg(name_field, 1, label, text).
answers(name_field, typed, 2).

capability(sign, ui, shows).
component(sign, button).
component_order(sign, 6).
arg(sign, 1, label, text).
answers(sign, pressed, 1).

capability(say, ui, shows).
component(say, text).
component_order(say, 9).
arg(say, 1, text, text).
answers(say, shown, 1).

capability(greet, guests, does).
{"optional(greet)." if optional else ""}
arg(greet, 1, name, text).
answers(greet, greeted, 2).
query(greet, "INSERT INTO guests(name) VALUES (?1) RETURNING 'hello ' || name").

page("Guest book", "Your name", "Sign").
known_guest({quote(card)}, 3).
want title(T) :- page(T, _, _).
want name_field(L) :- page(_, L, _).
want sign(B) :- page(_, _, B).
want guest(N, V) :- known_guest(N, V).
want greet(N) :- pressed[ui](B), want_of(B, sign), typed[ui](F, N), want_of(F, name_field).
want say(T) :- greeted[guests](_, T).
"""
