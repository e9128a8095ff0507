"""Adversarial but realistic inputs for every command.

The contract under test (README, "Commands"): every error a user can cause (bad syntax, a missing
file, a bad flag, unreadable input, the wrong kind of file) prints ONE line on stderr naming the
problem and exits 2, never a Python traceback.  Exit 1 is only for findings (audit rows, `why` of a
fact that does not hold, `whynot` of one that holds).

In-process calls go through the ``rofl`` fixture (click's CliRunner with ``catch_exceptions=False``),
so a traceback surfaces as an exception in the test.  The REPL and anything that depends on real
process streams run as ``python -m rofl.cli`` subprocesses.

Tests marked ``xfail(strict=True, reason="BUG: ...")`` document a bug that is still open; they
XPASS (and so fail, being strict) once it is fixed: then drop the marker.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT

TC = EXAMPLES / "tc.rofl"
COUNTER = EXAMPLES / "counter.rofl"
SENSORS = (EXAMPLES / "sensors.rofl", "--load-as", "sensor_net", EXAMPLES / "sensor_readings.rofl")


def bug(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"BUG: {reason}")


def assert_user_error(result, *needles: str) -> str:
    """Exit 2, exactly one line on stderr, no traceback, and every needle in that line."""
    code, out, err = result
    assert "Traceback" not in out + err
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def assert_no_crash(result, ok=(0,)) -> None:
    """Either a normal exit in ``ok`` or a proper user error (exit 2, one line); never a traceback.

    For bugs with two acceptable fixes (e.g. accept a huge integer, or refuse it in one line).
    """
    code, out, err = result
    assert "Traceback" not in out + err
    if code == 2:
        assert_user_error(result)
    else:
        assert code in ok, (code, out, err)


def cli(*args, input: str | bytes | None = None, env: dict | None = None, cwd: Path = ROOT, timeout: float = 60):
    """Run ``python -m rofl.cli ARGS`` as a real process (text mode unless ``input`` is bytes)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    text = not isinstance(input, bytes)
    return subprocess.run(
        [sys.executable, "-m", "rofl.cli", *[os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]],
        input=input,
        capture_output=True,
        text=text,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        errors="surrogateescape" if text else None,  # file names that are not UTF-8 come back as their bytes
    )


def repl(lines: list[str], *args, env: dict | None = None):
    return cli("repl", *args, input="\n".join(lines) + "\n", env=env)


def write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return path


# -- a tiny scanned tree, shared; tests that mutate it take their own copy ----------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """``(src, facts)``: a two-file TS tree (a.ts imports b.ts) scanned once; not inside a git repo."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("tiny")
    src = root / "src"
    src.mkdir()
    (src / "a.ts").write_text('import { x } from "./b";\nexport const y = x + 1;\n')
    (src / "b.ts").write_text("export const x = 2;\n")
    facts = root / "facts"
    result = CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return src, facts


@pytest.fixture
def facts_copy(tiny, tmp_path):
    """A private copy of the tiny scan's fact folder (without its compiled cache)."""
    dst = tmp_path / "facts"
    shutil.copytree(tiny[1], dst, ignore=shutil.ignore_patterns(".rofl-store.cache"))
    return dst


def first_fact_file(facts: Path) -> Path:
    return sorted((facts / "code").glob("*.rofl"))[0]


def edit_manifest(facts: Path, change) -> None:
    path = facts / "manifest.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


# ======================================================================================================
# Program files
# ======================================================================================================

BAD_PROGRAMS = {
    "binary": (bytes(range(256)), "UTF-8"),
    "not_utf8": (b"edge(a, b).\n\xff\xfe\n", "UTF-8"),
    "latin1_atom": ("edge(a, caf\u00e9).\n".encode("latin-1"), "UTF-8"),
    "nul_byte": (b"edge(a, b).\x00\n", ":1:12:"),
    "vertical_tab": (b"edge(a, b).\v\n", ":1:"),
    "unterminated_string_at_eof": (b'edge(a, "b', "unterminated string"),
    "unterminated_term_at_eof": (b"edge(a, b", ":1:10:"),
    "rule_without_dot_at_eof": (b"p(X) :- edge(X, _)", "expected '.'"),
    "newline_in_string": (b'edge(a, "b\nc").\n', "unterminated string"),
    "unknown_escape": (b'edge(a, "\\q").\n', "unknown escape"),
    "fullwidth_paren": ("edge\uff08a, b).\n".encode(), ":1:5:"),
    "block_comment": (b"/* no */ edge(a, b).\n", ":1:1:"),
    "hash_comment": (b"# no\nedge(a, b).\n", ":1:1:"),
    "zero_arity": (b"edge().\n", ":1:6:"),
    "variable_in_fact": (b"edge(a, X).\n", "must be ground"),
    "next_on_fact": (b"edge(a, b)@next.\n", "@next"),
    "rule_into_reserved": (b"edb(X) :- edge(X, _).\nedge(a, b).\n", "reserved relation 'edb'"),
    "unsafe_is": (b"p(Y) :- Y is X + 1.\n", "unsafe rule"),
    "dollar_name": (b"$p(a).\n", "'$' names"),
}


@pytest.mark.parametrize("name", sorted(BAD_PROGRAMS))
def test_bad_program_file_is_one_line_naming_the_file(rofl, tmp_path, name):
    data, needle = BAD_PROGRAMS[name]
    prog = write(tmp_path / f"{name}.rofl", data)
    line = assert_user_error(rofl("ask", "edge(X, Y)", prog), needle)
    assert str(prog) in line


