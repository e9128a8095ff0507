"""Persistence and determinism: byte-identical saved stores, fresh-process restore without parsing, refusal of bad files."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from rofl.engine import persist
from rofl.engine.base.errors import StoreFormatError
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program

from tests.conftest import BOOT, EXAMPLES, ROOT

PROGRAMS = ["sensors.rofl", "tc.rofl", "append.rofl", "arith.rofl", "counter.rofl"]


def combined_clauses():
    clauses = []
    for name in PROGRAMS:
        clauses += [(c, None) for c in parse_program((EXAMPLES / name).read_text(), name)]
    clauses += [(c, "sensor_net") for c in parse_program((EXAMPLES / "sensor_readings.rofl").read_text())]
    return clauses


def saved_bytes(clauses) -> bytes:
    k = Kernel(BOOT)
    for clause, who in clauses:
        k.add_clauses([clause], who)
    return persist.dumps(k.store, k.evaluate())


# each order costs half a second (a clause at a time, evaluated after each); `make test` tries 8, test-all 100
@pytest.mark.parametrize("orders", [8, pytest.param(100, marks=pytest.mark.slow)])
def test_same_program_in_many_insertion_orders_saves_identically(orders):
    clauses = combined_clauses()
    reference = saved_bytes(clauses)
    rng = random.Random(7)
    for _ in range(orders):
        shuffled = clauses[:]
        rng.shuffle(shuffled)
        assert saved_bytes(shuffled) == reference


SAVE_SCRIPT = """
import random, sys
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program
k = Kernel(sys.argv[1])
clauses = parse_program(open(sys.argv[2]).read())
random.Random(int(sys.argv[4])).shuffle(clauses)
k.add_clauses(clauses)
k.run(max_ticks=3)
k.save(sys.argv[3])
"""


@pytest.mark.parametrize("seed", ["0", "1", "4242"])
def test_hash_seed_does_not_change_the_saved_store(tmp_path, seed):
    program = tmp_path / "p.rofl"
    program.write_text("\n".join((EXAMPLES / n).read_text() for n in ["tc.rofl", "counter.rofl", "append.rofl"]))
    outs = []
    for run, hashseed in enumerate(["0", seed]):
        out = tmp_path / f"s{run}.json"
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        subprocess.run(
            [sys.executable, "-c", SAVE_SCRIPT, str(BOOT), str(program), str(out), str(run)],
            check=True,
            env=env,
            cwd=ROOT,
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


RESTORE_SCRIPT = """
import sys
import rofl.engine.lexer, rofl.engine.parse
def refuse(*a, **k):
    raise SystemExit("source was parsed")
rofl.engine.lexer.tokenize = refuse
rofl.engine.parse.parse_program = refuse
rofl.engine.parse.parse_literal = refuse
from rofl.engine.kernel import Kernel
from rofl.engine.clauses import Literal
k = Kernel.restore(sys.argv[1])
print(k.query(Literal("verified", "main", (("$var", "V"),))).rows)
k.save(sys.argv[2])
"""


def test_restored_store_evaluates_identically_in_a_fresh_process_without_parsing(tmp_path):
    k = Kernel(BOOT)
    k.load_sources([(EXAMPLES / "sensors.rofl", None), (EXAMPLES / "sensor_readings.rofl", "sensor_net")])
    first = tmp_path / "a.json"
    k.save(first)
    second = tmp_path / "b.json"
    proc = subprocess.run(
        [sys.executable, "-c", RESTORE_SCRIPT, str(first), str(second)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert proc.stdout.strip() == "((20,), (21,))"
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.slow
def test_saved_store_keeps_scope_history_holes_and_tick_log(tmp_path):
    k = Kernel(BOOT, budget=10_000)
    k.load_file(EXAMPLES / "counter.rofl")
    k.run(max_ticks=3)
    k.load_text("nat(0). nat(Y) :- nat(X), Y is X + 1.")
    path = tmp_path / "s.json"
    k.save(path)
    r = Kernel.restore(path, budget=10_000)
    assert r.store.tick == k.store.tick == 2
    assert r.store.tick_log == k.store.tick_log and r.store.history == k.store.history
    original = k.query("hole(Q, R)").rows
    assert original and set(original) <= set(r.query("hole(Q, R)").rows)  # re-evaluating may add its own hole
    assert r.query("count(X)").rows == ((3,),)
    body = json.loads(path.read_text())["body"]
    assert {"base", "history", "past", "tick_log", "provenance", "tick"} <= set(body)


def _saved(tmp_path) -> bytes:
    k = Kernel(BOOT)
    k.load_file(EXAMPLES / "tc.rofl")
    path = tmp_path / "s.json"
    k.save(path)
    return path.read_bytes()


def test_corrupt_store_is_refused(tmp_path):
    data = _saved(tmp_path)
    flipped = data.replace(b'"edge"', b'"edgy"', 1)
    with pytest.raises(StoreFormatError, match="corrupt"):
        persist.loads(flipped)
    with pytest.raises(StoreFormatError, match="not a rofl store"):
        persist.loads(data[: len(data) // 2])
    with pytest.raises(StoreFormatError, match="not a rofl store"):
        persist.loads(b"\xff\xfe")


def test_newer_version_is_refused(tmp_path):
    data = _saved(tmp_path).replace(b'"version":%d' % persist.VERSION, b'"version":99', 1)
    with pytest.raises(StoreFormatError, match="newer"):
        persist.loads(data)


def test_incremental_reuse_gives_the_same_store_as_one_fresh_evaluation():
    """Evaluations reuse relations whose inputs did not change; the result must not depend on it."""
    clauses = combined_clauses()
    fresh = Kernel(BOOT)
    fresh.load_sources([], evaluate_now=False)
    for clause, who in clauses:
        fresh.add_clauses([clause], who, evaluate_now=False)  # no evaluation in between
    assert fresh.current is None  # nothing was evaluated yet: nothing can be reused
    one_go = persist.dumps(fresh.store, fresh.evaluate())
    step_by_step = saved_bytes(
        [(c, w) for c, w in clauses if w is None] + [(c, w) for c, w in clauses if w == "sensor_net"]
    )
    assert one_go == step_by_step
