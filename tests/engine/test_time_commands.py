"""`rofl run`, `rofl save`, `--store` and `rofl repl` as users drive them."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import EXAMPLES, ROOT


def test_run_counter_json(rofl):
    code, out, _ = rofl("run", EXAMPLES / "counter.rofl", "--collect", "count", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["quiescent"] is True and data["partial"] is False and data["ticks"] == 6
    assert data["collected"] == [{"tick": t, "facts": [f"count[main]({t + 1})"]} for t in range(5)] + [
        {"tick": 5, "facts": []}
    ]


def test_run_text_and_tick_limit(rofl):
    code, out, _ = rofl("run", EXAMPLES / "counter.rofl", "--collect", "count", "--ticks", "2")
    assert code == 0
    assert out.splitlines() == [
        "tick 0:",
        "  count[main](1)",
        "tick 1:",
        "  count[main](2)",
        "-- 2 tick(s), stopped at the tick limit",
    ]


def test_run_busy_beaver(rofl):
    code, out, _ = rofl("run", EXAMPLES / "tm.rofl", "--collect", "ones", "--json")
    data = json.loads(out)
    assert data["quiescent"] and data["collected"][-1]["facts"] == ["ones[main](6)"]


def test_run_partial_under_budget(rofl, tmp_path):
    prog = tmp_path / "forever.rofl"
    prog.write_text("n(0)@init.\nn(Y)@next :- n(X), Y is X + 1.\n")
    code, out, _ = rofl("run", prog, "--budget", "3000", "--json")
    data = json.loads(out)
    assert code == 3 and data["partial"] is True and data["quiescent"] is False


def test_save_and_store_flag(rofl, tmp_path):
    store = tmp_path / "s.json"
    code, out, _ = rofl(
        "save", store, EXAMPLES / "sensors.rofl", "--load-as", "sensor_net", EXAMPLES / "sensor_readings.rofl"
    )
    assert code == 0 and store.exists()
    assert rofl("ask", "verified(V)", "--store", store)[1].splitlines() == ["V = 20", "V = 21"]
    assert "not corroborated" in rofl("why", "outlier(s3)", "--store", store)[1]
    assert rofl("whynot", "corroborated(s3)", "--store", store)[0] == 0
    assert (
        "verified[main](21)" in json.loads(rofl("excise", "reading[s1](20)", "--store", store, "--json")[1])["removed"]
    )
    assert rofl("audit", "--store", store)[0] == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, _, err = rofl("ask", "x(X)", "--store", bad)
    assert code == 2 and "not a rofl store file" in err


def test_repl_through_stdin(tmp_path):
    script = "\n".join(
        [
            "edge(1, 2).",
            "edge(2, 3).",
            "path(X, Y) :- edge(X, Y).",
            "path(X, Z) :- edge(X, Y), path(Y, Z).",
            "? path(1, X)",
            "why path(1, 3)",
            "whynot path(3, 1)",
            "this is not a command",
            "p(",
            "retract edge(2, 3)",
            "? path(1, X)",
            "excise edge(1, 2)",
            "who sensor",
            "reading[s9](1).",
            "? asserted_by(F, W)",
            "count(1)@init.",
            "step(Y)@next :- count(X), Y is X + 1.",
            "tick",
            "? step(X)",
            f"save {tmp_path / 'r.json'}",
            f"restore {tmp_path / 'r.json'}",
            "facts step",
            "budget 10 { ? edge(X, Y) }",
            "help",
            "quit",
            "? never(X)",
        ]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "rofl.cli", "repl"], input=script, capture_output=True, text=True, cwd=ROOT
    )
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "X = 2\nX = 3" in out
    assert "path[main](1, 3)    -- by r" in out
    assert "edge[main](3, Y)    -- fails" in out
    assert "error: unknown command 'this'" in out
    assert out.count("error:") == 2
    assert "retracted\nX = 2\n" in out
    assert "- edge[main](1, 2)" in out
    assert "W = sensor" in out
    assert "tick 1: installed 4 fact(s)" in out  # step(2) and boot's three carried imports facts
    assert "saved " in out and "restored " in out
    assert "step[main](2)" in out.split("restored")[1]  # edge facts ended with tick 0
    assert "commands:" in out
    assert "never" not in out  # nothing runs after quit