def test_bom_is_read_or_refused_in_one_line(rofl, tmp_path):
    prog = write(tmp_path / "bom.rofl", b"\xef\xbb\xbfedge(a, b).\n")
    result = rofl("ask", "edge(X, Y)", prog)
    assert_no_crash(result)
    if result[0] == 2:
        assert f"{prog}:1:1:" in result[2]
    else:
        assert result[1] == "X = a, Y = b\n"


def test_missing_program_file(rofl, tmp_path):
    assert_user_error(rofl("ask", "x(X)", tmp_path / "nope.rofl"), "no such file", str(tmp_path / "nope.rofl"))


def test_store_file_given_as_program(rofl, tmp_path):
    store = tmp_path / "s.store"
    assert rofl("save", store, TC)[0] == 0
    assert_user_error(rofl("ask", "x(X)", store), str(store), ":1:1:")


@pytest.mark.parametrize(
    "data", [b"", b"\n\n", b"-- only a comment", b"   \t\n-- c\n"], ids=["empty", "blank", "comment_eof", "ws"]
)
def test_empty_programs_answer_no(rofl, tmp_path, data):
    prog = write(tmp_path / "p.rofl", data)
    assert rofl("ask", "hole(Q, R)", prog) == (1, "no\n", "")
    code, out, err = rofl("ask", "x(X)", prog)
    assert (code, out) == (2, "") and err == "no relation x[main]/1; no fact and no rule defines it\n"


def test_crlf_and_cr_line_endings_and_comment_at_eof(rofl, tmp_path):
    crlf = write(tmp_path / "crlf.rofl", b"edge(a, b).\r\nedge(b, c). -- c\r\npath(X, Y) :- edge(X, Y).\r\n")
    assert rofl("ask", "path(a, X)", crlf) == (0, "X = b\n", "")
    cr = write(tmp_path / "cr.rofl", b"edge(a, b).\redge(b, c).\r-- no newline at the end")
    assert rofl("ask", "edge(X, c)", cr) == (0, "X = b\n", "")


def test_huge_single_line_and_huge_string(rofl, tmp_path):
    line = write(tmp_path / "line.rofl", " ".join(f"e(n{i}, n{i + 1})." for i in range(5000)))
    assert rofl("ask", "e(n4999, X)", line) == (0, "X = n5000\n", "")
    big = write(tmp_path / "str.rofl", 'p("' + "x" * 1_000_000 + '").\n')
    code, out, _ = rofl("ask", "p(X)", big)
    assert code == 0 and len(out) == len('X = ""\n') + 1_000_000


@pytest.mark.parametrize("where", ["program", "query"])
def test_term_nested_10k_deep_is_answered(rofl, tmp_path, where):
    deep = "f(" * 10_000 + "a" + ")" * 10_000
    if where == "program":
        code, out, err = rofl("ask", "p(X)", write(tmp_path / "deep.rofl", f"p({deep}).\n"))
        assert (code, out, err) == (0, f"X = {deep}\n", "")
    else:
        code, out, err = rofl("ask", f"p({deep})", write(tmp_path / "p.rofl", "p(a).\n"))
        assert (code, out, err) == (1, "no\n", "")


def test_term_deeper_than_the_stack_is_one_line(rofl, tmp_path):
    from rofl.deep import RECURSION_LIMIT

    deep = "f(" * (RECURSION_LIMIT + 10) + "a" + ")" * (RECURSION_LIMIT + 10)
    assert_user_error(rofl("ask", "p(X)", write(tmp_path / "deep.rofl", f"p({deep}).\n")), "nests too deeply")


def test_deep_derivation_why_prints(rofl, tmp_path):
    lines = [f"e(n{i}, n{i + 1})." for i in range(3000)] + ["r(X) :- e(n0, X).", "r(Y) :- r(X), e(X, Y)."]
    prog = write(tmp_path / "chain.rofl", "\n".join(lines) + "\n")
    code, out, _ = rofl("why", "r(n3000)", prog)
    assert code == 0 and out.count("\n") == 2 * 3000 and out.startswith("r[main](n3000)    -- by r")


BIG = "9" * 5000  # over CPython's 4300-digit int/str conversion limit


@pytest.mark.parametrize(
    "text, query",
    [
        pytest.param(f"p({BIG}).\n", "p(X)", id="fact_5000_digits"),
        pytest.param("p(" + "9" * 1_000_000 + ").\n", "p(X)", id="fact_10e6_digits", marks=pytest.mark.slow),
        pytest.param(f"q(1).\np(X) :- q(X), X < {BIG}.\n", "p(X)", id="rule_5000_digits"),
        pytest.param("q(1).\n", f"q({BIG})", id="query_5000_digits"),
    ],
)
def test_huge_integer_literal_does_not_crash(rofl, tmp_path, text, query):
    prog = write(tmp_path / "big.rofl", text)
    assert_no_crash(rofl("ask", query, prog), ok=(0, 1))


def test_huge_integer_in_rules_file_over_facts(rofl, facts_copy, tmp_path):
    rules = write(tmp_path / "r.rofl", f"limit({BIG}).\n")
    assert_no_crash(rofl("ask", "limit(X)", "--facts", facts_copy, "--rules", rules))


SQUARES = "s(0, 2).\ns(N1, Y) :- s(N, X), N < 14, N1 is N + 1, Y is X * X.\ndone(x) :- s(14, _).\n"  # s(14, 2^16384): 4933 digits


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("ask", "s(14, Y)"), id="ask"),
        pytest.param(("ask", "s(N, Y)", "--json"), id="ask_json"),
        pytest.param(("why", "done(x)"), id="why_tree"),
    ],
)
def test_derived_huge_integer_prints(rofl, tmp_path, args):
    prog = write(tmp_path / "sq.rofl", SQUARES)
    assert_no_crash(rofl(*args, prog))


