"""A question never runs adapters itself: the rounds of a world with want rules are run by its ``Source``'s runner.

The command line and the servers give their sources ``rofl.rounds.rounds_of``; a source with no runner
refuses such a world in one line instead of answering as if nothing had been asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rofl.engine.base.errors import RoflError

from rofl.loading.source import Source
from rofl.questions.ask import AskOptions, ask
from rofl.questions.rounds import AdapterRun

WANTING = 'item("ab").\nwant reverse(X) :- item(X).\n'
PLAIN = 'item("ab").\n'


class Report:
    partial = False

    def summary(self) -> str:
        return "1 round, 0 wants answered"

    def as_json(self) -> dict:
        return {"rounds": 1}


def options(tmp_path: Path, text: str) -> AskOptions:
    program = tmp_path / "world.rofl"
    program.write_text(text)
    return AskOptions(files=(str(program),), allow=("reads",), rounds=3, query="item(X)")


def test_a_world_with_want_rules_has_its_rounds_run_by_the_sources_runner(tmp_path):
    calls = []

    def runner(kernel, allow, rounds, files):
        calls.append((allow, rounds, files))
        return AdapterRun(session=None, report=Report())

    o = options(tmp_path, WANTING)
    answer = ask(o, Source(runner))
    assert calls == [(("reads",), 3, o.files)]
    assert "rofl: 1 round, 0 wants answered" in answer.notes
    assert answer.wants == {"rounds": 1}


def test_a_source_that_runs_no_adapters_refuses_a_world_with_want_rules_in_one_line(tmp_path):
    with pytest.raises(RoflError) as refused:
        ask(options(tmp_path, WANTING), Source())
    assert "\n" not in str(refused.value) and "want rules" in str(refused.value)


def test_a_world_without_want_rules_never_calls_the_runner(tmp_path):
    def runner(*args):
        raise AssertionError("no want rule: no rounds")

    answer = ask(options(tmp_path, PLAIN), Source(runner))
    assert answer.run is None and answer.notes == ()
