"""The kernel commands as users call them: output formats and exit codes."""

from __future__ import annotations

import json

from tests.conftest import EXAMPLES

SENSORS = [str(EXAMPLES / "sensors.rofl"), "--load-as", "sensor_net", str(EXAMPLES / "sensor_readings.rofl")]


def test_ask_text_and_json(rofl):
    code, out, _ = rofl("ask", "path(a, X)", EXAMPLES / "tc.rofl")
    assert code == 0 and out.splitlines() == ["X = b", "X = c", "X = d"]
    code, out, _ = rofl("ask", "path(X, d)", EXAMPLES / "tc.rofl", "--json")
    assert json.loads(out) == {
        "version": 1,
        "query": "path(X, d)",
        "answers": [{"X": "a"}, {"X": "b"}, {"X": "c"}],
        "partial": False,
    }
    code, out, _ = rofl("ask", "path(d, X)", EXAMPLES / "tc.rofl")
    assert code == 1 and out.strip() == "no"


def test_ask_json_values_are_json(rofl, tmp_path):
    prog = tmp_path / "v.rofl"
    prog.write_text('v("a \\"q\\"", f(b, g(2, "s")), -3, 123456789012345678901234567890).')
    code, out, _ = rofl("ask", "v(S, T, N, B)", prog, "--json")
    assert json.loads(out)["answers"] == [
        {
            "S": 'a "q"',
            "T": {"functor": "f", "args": ["b", {"functor": "g", "args": [2, "s"]}]},
            "N": -3,
            "B": 123456789012345678901234567890,
        }
    ]


def test_ask_with_load_as(rofl):
    code, out, _ = rofl("ask", "verified(V)", *SENSORS)
    assert code == 0 and out.splitlines() == ["V = 20", "V = 21"]


def test_why_and_exit_codes(rofl):
    code, out, _ = rofl("why", "outlier(s3)", *SENSORS)
    assert code == 0 and "not corroborated[main](s3)" in out and "close[main](95, " in out
    code, out, _ = rofl("why", "outlier(s1)", *SENSORS)
    assert code == 1
    code, out, _ = rofl("why", "path(a, d)", EXAMPLES / "tc.rofl", "--json")
    tree = json.loads(out)
    assert tree["kind"] == "derived" and tree["children"][0] == {"kind": "base", "fact": "edge[main](a, b)"}


def test_whynot(rofl):
    code, out, _ = rofl("whynot", "corroborated(s3)", *SENSORS)
    assert code == 0 and "fails" in out and "close[main](95, " in out
    code, out, _ = rofl("whynot", "verified(20)", *SENSORS)
    assert code == 1


def test_excise_json(rofl):
    code, out, _ = rofl("excise", "reading[s1](20)", *SENSORS, "--json")
    diff = json.loads(out)
    assert code == 0
    assert "verified[main](21)" in diff["removed"] and diff["added"] == ["outlier[main](s2)"]


def test_audit_exit_codes_and_forged_via_load_as(rofl, tmp_path):
    code, out, _ = rofl("audit", *SENSORS)
    assert code == 0
    forged = tmp_path / "forged.rofl"
    forged.write_text("reading[s1](99).\n")
    code, out, _ = rofl("audit", *SENSORS, "--load-as", "mallory", forged)
    assert code == 1
    assert "forged" in out and "$fact(reading, s1, $args(99))" in out
    code, out, _ = rofl("audit", *SENSORS, "--load-as", "mallory", forged, "--json")
    assert json.loads(out)["audits"]["forged"] == ["forged[audit]($fact(reading, s1, $args(99)))"]


def test_syntax_error_is_one_line_exit_2(rofl, tmp_path):
    bad = tmp_path / "bad.rofl"
    bad.write_text("ok(1).\np(X) :- q(X)\n")
    code, out, err = rofl("ask", "ok(X)", bad)
    assert code == 2
    assert err.strip() == f"{bad}:3:1: expected '.' at the end of the rule, found end of input"
    assert "Traceback" not in out + err


def test_refused_loads_exit_2(rofl, tmp_path):
    code, _, err = rofl("ask", "p(X)", EXAMPLES / "unstratifiable.rofl")
    assert code == 2 and err.startswith("unstratified") and "reach[boot]" in err
    breach = tmp_path / "breach.rofl"
    breach.write_text("x(1).\nedb(X) :- x(X).\n")
    code, _, err = rofl("ask", "x(X)", breach)
    assert code == 2 and "reserved relation 'edb'" in err and err.count("\n") == 1


def test_missing_file_and_bad_who(rofl, tmp_path):
    code, _, err = rofl("ask", "x(X)", tmp_path / "nope.rofl")
    assert code == 2 and "no such file" in err
    code, _, err = rofl("ask", "x(X)", "--load-as", "Bad-Name", EXAMPLES / "tc.rofl")
    assert code == 2 and "not an atom" in err


def test_budget_marks_partial(rofl, tmp_path):
    prog = tmp_path / "nat.rofl"
    prog.write_text("nat(0).\nnat(Y) :- nat(X), Y is X + 1.\n")
    code, out, _ = rofl("ask", "nat(X)", prog, "--budget", "500", "--json")
    data = json.loads(out)
    assert code == 3 and data["partial"] is True and 0 < len(data["answers"]) <= 500
    code, out, err = rofl("ask", "nat(X)", prog, "--budget", "10")
    assert code == 3 and "partial" in err


def test_help_and_version_import_no_command_module():
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from rofl.cli import main\n"
        "for args in (['--help'], ['--version']):\n"
        "    assert CliRunner().invoke(main, args).exit_code == 0\n"
        "loaded = [m for m in sys.modules if m.startswith(('engine', 'scanner', 'rofl.commands.', 'networkx'))]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_listed_command_resolves(rofl):
    from rofl.cli import COMMANDS

    for name in COMMANDS:
        code, out, _ = rofl(name, "--help")
        assert code == 0 and "Usage:" in out