def test_run_collect_huge_integer(rofl, tmp_path):
    prog = write(tmp_path / "sq.rofl", "n(2).\nn(Y)@next :- n(X), Y is X * X.\n")
    assert_no_crash(rofl("run", prog, "--ticks", "16", "--collect", "n"))


def test_save_huge_integer(rofl, tmp_path):
    prog = write(tmp_path / "sq.rofl", SQUARES)
    result = rofl("save", tmp_path / "sq.store", prog)
    assert_no_crash(result)
    if result[0] == 0:
        assert rofl("ask", "s(13, _)", "--store", tmp_path / "sq.store")[1] == "yes\n"


def test_lone_surrogate_string_then_save(rofl, tmp_path):
    prog = write(tmp_path / "s.rofl", 'p("\\u{d800}").\n')
    assert_no_crash(rofl("save", tmp_path / "s.store", prog))


def test_rule_with_19_premises_runs(rofl, tmp_path):
    prog = write(tmp_path / "p.rofl", "q(1).\np(X) :- " + ", ".join(["q(X)"] * 19) + ".\n")
    assert rofl("ask", "p(X)", prog) == (0, "X = 1\n", "")


@pytest.mark.parametrize("premises", [20, 100])
def test_rule_with_many_premises(rofl, tmp_path, premises):
    prog = write(tmp_path / "p.rofl", "q(1).\np(X) :- " + ", ".join(["q(X)"] * premises) + ".\n")
    assert rofl("ask", "p(X)", prog) == (0, "X = 1\n", "")


# ======================================================================================================
# Bad flags (click's own usage errors)
# ======================================================================================================

BAD_FLAGS = {
    "ask_directory_as_file": ("ask", "x(X)", EXAMPLES),
    "ask_budget_0": ("ask", "x(X)", TC, "--budget", "0"),
    "ask_budget_negative": ("ask", "x(X)", TC, "--budget", "-1"),
    "ask_budget_not_a_number": ("ask", "x(X)", TC, "--budget", "lots"),
    "ask_unknown_option": ("ask", "x(X)", TC, "--bogus"),
    "ask_missing_query": ("ask",),
    "ask_store_directory": ("ask", "x(X)", "--store", EXAMPLES),
    "ask_facts_is_a_file": ("ask", "x(X)", "--facts", TC),
    "ask_rules_directory": ("ask", "x(X)", "--facts", EXAMPLES, "--rules", EXAMPLES),
    "why_missing_fact": ("why",),
    "run_ticks_0": ("run", COUNTER, "--ticks", "0"),
    "run_ticks_negative": ("run", COUNTER, "--ticks", "-5"),
    "export_bad_format": ("export", "dependency", TC, "--format", "png"),
    "export_output_directory": ("export", "edge", TC, "-o", EXAMPLES),
    "save_out_directory": ("save", EXAMPLES, TC),
    "audit_src_is_a_file": ("audit", "--facts", EXAMPLES, "--src", TC),
    "repl_directory_as_file": ("repl", EXAMPLES),
    "unknown_command": ("frobnicate",),
}


@pytest.mark.parametrize("name", sorted(BAD_FLAGS))
def test_bad_flag_exits_2_without_traceback(rofl, name):
    code, out, err = rofl(*BAD_FLAGS[name])
    assert code == 2 and "Traceback" not in out + err and err.strip()


@pytest.mark.parametrize("name", sorted(BAD_FLAGS))
def test_bad_flag_is_one_line(rofl, name):
    assert_user_error(rofl(*BAD_FLAGS[name]))


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--jobs", "0"), "--jobs 0"),
        (("--jobs", "-3"), "--jobs -3"),
        (("--jobs", "x"), "--jobs"),
        (("--max-bytes", "-1"), "--max-bytes -1"),
        (("--max-bytes", "0"), "--max-bytes 0"),
        (("--bogus",), "--bogus"),
    ],
    ids=["jobs0", "jobs_neg", "jobs_nan", "max_bytes_neg", "max_bytes_0", "unknown"],
)
def test_scan_bad_flags_are_one_line(rofl, tiny, tmp_path, args, needle):
    assert_user_error(rofl("scan", tiny[0], "--out", tmp_path / "out", *args), "rofl scan:", needle)


# ======================================================================================================
# Queries and FACT arguments
# ======================================================================================================

BAD_QUERIES = [
    "",
    "   ",
    "path(",
    "path(a, X",
    "path(a, X) extra",
    "path(a, X)..",
    "X",
    "Path(a, X)",
    "path",
    "path()",
    "path[](a, X)",
    "$path(a, X)",
    "path[$p](a, X)",
    "path(a, $X)",
    "path(a, X) :- edge(a, X)",
    "path(a, X)@async",
    "path(a, 1 + 2)",
    'path(a, "\\q")',
    "\x00",
    'path(a, "\\u{110000}")',
    "path(a, X),",
    "path(a, X), , edge(X, Y)",
]


@pytest.mark.parametrize("query", BAD_QUERIES)
def test_bad_query_is_one_line(rofl, query):
    assert_user_error(rofl("ask", query, TC), "<query>:1:")


