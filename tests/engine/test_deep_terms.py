"""Terms and proofs of any depth: parsing, printing, saving and restoring, JSON, why, runs.

The default suite uses depth 20,000; `make test-all` (pytest -m slow) runs the issue's 100,000."""

from __future__ import annotations

import json

import pytest

from rofl.deep import run_deep
from tests.conftest import EXAMPLES


def loads(text: str):
    """json.loads where nesting as deep as the answers fits."""
    return run_deep(lambda: json.loads(text))


SIZES = [5_000, pytest.param(100_000, marks=pytest.mark.slow)]


def cons_list(n: int) -> str:
    return "cons(x, " * n + "nil" + ")" * n


@pytest.mark.slow
@pytest.mark.parametrize("n", SIZES)
def test_a_literal_list_parses_saves_restores_and_prints(rofl, tmp_path, n):
    text = cons_list(n)
    prog = tmp_path / "l.rofl"
    prog.write_text(f"l({text}).\nlen_at_least(1) :- l(cons(x, _)).\n")
    code, out, _ = rofl("ask", "l(X)", prog)
    assert (code, out) == (0, f"X = {text}\n")
    store = tmp_path / "l.store"
    code, out, _ = rofl("save", store, prog)
    assert code == 0
    code, out, err = rofl("ask", "l(X)", "--store", store)
    assert (code, out, err) == (0, f"X = {text}\n", "")
    code, out, _ = rofl("ask", "len_at_least(N)", "--store", store)
    assert (code, out) == (0, "N = 1\n")
    code, out, _ = rofl("ask", "l(X)", "--store", store, "--json")
    value = loads(out)["answers"][0]["X"]
    depth = 0
    while isinstance(value, dict):
        assert value["functor"] == "cons" and value["args"][0] == "x"
        value, depth = value["args"][1], depth + 1
    assert (value, depth) == ("nil", n)


@pytest.mark.slow
@pytest.mark.parametrize("n", SIZES)
def test_why_of_a_derivation_n_deep_prints(rofl, tmp_path, n):
    prog = tmp_path / "chain.rofl"
    prog.write_text(f"n(0).\nn(Y) :- n(X), X < {n}, Y is X + 1.\n")
    code, out, _ = rofl("why", f"n({n})", prog, "--budget", str(3 * n + 100))
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"n[main]({n})    -- by r")
    # past 40 levels a line shows its depth instead of more indentation, so the text stays linear
    assert lines[n] == f"{'  ' * 40}[{n}] n[main](0)    -- base fact" and len(lines) == 1 + 3 * n
    code, out, _ = rofl("why", f"n({n})", prog, "--budget", str(3 * n + 100), "--json")
    tree, depth = loads(out), 0
    while tree.get("children"):
        tree, depth = tree["children"][0], depth + 1
    assert depth == n and tree == {"kind": "base", "fact": "n[main](0)"}


@pytest.mark.slow
def test_a_growing_list_runs_its_ticks(rofl, tmp_path):
    prog = tmp_path / "grow.rofl"
    prog.write_text("l(nil)@init.\nl(cons(x, T))@next :- l(T).\n")
    code, out, _ = rofl("run", prog, "--ticks", "2000", "--budget", "100000000", "--collect", "l", "--json")
    data = json.loads(out)
    assert code == 0 and data["ticks"] == 2000 and not data["partial"]
    assert data["collected"][-1]["facts"] == [f"l[main]({cons_list(1999)})"]


def test_a_diverging_machine_ends_partial_under_a_budget(rofl, tmp_path):
    text = (EXAMPLES / "tm.rofl").read_text().replace("delta(a, 1, 1, r, h)@init.", "delta(a, 1, 1, r, a)@init.")
    text = text.replace("delta(a, 0, 1, r, b)@init.", "delta(a, 0, 1, r, a)@init.")
    prog = tmp_path / "diverge.rofl"
    prog.write_text(text)
    code, out, err = rofl("run", prog, "--budget", "3000", "--json")
    data = json.loads(out)
    assert code == 3 and data["partial"] is True and data["quiescent"] is False and data["ticks"] > 100
    assert "Traceback" not in err
