"""`rofl repl` as a real process: garbage, EOF mid-command, errors and non-UTF-8 input never end the session.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import pytest

from tests.cli.user_errors import (
    BIG,
    TC,
    cli,
    repl,
    write,
)
from tests.conftest import EXAMPLES


def test_repl_survives_garbage(tmp_path):
    proc = repl(
        [
            "garbage garbage",
            "?",
            "? path(a, X",
            "why path(a, X)",
            "whynot",
            "excise path(a, b)",
            "retract path(a, X)",
            "budget 5 {",
            "budget 5 { }",
            "budget -1 { ? path(a, X) }",
            "budget 5 { budget 3 { ? path(a, X) } }",
            f"restore {tmp_path / 'nope.store'}",
            f"restore {tmp_path}",
            f"load {tmp_path}",
            f"load {tmp_path / 'nope.rofl'}",
            f"load {EXAMPLES / 'unstratifiable.rofl'}",
            "p(X) :- q(X",
            "edb(X) :- edge(X, _).",
            "\x01\x02",
            "facts $x",
            "? path(a, X)",  # the session still answers; EOF follows without a quit
        ],
        TC,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout
    assert out.rstrip("\n").endswith("X = b\nX = c\nX = d")
    assert out.count("error:") >= 15


def test_repl_eof_mid_command():
    proc = cli("repl", TC, input="? path(a, X)\n? path(a")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert proc.stdout.startswith("X = b\n") and proc.stdout.rstrip().endswith("found end of input")


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("run abc", id="run_abc"),
        pytest.param("save", id="save_without_path"),
        pytest.param("save {tmp}/no/such/dir.store", id="save_into_missing_folder"),
        pytest.param("save {tmp}", id="save_onto_a_directory"),
        pytest.param("load {tmp}/big.rofl", id="load_huge_integer"),
    ],
)
def test_repl_errors_do_not_end_the_session(tmp_path, line):
    write(tmp_path / "big.rofl", f"p({BIG}).\n")
    proc = repl([line.format(tmp=tmp_path), "? edge(a, X)"], TC)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("X = b")
    assert not list(tmp_path.parent.glob(tmp_path.name + ".tmp*"))  # `save DIR` leaves DIR.tmpPID behind


def test_repl_deep_why_does_not_end_the_session(tmp_path):
    lines = [f"e(n{i}, n{i + 1})." for i in range(3000)] + ["r(X) :- e(n0, X).", "r(Y) :- r(X), e(X, Y)."]
    prog = write(tmp_path / "chain.rofl", "\n".join(lines) + "\n")
    proc = repl(["why r(n3000)", "? e(n0, X)"], prog)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("X = n1")


def test_repl_non_utf8_input_under_strict_locale():
    proc = cli("repl", TC, input=b"\xff\xfe garbage\n? edge(a, X)\n", env={"PYTHONIOENCODING": "utf-8:strict"})
    assert b"Traceback" not in proc.stderr
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith(b"X = b")


def test_repl_non_utf8_input_default_locale():
    proc = cli("repl", TC, input=b"\xff\xfe garbage\n? edge(a, X)\n")
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert proc.stdout.rstrip().endswith(b"X = b")


def test_repl_bad_start_is_one_line(tmp_path):
    for args in (
        ("--store", write(tmp_path / "e.store", "")),
        (write(tmp_path / "bad.rofl", "p(\n"),),
        ("--load-as", "Bad", TC),
    ):
        proc = cli("repl", *args, input="? x(X)\n")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