@pytest.mark.parametrize("command", ["why", "whynot", "excise"])
@pytest.mark.parametrize(
    "fact, needle",
    [
        ("path(a, X)", "has variables"),
        ("path(a, _)", "has variables"),
        ("path[P](a, b)", "has variables"),
        ("", "<fact>:1:1:"),
        ("$x(a)", "'$' names"),
        ("path(a, b) extra", "<fact>:1:"),
    ],
)
def test_bad_fact_argument_is_one_line(rofl, command, fact, needle):
    assert_user_error(rofl(command, fact, TC), needle)


@pytest.mark.parametrize("flag", ["--why", "--whynot"])
def test_ask_why_flag_with_variables_is_one_line(rofl, flag):
    assert_user_error(rofl("ask", "path(a, X)", TC, flag, "path(a, Y)"), "has variables")


@pytest.mark.parametrize("fact", ["path(a, b)", "path(a, z)", "stratum(path, 0)", 'authority(main, "$kernel")'])
def test_excise_of_a_non_base_fact_is_one_line(rofl, fact):
    assert_user_error(rofl("excise", fact, TC), "not a base fact")


def test_finding_exit_codes(rofl):
    assert rofl("why", "path(a, z)", TC)[0] == 1
    assert rofl("why", "path(a, d)", TC)[0] == 0
    assert rofl("whynot", "path(a, d)", TC)[0] == 1
    assert rofl("whynot", "path(a, z)", TC)[0] == 0
    assert rofl("whynot", 'path(f(x), "s")', TC)[0] == 0
    assert rofl("excise", "edge(a, b)", TC)[0] == 0


# ======================================================================================================
# --load-as WHO and --budget
# ======================================================================================================


@pytest.mark.parametrize("who", ["", "X", "Sensor", "a b", "a-b", "$kernel", "_x", "1a", "a.b"])
def test_load_as_bad_who_is_one_line(rofl, who):
    assert_user_error(rofl("ask", "reading[S](V)", *SENSORS[:1], "--load-as", who, SENSORS[3]), "not an atom")


@pytest.mark.parametrize("who", ["kernel", "main", "a" * 5000])
def test_load_as_odd_but_valid_who(rofl, who):
    code, out, _ = rofl("ask", "reading[S](V)", *SENSORS[:1], "--load-as", who, SENSORS[3])
    assert code == 0 and out.count("\n") == 3


def test_load_as_directory_or_missing_file(rofl, tmp_path):
    assert_user_error(rofl("ask", "x(X)", "--load-as", "who"), "--load-as", "2 arguments")
    assert_user_error(rofl("ask", "x(X)", "--load-as", "who", EXAMPLES), str(EXAMPLES))
    assert_user_error(rofl("ask", "x(X)", "--load-as", "who", tmp_path / "nope.rofl"), "no such file")


@pytest.mark.parametrize("who", ["\u00e9", "caf\u00e9", "\uff41"])
def test_load_as_non_ascii_who(rofl, who):
    assert_user_error(rofl("ask", "reading[S](V)", *SENSORS[:1], "--load-as", who, SENSORS[3]), "not an atom")


@pytest.mark.parametrize(
    "query, needle",
    [
        ("not path(a, X)", "not path[main](a, X) needs X bound"),
        ("path(a, X), not edge(X, Y)", "needs Y bound"),
        ("X > 1, path(a, X), Y < 2", "Y < 2 needs Y bound"),
        ("X = Y", "needs X, Y bound"),
    ],
)
def test_unsafe_query_is_one_line(rofl, query, needle):
    assert_user_error(rofl("ask", query, TC), "unsafe question", needle)


def test_budget_one_and_huge(rofl):
    code, out, err = rofl("ask", "path(a, X)", TC, "--budget", "1")
    assert code == 3 and "partial" in err
    assert rofl("ask", "path(a, X)", TC, "--budget", str(10**30)) == (0, "X = b\nX = c\nX = d\n", "")


def test_audit_with_exhausted_budget_is_not_clean(rofl, tmp_path):
    forged = write(tmp_path / "forged.rofl", "reading[s1](99).\n")
    args = ("audit", *SENSORS, "--load-as", "mallory", forged)
    assert rofl(*args)[0] == 1  # the finding is there with the default budget
    code, _, err = rofl(*args, "--budget", "100")
    assert code != 0 and "budget" in err


@pytest.mark.parametrize(
    "command, fact", [("why", "verified(20)"), ("whynot", "verified(20)"), ("excise", "reading[s1](20)")]
)
def test_explanations_with_exhausted_budget_say_partial(rofl, command, fact):
    code, _, err = rofl(command, fact, *SENSORS, "--budget", "10")
    assert "budget" in err


# ======================================================================================================
# --store
# ======================================================================================================


@pytest.fixture(scope="module")
def sensors_store(tmp_path_factory):
    from click.testing import CliRunner

    from rofl.cli import main

    path = tmp_path_factory.mktemp("store") / "sensors.store"
    args = ["save", str(path), *[str(a) for a in SENSORS]]
    assert CliRunner().invoke(main, args, catch_exceptions=False).exit_code == 0
    return path


