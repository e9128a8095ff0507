"""Execution events: dense numbering across threads, silence without listeners, cancellation, JSON round trip."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.base.events import CancelToken, Event, ExecutionCancelled, Recorder, Reporter, current, reporting


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=4))
def test_events_from_many_threads_are_numbered_densely_and_delivered_in_order(counts):
    recorder = Recorder()
    reporter = Reporter("e1", (recorder,))

    def work(n: int) -> None:
        for i in range(n):
            reporter.progress(i + 1, n)

    threads = [threading.Thread(target=work, args=(n,)) for n in counts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reporter.finished({"ok": True})
    seqs = [e.seq for e in recorder.events]
    assert seqs == list(range(1, sum(counts) + 2))
    assert recorder.ended() and recorder.events[-1].type == "finished"
    assert recorder.after(3) == recorder.events[3:]


def test_a_reporter_nobody_listens_to_numbers_nothing():
    reporter = Reporter()
    reporter.started("scan")
    reporter.progress(1, 2)
    assert reporter.last_seq == 0 and not reporter.listening


def test_current_is_the_reporter_set_for_the_call_and_silent_outside():
    recorder = Recorder()
    with reporting(Reporter("x", (recorder,))):
        current().warning("careful")
    current().warning("nobody hears this")
    assert [e.payload.message for e in recorder.events] == ["careful"]


def test_a_cancelled_token_stops_the_handler_at_its_next_safe_point():
    token = CancelToken()
    reporter = Reporter(token=token)
    tick = reporter.progress_callback("files")
    tick(1, 3)
    token.cancel("user asked")
    with pytest.raises(ExecutionCancelled, match="user asked"):
        tick(2, 3)


def test_events_read_back_from_json_equal_the_originals():
    recorder = Recorder()
    reporter = Reporter("abc", (recorder,))
    reporter.started("impact", {"changed": ["a.ts"]})
    reporter.progress(2, 5, "files")
    reporter.warning("w")
    reporter.failed("bad", 2)
    assert [Event.from_json(e.as_json()) for e in recorder.events] == list(recorder.events)
    assert [e.as_json()["type"] for e in recorder.events] == ["started", "progress", "warning", "failed"]


COUNTER = "count(1)@init.\ncount(Y)@next :- count(X), X < 1000, Y is X + 1.\n"


def test_a_run_reports_each_tick_and_stops_between_ticks_when_cancelled():
    from rofl.engine.kernel import Kernel

    from tests.conftest import BOOT

    kernel = Kernel(BOOT)
    kernel.load_text(COUNTER)
    recorder = Recorder()
    reporter = Reporter("run", (recorder,))
    with reporting(reporter):
        report = kernel.run(max_ticks=4)
    assert report.ticks == 4
    assert [(e.payload.done, e.payload.label) for e in recorder.events] == [(1, "ticks"), (2, "ticks"), (3, "ticks")]

    def stop_at_ten(event) -> None:
        if event.payload.done == 10:
            reporter.token.cancel("enough")

    fresh = Kernel(BOOT)
    fresh.load_text(COUNTER)
    reporter = Reporter("run", (stop_at_ten,))
    with reporting(reporter), pytest.raises(ExecutionCancelled):
        fresh.run()
    assert fresh.store.tick == 9  # it stopped after the tenth tick (ticks count from 0), not at the 1,000th


def test_the_command_lines_progress_bar_is_a_listener_of_the_events():
    import io

    from rofl.scanner.progress import BarListener

    screen = io.StringIO()
    bar = BarListener("scanning", screen)
    reporter = Reporter("scan", (bar,))
    reporter.progress(1, 4, "other")  # another label: not this bar's
    for done in range(1, 5):
        reporter.progress(done, 4, "scanning")
    bar.close()
    drawn = screen.getvalue()
    assert "scanning [" in drawn and "4/4" in drawn and "other" not in drawn
    assert drawn.endswith("\r\x1b[2K")  # closed: the line is cleared
