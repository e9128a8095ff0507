"""The sql kind: the book's query, the want's arguments bound as parameters, read-only for reads, a row an answer."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.adapters.conftest import quote, rows, session


def make_db(path, people: list[tuple[str, str]]) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE people (name TEXT, team TEXT)")
        db.executemany("INSERT INTO people VALUES (?, ?)", people)


def world(db, query: str = "SELECT team FROM people WHERE name = ?1", klass: str = "reads") -> str:
    return f"""
imports(main, hr).
adapter(hr, sql, {quote(str(db))}).
capability(team_of, hr, {klass}).
arg(team_of, 1, name, text).
answers(team_of, team, 2).
query(team_of, {quote(query)}).
"""


HOSTILE_NAMES = [
    "o'brien",
    "x'; DROP TABLE people; --",
    '"; DELETE FROM people WHERE "1"="1',
    "1 OR 1=1",
    "?1",
]


def test_arguments_with_quotes_and_drop_table_are_bound_never_spliced(adapter_env):
    db = adapter_env / "hr.db"
    make_db(db, [(n, f"team{i}") for i, n in enumerate(HOSTILE_NAMES)] + [("alice", "core")])
    items = "".join(f"person({quote(n)}).\n" for n in HOSTILE_NAMES)
    s = session(world(db) + items + "want team_of(N) :- person(N).\n")
    report = s.run()
    assert len(report.answered) == len(HOSTILE_NAMES) and not report.failed
    found = {n: t for _w, t, n in rows(s.kernel, "team[hr](W, T), want_arg(W, 1, N)")}
    assert found == {n: f"team{i}" for i, n in enumerate(HOSTILE_NAMES)}
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT count(*) FROM people").fetchone() == (len(HOSTILE_NAMES) + 1,)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20))
def test_any_text_argument_finds_exactly_its_row(adapter_env, name):
    db = adapter_env / "prop.db"
    db.unlink(missing_ok=True)
    make_db(db, [(name, "found"), (name + "x", "other")])
    s = session(world(db) + f"person({quote(name)}).\nwant team_of(N) :- person(N).\n")
    s.run()
    assert [t for _w, t in rows(s.kernel, "team[hr](W, T)")] == ["found"]


def test_a_reads_capability_opens_the_database_read_only(adapter_env):
    db = adapter_env / "hr.db"
    make_db(db, [("alice", "core")])
    query = "UPDATE people SET team = 'pwned' WHERE name = ?1 RETURNING team"
    s = session(world(db, query) + 'person("alice").\nwant team_of(N) :- person(N).\n')
    report = s.run()
    assert report.failed and "not authorized" in report.failed[0][1].lower()  # the authorizer, before mode=ro
    assert report.failed[0][1].startswith("ADP_HOST_CALL_FAILED: adapter hr:")
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT team FROM people").fetchall() == [("core",)]


def test_a_does_capability_may_write_when_allowed(adapter_env):
    db = adapter_env / "hr.db"
    make_db(db, [("alice", "core")])
    query = "UPDATE people SET team = 'infra' WHERE name = ?1 RETURNING team"
    s = session(world(db, query, "does") + 'person("alice").\nwant team_of(N) :- person(N).\n', allow=("does",))
    s.run()
    assert rows(s.kernel, "team[hr](W, T)")[0][1] == "infra"
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT team FROM people").fetchall() == [("infra",)]


def test_two_statements_in_a_query_fail_and_change_nothing(adapter_env):
    db = adapter_env / "hr.db"
    make_db(db, [("alice", "core")])
    s = session(
        world(db, "SELECT team FROM people WHERE name = ?1; DROP TABLE people") + 'person("alice").\n'
        "want team_of(N) :- person(N).\n"
    )
    report = s.run()
    assert report.failed and report.failed[0][1].startswith("ADP_HOST_CALL_FAILED")
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT count(*) FROM people").fetchone() == (1,)


def test_a_missing_database_is_no_matching_adapter(adapter_env):
    s = session(world(adapter_env / "absent.db") + 'person("alice").\nwant team_of(N) :- person(N).\n')
    report = s.run()
    assert report.failed[0][1].startswith("ADP_NO_MATCHING_ADAPTER: adapter hr: no SQLite file")
    assert not (adapter_env / "absent.db").exists()


def test_a_sql_capability_without_a_query_fails_locally(adapter_env):
    db = adapter_env / "hr.db"
    make_db(db, [("alice", "core")])
    text = world(db).replace("query(team_of", "-- query(team_of")
    report = session(text + 'person("alice").\nwant team_of(N) :- person(N).\n').run()
    assert report.failed[0][1].startswith("ADP_UNSUPPORTED_CAPABILITY: capability team_of has no query")