def forge(path: Path, body, version=1) -> Path:
    """A store file with a correct checksum around ``body`` (an edit that also fixed the checksum)."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    head = json.dumps(
        {"format": "rofl-store", "version": version, "sha256": hashlib.sha256(text.encode()).hexdigest()},
        separators=(",", ":"),
    )
    return write(path, head[:-1] + ',"body":' + text + "}\n")


def store_body(store: Path) -> dict:
    return json.loads(store.read_text())["body"]


BAD_STORES = {
    "empty": lambda good: b"",
    "truncated": lambda good: good[: len(good) // 2],
    "edited": lambda good: good.replace(b'"sensor_net"', b'"sensor_nex"', 1),
    "binary": lambda good: bytes(range(256)),
    "json_array": lambda good: b"[1, 2]",
    "json_object": lambda good: b"{}",
    "newer_version": lambda good: b'{"format":"rofl-store","version":2}',
    "program_text": lambda good: TC.read_bytes(),
}


@pytest.mark.parametrize("name", sorted(BAD_STORES))
def test_bad_store_is_one_line(rofl, sensors_store, tmp_path, name):
    bad = write(tmp_path / f"{name}.store", BAD_STORES[name](sensors_store.read_bytes()))
    for command in (
        ("ask", "reading[S](V)"),
        ("audit",),
        ("run",),
        ("save", tmp_path / "o.store"),
        ("why", "verified(20)"),
    ):
        assert_user_error(rofl(*command, "--store", bad), str(bad))


def test_missing_store_and_store_with_facts(rofl, sensors_store, tiny, tmp_path):
    assert_user_error(rofl("ask", "x(X)", "--store", tmp_path / "nope.store"), "no such store file")
    assert_user_error(rofl("ask", "x(X)", "--store", sensors_store, "--facts", tiny[1]), "--facts and --store")


@pytest.mark.parametrize("key", ["tick", "counters", "base", "history", "past", "tick_log"])
def test_store_body_missing_a_key_is_one_line(rofl, sensors_store, tmp_path, key):
    body = store_body(sensors_store)
    del body[key]
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "reading[S](V)", "--store", bad), str(bad), "malformed")


def test_store_moved_and_without_trailing_newline(rofl, sensors_store, tmp_path):
    moved = tmp_path / "elsewhere" / "moved.store"
    moved.parent.mkdir()
    shutil.copy(sensors_store, moved)
    assert rofl("ask", "verified(V)", "--store", moved) == (0, "V = 20\nV = 21\n", "")
    stripped = write(tmp_path / "nl.store", sensors_store.read_bytes().rstrip(b"\n"))
    assert rofl("ask", "verified(V)", "--store", stripped)[0] == 0


def test_store_counters_not_an_object(rofl, sensors_store, tmp_path):
    body = store_body(sensors_store)
    body["counters"] = []
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "reading[S](V)", "--store", bad), str(bad))


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(["reading", [], None, None], id="row_without_perspective"),
        pytest.param(["reading", ["s1", 1.5], None, None], id="float_term"),
        pytest.param(["reading", ["s1", True], None, None], id="bool_term"),
        pytest.param(["reading", ["s1", []], None, None], id="empty_compound"),
    ],
)
def test_store_bad_term_names_the_file(rofl, sensors_store, tmp_path, row):
    body = store_body(sensors_store)
    body["base"] = [row]
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "reading[S](V)", "--store", bad), str(bad))


def test_store_with_malformed_reflected_rule(rofl, tmp_path):
    store = tmp_path / "tc.store"
    assert rofl("save", store, TC)[0] == 0
    text = store_body(store)
    body = json.loads(json.dumps(text, separators=(",", ":")).replace('["$var","X"]', '["$var",5]'))
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "path(a, X)", "--store", bad), str(bad))


@pytest.mark.parametrize("version", ['"1"', "true", "null"])
def test_store_version_of_wrong_type(rofl, tmp_path, version):
    bad = write(tmp_path / "v.store", '{"format":"rofl-store","version":' + version + "}")
    line = assert_user_error(rofl("ask", "x(X)", "--store", bad), str(bad))
    assert "newer" not in line and "upgrade" not in line


def test_save_into_missing_folder(rofl, tmp_path):
    assert_user_error(rofl("save", tmp_path / "no" / "such" / "dir.store", TC), str(tmp_path / "no" / "such"))


def test_save_over_its_own_program(rofl, tmp_path):
    prog = tmp_path / "tc.rofl"
    shutil.copy(TC, prog)
    code, _, _ = rofl("save", prog, prog)
    assert prog.read_bytes() == TC.read_bytes()
    assert code == 2


# ======================================================================================================
# --facts DIR (a scan)
# ======================================================================================================

FACT_COMMANDS = [
    ("ask", "dependency[code](A, B)"),
    ("impact", "--changed", "b.ts"),
    ("audit",),
    ("export", "dependency"),
    ("why", 'dependency[code]("a.ts", "b.ts")'),
]


def test_facts_folder_works(rofl, tiny):
    assert rofl("ask", "dependency[code](A, B)", "--facts", tiny[1]) == (0, 'A = "a.ts", B = "b.ts"\n', "")


@pytest.mark.parametrize(
    "name, content, needle",
    [
        ("invalid_json", "{not json", "not valid JSON"),
        ("empty", "", "not valid JSON"),
        ("not_utf8", b"\xff\xfe", "not valid JSON"),
        ("json_array", "[1, 2]", "not a rofl scan manifest"),
        ("json_string", '"x"', "not a rofl scan manifest"),
        ("json_null", "null", "not a rofl scan manifest"),
        ("no_files_key", '{"format": 1}', "not a rofl scan manifest"),
        ("files_is_a_list", '{"format": 1, "files": []}', "not a rofl scan manifest"),
    ],
)
def test_corrupt_manifest_is_one_line(rofl, facts_copy, name, content, needle):
    write(facts_copy / "manifest.json", content)
    for command in FACT_COMMANDS:
        assert_user_error(rofl(*command, "--facts", facts_copy), str(facts_copy / "manifest.json"), needle)


def test_empty_missing_and_wrong_kind_of_fact_folder(rofl, tiny, tmp_path):
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "missing", tiny[0]):
        assert_user_error(rofl("ask", "x(X)", "--facts", folder), "no manifest.json", "rofl scan")


def test_manifest_is_a_directory(rofl, facts_copy):
    (facts_copy / "manifest.json").unlink()
    (facts_copy / "manifest.json").mkdir()
    for command in FACT_COMMANDS:
        assert_user_error(rofl(*command, "--facts", facts_copy), str(facts_copy))


@pytest.mark.parametrize(
    "append, needle",
    [
        (b"this is not rofl(\n", ":"),
        (b'src_file[code]("x", "y"\n', ":"),
        (b"\x00\n", "'\\x00'"),
        (b"\xff\xfe\n", "not UTF-8"),
    ],
    ids=["syntax", "unterminated", "nul", "not_utf8"],
)
def test_broken_fact_file_is_one_line_naming_it(rofl, facts_copy, append, needle):
    fact_file = first_fact_file(facts_copy)
    with open(fact_file, "ab") as fh:
        fh.write(append)
    for command in FACT_COMMANDS:
        assert_user_error(rofl(*command, "--facts", facts_copy), str(fact_file), needle)


def test_fact_file_replaced_by_a_directory_warns(rofl, facts_copy):
    fact_file = first_fact_file(facts_copy)
    fact_file.unlink()
    fact_file.mkdir()
    code, out, err = rofl("ask", "src_file[code](F, _)", "--facts", facts_copy)
    assert code == 0 and "listed in the manifest but missing" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "cache",
    [b"rofl-store-cache 1\ngarbage\ngarbage", b"", b"\x00" * 100, None],
    ids=["garbage", "empty", "nul", "directory"],
)
def test_corrupt_cache_is_rebuilt(rofl, facts_copy, cache):
    path = facts_copy / ".rofl-store.cache"
    if cache is None:
        path.mkdir()
    else:
        path.write_bytes(cache)
    assert rofl("ask", "dependency[code](A, B)", "--facts", facts_copy) == (0, 'A = "a.ts", B = "b.ts"\n', "")


def test_missing_or_unreadable_rules_file(rofl, tiny, tmp_path):
    assert_user_error(rofl("ask", "x(X)", "--facts", tiny[1], "--rules", tmp_path / "nope.rofl"), "no such rule file")
    binary = write(tmp_path / "bin.rofl", bytes(range(256)))
    assert_user_error(rofl("ask", "x(X)", "--facts", tiny[1], "--rules", binary), str(binary))
    syntax = write(tmp_path / "syn.rofl", "foo(X :- bar.\n")
    assert_user_error(rofl("ask", "x(X)", "--facts", tiny[1], "--rules", syntax), f"{syntax}:1:")


@pytest.mark.parametrize(
    "where, value",
    [
        pytest.param("file_facts", 5, id="file_facts_int"),
        pytest.param("file_facts", ["a"], id="file_facts_list"),
        pytest.param("preamble", {"facts": 1}, id="preamble_facts_int"),
        pytest.param("package_entries", {"facts": {"a": 1}}, id="entries_facts_dict"),
    ],
)
def test_manifest_facts_of_wrong_type(rofl, facts_copy, where, value):
    def change(m):
        if where == "file_facts":
            m["files"]["a.ts"]["facts"] = value
        else:
            m[where] = value

    edit_manifest(facts_copy, change)
    assert_no_crash(rofl("ask", "x(X)", "--facts", facts_copy))


def test_manifest_src_of_wrong_type(rofl, facts_copy):
    edit_manifest(facts_copy, lambda m: m.update(src=5))
    assert_no_crash(rofl("impact", "--facts", facts_copy, "--changed", "b.ts"))


def test_manifest_options_of_wrong_type(rofl, facts_copy, tiny):
    edit_manifest(facts_copy, lambda m: m.update(options="x"))
    assert_no_crash(rofl("audit", "--facts", facts_copy, "--src", tiny[0]), ok=(0, 1))


UNSTRATIFIABLE_RULES = "p(X) :- src_file[code](X, _), not q(X).\nq(X) :- src_file[code](X, _), not p(X).\n"


def test_unstratifiable_program_file_is_refused(rofl, tiny, tmp_path):
    """The same rules as a FILE next to --facts are refused; the --rules and fact-file routes below are not."""
    rules = write(tmp_path / "u.rofl", UNSTRATIFIABLE_RULES)
    code, _, err = rofl("ask", "p(X)", "--facts", tiny[1], rules)
    assert code == 2 and err.startswith("unstratified") and "Traceback" not in err


@pytest.mark.parametrize("command", [("ask", "p(X)"), ("ask", "dependency[code](A, B)"), ("audit",)])
def test_unstratifiable_rules_over_facts_are_refused(rofl, facts_copy, tmp_path, command):
    rules = write(tmp_path / "u.rofl", UNSTRATIFIABLE_RULES)
    code, _, err = rofl(*command, "--facts", facts_copy, "--rules", rules)
    assert code == 2 and err.startswith("unstratified")


def test_unstratifiable_rules_in_a_fact_file_are_refused(rofl, facts_copy):
    with open(first_fact_file(facts_copy), "a") as fh:
        fh.write(UNSTRATIFIABLE_RULES)
    code, _, err = rofl("ask", "dependency[code](A, B)", "--facts", facts_copy)
    assert code == 2 and "unstratified" in err


# ======================================================================================================
# rofl scan
# ======================================================================================================


def test_scan_src_and_out_of_the_wrong_kind(rofl, tiny, tmp_path):
    src = tiny[0]
    assert_user_error(rofl("scan", src / "a.ts", "--out", tmp_path / "o1"), "rofl scan:", "not a folder")
    assert_user_error(rofl("scan", tmp_path / "missing", "--out", tmp_path / "o2"), "rofl scan:", "does not exist")
    assert_user_error(rofl("scan", "/dev/null", "--out", tmp_path / "o3"), "rofl scan:", "not a folder")
    assert_user_error(rofl("scan"), "rofl scan:", "missing SRC")
    a_file = write(tmp_path / "file", "x")
    assert_user_error(rofl("scan", src, "--out", a_file), "rofl scan:", "--out")
    assert_user_error(rofl("scan", src, "--out", a_file / "sub"), "rofl scan:", "--out")
    assert_user_error(rofl("scan", src, "--out", "/dev/null"), "rofl scan:", "--out")


def test_scan_globs_that_match_nothing(rofl, tiny, tmp_path):
    for i, flags in enumerate([("--include", "*.nothing"), ("--exclude", "**"), ("--include", "["), ("--include", "")]):
        result = rofl("scan", tiny[0], "--out", tmp_path / f"o{i}", *flags)
        assert_no_crash(result)
        assert result[0] == 2 and len(result[2].strip().splitlines()) == 1 and "Traceback" not in result[2]


def test_scan_out_inside_src_is_stable(rofl, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    for _ in range(2):
        code, out, _ = rofl("scan", src, "--out", src / "facts", "--json")
        assert code == 0 and json.loads(out)["files"] == 1
    assert rofl("ask", "src_file[code](F, _)", "--facts", src / "facts") == (0, 'F = "a.ts"\n', "")


def test_scan_hostile_source_files(rofl, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.ts").write_text("export const ok = 1;\n")
    (src / "binary.ts").write_bytes(b"\xff\xfe\x00garbage")
    (src / "bom.ts").write_bytes(b"\xef\xbb\xbfexport const bom = 1;\r\n")
    (src / "huge.ts").write_text("x" * 200_000 + "\n")
    (src / "nest.js").write_text("const a = " + "[" * 20000 + "]" * 20000 + ";\n")
    (src / "new\nline.ts").write_text("export const n = 1;\n")
    os.symlink("nowhere.ts", src / "broken.ts")
    os.symlink(".", src / "loop")
    code, out, err = rofl("scan", src, "--out", tmp_path / "out", "--max-bytes", "100000", "--json")
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["errors"] == 2  # binary and huge become src_parse_error facts
    code, out, _ = rofl("ask", "src_parse_error[code](F, _)", "--facts", tmp_path / "out")
    assert code == 0 and out == 'F = "binary.ts"\nF = "huge.ts"\n'


def test_scan_skips_a_fifo_without_hanging(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    os.mkfifo(src / "fifo.ts")
    proc = cli("scan", src, "--out", tmp_path / "out", timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_scan_lock_and_state_that_are_directories(rofl, tiny, tmp_path):
    out = tmp_path / "out"
    assert rofl("scan", tiny[0], "--out", out)[0] == 0
    (out / ".lock").unlink()
    (out / ".lock").mkdir()
    assert_user_error(rofl("scan", tiny[0], "--out", out), "rofl scan:", "lock")
    (out / ".lock").rmdir()
    write(out / ".scan-state.json", "{{{")
    assert rofl("scan", tiny[0], "--out", out)[0] == 0


def test_scan_empty_out(rofl, tiny, tmp_path, monkeypatch):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    result = rofl("scan", tiny[0], "--out", "")
    assert list(cwd.iterdir()) == []
    assert_user_error(result, "--out")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda m: m.update(files={k: None for k in m["files"]}), id="file_entry_null"),
        pytest.param(lambda m: m.update(files={k: "x" for k in m["files"]}), id="file_entry_string"),
        pytest.param(lambda m: [e.update(facts=5) for e in m["files"].values()], id="file_facts_int"),
        pytest.param(lambda m: m.update(configs=[1]), id="configs_list"),
        pytest.param(lambda m: m.update(packages=[1]), id="packages_list"),
    ],
)
def test_scan_over_a_corrupt_manifest(rofl, tiny, tmp_path, change):
    out = tmp_path / "out"
    assert rofl("scan", tiny[0], "--out", out)[0] == 0
    edit_manifest(out, change)
    assert_no_crash(rofl("scan", tiny[0], "--out", out, "--verify"))


def test_scan_over_an_unparsable_manifest_rescans(rofl, tiny, tmp_path):
    out = tmp_path / "out"
    assert rofl("scan", tiny[0], "--out", out)[0] == 0
    for content in ("[1]", "{{{", ""):
        write(out / "manifest.json", content)
        code, text, _ = rofl("scan", tiny[0], "--out", out)
        assert code == 0 and "2 files seen" in text


# ======================================================================================================
# rofl impact
# ======================================================================================================


def test_impact_user_errors(rofl, tiny):
    facts = tiny[1]
    assert_user_error(
        rofl("impact", "--facts", facts, "--git-base", "HEAD"), "git"
    )  # the scan is not in a git work tree
    assert_user_error(rofl("impact", "--changed", "b.ts"), "--facts DIR is required")
    assert_user_error(rofl("impact", "--facts", facts), "--changed", "--git-base")
    assert_user_error(rofl("impact", "--facts", facts, "--changed", "b.ts", "--git-base", "HEAD"), "either")
    assert_user_error(rofl("impact", "--facts", facts, "--git-base", ""), "either")


def test_impact_paths_outside_the_scan_are_summarised_and_unknown_ones_refused(rofl, tiny):
    # exist, outside the scan (absolute, and relative to SRC whatever the working folder): one summary line
    for path in ("/", "../facts/manifest.json"):
        code, out, err = rofl("impact", "--facts", tiny[1], "--changed", path)
        assert code == 0 and "0 file(s) affected" in out and "outside the scan" in err
    for path in ("B.TS", "src/../b.ts.orig"):  # exist nowhere: a silent zero would be a lie
        code, out, err = rofl("impact", "--facts", tiny[1], "--changed", path)
        assert code == 2 and path in err and "exists nowhere" in err and "Traceback" not in err


@pytest.fixture
def git_scan(rofl, tmp_path):
    src = tmp_path / "repo"
    src.mkdir()
    (src / "a.ts").write_text('import { x } from "./b";\nexport const y = x;\n')
    (src / "b.ts").write_text("export const x = 2;\n")
    git = lambda *a: subprocess.run(["git", "-C", str(src), *a], check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    assert rofl("scan", src, "--out", tmp_path / "facts")[0] == 0
    return src, tmp_path / "facts"


def test_impact_bad_git_ref(rofl, git_scan):
    assert_user_error(rofl("impact", "--facts", git_scan[1], "--git-base", "no-such-ref"), "no-such-ref")
    assert_user_error(rofl("impact", "--facts", git_scan[1], "--git-base", "HEAD~5"), "HEAD~5")


@pytest.mark.parametrize("ref", ["--output={pwned}", "-p"])
def test_impact_git_base_is_not_an_option(rofl, git_scan, tmp_path, ref):
    pwned = tmp_path / "pwned"
    result = rofl("impact", "--facts", git_scan[1], "--git-base", ref.format(pwned=pwned))
    assert not pwned.exists()
    assert_user_error(result, "--git-base")


# ======================================================================================================
# rofl export
# ======================================================================================================


def test_export_user_errors(rofl, tiny, tmp_path):
    facts = tiny[1]
    assert_user_error(rofl("export", "src_import_kind", "--facts", facts), "binary relation")
    assert_user_error(rofl("export", "dependency"), "give --facts DIR")
    assert_user_error(rofl("export", "dependency", "--facts", facts, "-o", tmp_path / "no" / "g.json"), "cannot write")
    for name in ("", "Dependency", "$x", "dependency(X, Y)", "dependency[code", "1dep"):
        assert_user_error(rofl("export", name, "--facts", facts), "relation")
    mixed = write(tmp_path / "mixed.rofl", "e(a, b).\ne(a).\n")
    assert_user_error(rofl("export", "e", mixed), "binary relation")


@pytest.mark.parametrize("name", ["dependency[", "dependency[]", "dependency[a][b]", "dependency[Code]"])
def test_export_malformed_perspective(rofl, tiny, name):
    assert_user_error(rofl("export", name, "--facts", tiny[1]), "relation")


def test_export_undefined_relation(rofl, tiny):
    assert_user_error(rofl("export", "dependncy", "--facts", tiny[1]), "dependncy")


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_export_xml_with_control_characters_reads_back(rofl, tmp_path, fmt):
    import networkx as nx

    prog = write(tmp_path / "e.rofl", 'e("\\u{7}", "a").\ne("\\u{0}", "b").\n')
    out = tmp_path / f"g.{fmt}"
    assert rofl("export", "e", prog, "--format", fmt, "-o", out)[0] == 0
    graph = getattr(nx, f"read_{fmt}")(out)
    assert graph.number_of_edges() == 2


@pytest.fixture
def surrogate_scan(rofl, tmp_path):
    """A scan of a tree holding a file whose name is not UTF-8 (Linux: any bytes but / and NUL)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "b.ts").write_text("export const x = 2;\n")
    try:
        with open(os.path.join(os.fsencode(src), b"bad\xff.ts"), "w") as fh:
            fh.write('import { x } from "./b";\nexport const y = x;\n')
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 file names")
    assert rofl("scan", src, "--out", tmp_path / "facts")[0] == 0
    return src, tmp_path / "facts"


