"""Event time: ISO 8601 instants arrive as UTC text with instant(Text, Ms) beside them; a non-instant fails its want."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.event_time import normalise

from tests.adapters.conftest import python_adapter, quote, rows, session


@given(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_any_zoned_instant_normalises_to_the_same_moment_in_utc(moment, offset_minutes):
    moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    zone = timezone(timedelta(minutes=offset_minutes))
    text = moment.replace(tzinfo=zone).isoformat()
    got = normalise(text)
    expected = moment.replace(tzinfo=zone).astimezone(timezone.utc)
    assert got is not None
    assert got.ms == int(expected.timestamp() * 1000) or abs(got.ms - expected.timestamp() * 1000) < 1
    assert got.text == expected.strftime("%Y-%m-%dT%H:%M:%S.") + f"{expected.microsecond // 1000:03d}Z"
    assert normalise(got.text) == got  # normalised text is a fixed point


def test_what_is_not_an_instant():
    for text in (
        "yesterday",
        "2026-10-24T11:00:00",
        "11:00Z",
        "2026-02-30",
        "2026-10-24T25:00:00Z",
        "",
        "1792839600000",
    ):
        assert normalise(text) is None, text
    assert normalise("2026-10-24").text == "2026-10-24T00:00:00.000Z"
    assert normalise("2026-10-24T14:00:00+03:00").text == "2026-10-24T11:00:00.000Z"


CLOSED = """
    import json, sys
    when = {"T-1": "2026-10-24T14:00:00+03:00", "T-2": "2026-10-23", "T-3": "yesterday"}
    for w in json.load(sys.stdin)["wants"]:
        t = w["args"]["ticket"]
        print(f'closed({w["key"]}, "{t}", "{when[t]}").')
"""


def test_answers_carry_utc_text_and_instants_and_a_non_instant_fails_its_want(adapter_env):
    text = f"""
imports(main, tracker).
adapter(tracker, exec, {quote(python_adapter(adapter_env / "closed.py", CLOSED))}).
capability(ticket_closed, tracker, reads).
arg(ticket_closed, 1, ticket, text).
answers(ticket_closed, closed, 3).
event_time(ticket_closed, 3).
ticket("T-1"). ticket("T-2"). ticket("T-3").
want ticket_closed(T) :- ticket(T).
first(A, B) :- closed[tracker](_, A, X), closed[tracker](_, B, Y), instant(X, MX), instant(Y, MY), MX < MY.
"""
    s = session(text)
    report = s.run()
    closed = {t: at for _w, t, at in rows(s.kernel, "closed[tracker](W, T, At)")}
    assert closed == {"T-1": "2026-10-24T11:00:00.000Z", "T-2": "2026-10-23T00:00:00.000Z"}
    assert rows(s.kernel, "first(A, B)") == [("T-2", "T-1")]
    assert [w.text for w, _ in report.failed] == ['ticket_closed("T-3")']
    assert '"yesterday" is not an instant' in report.failed[0][1]
    assert report.failed[0][1].startswith("ADP_HOST_CALL_FAILED")
