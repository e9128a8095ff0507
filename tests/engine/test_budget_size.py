"""Budgets bound memory and output, not only firings: a step pays for the size of the integers it makes
(one step per bit past 64) and an answer pays for its text (engine.costs), so runaway growth of
integers, deep terms or wide terms over long strings ends partial (exit 3) in bounded memory and
bounded output, through `rofl ask`, `rofl run` and `rofl audit --rules` alike.

The command-line cases run in a subprocess under a memory rlimit and a timeout, with standard output
going to a file: a runaway is an ordinary failure here, never a machine-wide out-of-memory or a hang."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel
from rofl.engine.terms import format_term

from tests.conftest import BOOT

FREE_BITS, ROW_FREE, ROW_STEP = 64, 256, 32  # engine.costs, written out: the original has no such module
TIMEOUT = 60  # seconds: a hang guard, not a speed assertion
ADDRESS_SPACE = 2 * 1024**3  # a runaway fails inside this, it does not take the machine down
PEAK_RSS_KB = 300 * 1024  # peak resident memory of the command: a generous bound of the harness
GROW = "r1[p](1).\nr1[p](N) :- r1[p](Z), N is Z * 4.\n"
DEEP = "r(a).\nr(f(X)) :- r(X).\n"
# no builtin concatenates strings: a long text is built by wrapping one, and g(X, X) doubles it
WIDE = 's("' + "x" * 10_000 + '").\nw(g(S, S)) :- s(S).\nw(g(X, X)) :- w(X).\n'
RUNNER = (
    "import atexit, resource, sys\n"
    "atexit.register(lambda: print(f'MAXRSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr))\n"
    "from rofl.cli import main\n"
    "main()\n"
)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def rofl(tmp_path: Path, *args: str) -> tuple[int, int, int, str]:
    """Run `rofl ARGS` in a fresh process: (exit code, bytes printed on stdout, peak RSS in KiB, stderr)."""
    out = tmp_path / "stdout.txt"
    with out.open("wb") as sink:
        try:
            done = subprocess.run(
                [sys.executable, "-c", RUNNER, *args],
                cwd=tmp_path,
                stdout=sink,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                timeout=TIMEOUT,
                preexec_fn=_limit_memory,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"rofl {' '.join(args)} ran past {TIMEOUT} s")
    err = done.stderr.decode("utf-8", "replace")
    peaks = [int(line.split()[1]) for line in err.splitlines() if line.startswith("MAXRSS ")]
    assert peaks, f"rofl {' '.join(args)} died (exit {done.returncode}): {err[-2000:]}"
    return done.returncode, out.stat().st_size, peaks[-1], err


def program(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prog.rofl"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_integers_multiplied_without_end_under_a_budget_of_20000(tmp_path):
    code, printed, peak, err = rofl(tmp_path, "ask", "r1[p](X)", program(tmp_path, GROW), "--budget", "20000")
    assert code == 3, err
    assert "partial" in err
    assert printed < 2**20
    assert peak < PEAK_RSS_KB


def test_integers_multiplied_without_end_under_the_default_budget(tmp_path):
    code, printed, peak, err = rofl(tmp_path, "ask", "r1[p](X)", program(tmp_path, GROW))
    assert code == 3, err
    assert printed < 2**20
    assert peak < PEAK_RSS_KB


def test_integers_multiplied_without_end_in_a_run(tmp_path):
    code, printed, peak, err = rofl(tmp_path, "run", program(tmp_path, GROW), "--collect", "r1", "--budget", "20000")
    assert code == 3, err
    assert printed < 2**20
    assert peak < PEAK_RSS_KB


@pytest.mark.slow
def test_integers_multiplied_without_end_in_an_audit_of_an_untrusted_rules_file(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text('import { b } from "./b";\nexport const a = b;\n', encoding="utf-8")
    (src / "b.ts").write_text("export const b = 1;\n", encoding="utf-8")
    code, _, _, err = rofl(tmp_path, "scan", str(src), "--out", str(tmp_path / "facts"), "--jobs", "1")
    assert code == 0, err
    rules = tmp_path / "rules.rofl"
    rules.write_text(GROW, encoding="utf-8")
    code, printed, peak, err = rofl(tmp_path, "audit", "--facts", str(tmp_path / "facts"), "--rules", str(rules))
    assert code == 3, err  # audit's exit code for a budget that ran out
    assert peak < PEAK_RSS_KB
    assert printed < 64 * 2**20  # the findings name every fact the usurping rule derived


@pytest.mark.parametrize(
    ("budget", "most"), [(["--budget", "20000"], 2 * 2**20), pytest.param([], 8 * 2**20, marks=pytest.mark.slow)]
)
@pytest.mark.slow
def test_a_term_nested_without_end_prints_a_bounded_answer(tmp_path, budget, most):
    code, printed, peak, err = rofl(tmp_path, "ask", "r(X)", program(tmp_path, DEEP), *budget)
    assert code == 3, err
    assert printed < most  # about 32 characters per step of the budget
    assert peak < PEAK_RSS_KB


@pytest.mark.slow
def test_a_long_string_doubled_in_wide_terms_prints_a_bounded_answer(tmp_path):
    code, printed, peak, err = rofl(tmp_path, "ask", "w(X)", program(tmp_path, WIDE), "--budget", "20000")
    assert code == 3, err  # the 40th row alone would be 10 TB of text
    assert printed < 2 * 2**20
    assert peak < PEAK_RSS_KB


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(factor=st.integers(2, 2**16), budget=st.integers(1_500, 4_000))
def test_the_integers_an_evaluation_makes_are_paid_for_bit_by_bit(factor, budget):
    result = Kernel(BOOT, budget=budget).load_text(f"r(1).\nr(N) :- r(Z), N is Z * {factor}.")
    assert result.partial
    rows = result.rows("r")
    assert sum(max(0, n.bit_length() - FREE_BITS) for _, n in rows) <= budget
    assert len(rows) > 1


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(budget=st.integers(1_500, 4_000), wrap=st.sampled_from(["f(X)", "f(X, 1)", "g(X, X)", "h(a, X, b)"]))
def test_an_answer_pays_for_its_text(budget, wrap):
    k = Kernel(BOOT, budget=budget)
    k.load_text(f"r(a).\nr({wrap}) :- r(X).")
    answers = k.query("r(X)")
    assert answers.partial
    paid = sum(max(0, len(format_term(t)) - ROW_FREE) // ROW_STEP for (t,) in answers.rows)
    assert paid <= budget * 11 // 10  # the text estimate is within a few characters per node
    assert answers.rows  # the first rows are cheap: a partial answer is not an empty one


def test_ordinary_arithmetic_costs_one_step_per_firing_and_a_bignum_its_bits():
    def steps(factor: int) -> int:
        text = f"n(0).\nn(M) :- n(N), N < 1000, M is N + 1.\nbig(Y) :- n(X), Y is X * {factor}.\n"
        return Kernel(BOOT, budget=10**7).load_text(text).steps

    assert steps(3) == steps(2**40)  # integers of 64 bits or fewer cost nothing but their firing
    assert steps(2**80) - steps(3) == sum((x << 80).bit_length() - FREE_BITS for x in range(1, 1001))


def test_an_ordinary_answer_is_free_and_complete():
    k = Kernel(BOOT, budget=1_000)
    k.load_text("".join(f'e("src/module_{i}.ts", "src/module_{i + 1}.ts").\n' for i in range(5_000)))
    answers = k.query("e(X, Y)")
    assert len(answers.rows) == 5_000 and not answers.partial  # rows under 256 characters cost nothing