@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid"])
def test_export_to_file_with_non_utf8_file_name(rofl, surrogate_scan, tmp_path, fmt):
    assert_no_crash(
        rofl("export", "dependency", "--facts", surrogate_scan[1], "--format", fmt, "-o", tmp_path / "g.out")
    )


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("impact", "--changed", "b.ts"), id="impact"),
        pytest.param(("export", "dependency"), id="export"),
    ],
)
def test_strict_stdout_with_non_utf8_file_name(surrogate_scan, args):
    proc = cli(*args, "--facts", surrogate_scan[1], env={"PYTHONIOENCODING": "utf-8:strict"})
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0 or (proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1)


# ======================================================================================================
# rofl run
# ======================================================================================================


def test_run_unstratifiable_and_no_files(rofl, tmp_path):
    code, _, err = rofl("run", EXAMPLES / "unstratifiable.rofl")
    assert code == 2 and err.startswith("unstratified")
    assert rofl("run") == (0, "tick 0: (nothing collected)\n-- 1 tick(s), quiescent\n", "")
    code, out, _ = rofl("run", COUNTER, "--ticks", str(10**20), "--budget", "1000", "--collect", "count")
    assert code == 0 and "Traceback" not in out


@pytest.mark.parametrize("rel", ["count(X)", "Count", "$x", ""])
def test_run_collect_malformed_relation(rofl, rel):
    assert_user_error(rofl("run", COUNTER, "--collect", rel), "--collect")


# ======================================================================================================
# rofl repl (real processes)
# ======================================================================================================


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
