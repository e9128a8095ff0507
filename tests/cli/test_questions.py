"""Questions people ask: no silent `no` for a relation nothing defines, conjunctions, exit codes,
JSON values, `rofl relations`, `rofl repl --facts` and the examples every --help ends with."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, ROOT

TC = EXAMPLES / "tc.rofl"
SHOP = EXAMPLES / "shop"


@pytest.fixture(scope="module")
def shop_facts(tmp_path_factory):
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("questions")
    shutil.copytree(SHOP, root / "shop")
    result = CliRunner().invoke(
        main, ["scan", str(root / "shop"), "--out", str(root / "facts")], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return root / "facts"


@pytest.mark.parametrize(
    "query, message",
    [
        ("in_cyle[code](F)", "no relation in_cyle[code]/1; did you mean in_cycle[code]/1"),
        ("in_cycle(F)", "no relation in_cycle[main]/1; in_cycle exists in [code]; did you mean in_cycle[code]/1"),
        ("orphan[code](F)", "no relation orphan[code]/1; orphan exists in [main]; did you mean orphan[main]/1?"),
        (
            "dependency[code](A)",
            "no relation dependency[code]/1; dependency exists in [code]; did you mean dependency[code]/2",
        ),
        ("nothing_like_it(X)", "no relation nothing_like_it[main]/1; no fact and no rule defines it"),
        ("in_cycle[code](F), not orphn(F)", "no relation orphn[main]/1; did you mean orphan[main]/1?"),
    ],
)
def test_a_relation_nothing_defines_is_an_error_naming_the_closest(rofl, shop_facts, query, message):
    code, out, err = rofl("ask", query, "--facts", shop_facts)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1, err


def test_why_and_whynot_of_an_undefined_relation_are_errors(rofl):
    for command in ("why", "whynot"):
        code, _, err = rofl(command, "pth(a, b)", TC)
        assert code == 2 and err == "no relation pth[main]/2; did you mean path[main]/2?\n"


def test_a_defined_but_empty_relation_answers_no_with_exit_1(rofl, tmp_path):
    prog = tmp_path / "p.rofl"
    prog.write_text("e(1).\np(X) :- e(X), X > 5.\n")
    assert rofl("ask", "p(X)", prog) == (1, "no\n", "")
    assert rofl("ask", "e(1)", prog) == (0, "yes\n", "")


def test_conjunctive_question_over_a_scan(rofl, shop_facts):
    code, out, _ = rofl("ask", "dependency[code](A, B), dependency[code](B, A), A < B", "--facts", shop_facts)
    assert code == 0
    assert out == 'A = "src/services/checkout.ts", B = "src/services/inventory.ts"\n'


def test_conjunction_with_negation_and_builtins(rofl, tmp_path):
    code, out, _ = rofl("ask", "path(X, Y), not edge(X, Y), X != a", TC)
    assert (code, out) == (0, "X = b, Y = d\n")
    # a comparison written before the literal that binds its inputs runs once they are bound
    code, out, _ = rofl("ask", "X != a, path(X, d), N is 1 + 1", TC)
    assert (code, out) == (0, "X = b, N = 2\nX = c, N = 2\n")
    code, out, _ = rofl("ask", "X is 6 * 7", TC)
    assert (code, out) == (0, "X = 42\n")


def test_json_answers_are_json_values(rofl, shop_facts):
    code, out, _ = rofl("ask", "in_cycle[code](F)", "--facts", shop_facts, "--json")
    assert code == 0
    assert json.loads(out)["answers"] == [{"F": "src/services/checkout.ts"}, {"F": "src/services/inventory.ts"}]


def test_exit_codes_0_1_2_3(rofl, tmp_path):
    nat = tmp_path / "nat.rofl"
    nat.write_text("nat(0).\nnat(Y) :- nat(X), Y is X + 1.\n")
    assert rofl("ask", "path(a, X)", TC)[0] == 0
    assert rofl("ask", "path(d, X)", TC)[0] == 1
    assert rofl("ask", "path(d", TC)[0] == 2
    assert rofl("ask", "nat(X)", nat, "--budget", "10")[0] == 3
    code, out, _ = rofl("ask", "--help")
    assert "Exit codes: 0 answers, 1 no answer, 2 user error, 3 partial" in out


def test_relations_lists_signatures_rows_places_and_comments(rofl, shop_facts):
    code, out, _ = rofl("relations", "--facts", shop_facts, "--json")
    assert code == 0
    listed = {(r["relation"], r["perspective"], r["arity"]): r for r in json.loads(out)["relations"]}
    cycle = listed[("in_cycle", "code", 1)]
    assert cycle["rows"] == 2 and re.fullmatch(r".*rules/code\.rofl:\d+", cycle["defined"])
    assert cycle["comment"].startswith("F is on an import cycle.")
    assert listed[("src_file", "code", 2)]["defined"] == "scanner" and listed[("src_file", "code", 2)]["rows"] == 38
    assert listed[("hole", "main", 2)]["defined"] == "kernel"
    assert ("malformed", "audit", 1) in listed
    # boot's helper relations are private: they are not listed among the user's
    assert not any(name in {"dep", "reach", "sees", "stratum"} for name, _, _ in listed)
    code, out, _ = rofl("relations", TC)
    line = next(x for x in out.splitlines() if x.startswith("path[main]/2"))
    assert "7 row(s)" in line and "tc.rofl:6" in line


def test_repl_opens_a_scan(shop_facts):
    script = "? in_cycle[code](F), not orphan(F)\n? in_cyle[code](F)\n"
    proc = subprocess.run(
        [sys.executable, "-m", "rofl.cli", "repl", "--facts", str(shop_facts)],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert 'F = "src/services/checkout.ts"\nF = "src/services/inventory.ts"' in proc.stdout
    assert "error: no relation in_cyle[code]/1; did you mean in_cycle[code]/1" in proc.stdout


def test_every_command_help_ends_with_examples(rofl):
    from rofl.cli import COMMANDS

    for name in sorted(COMMANDS):
        code, out, _ = rofl(name, "--help")
        tail = out.rstrip().split("Examples:")
        assert code == 0 and len(tail) == 2, name
        examples = [x.strip() for x in tail[1].strip().splitlines()]
        assert 2 <= len(examples) <= 3 and all(x.startswith(("rofl ", "echo ")) for x in examples), (name, examples)


def test_ask_json_says_which_listed_fact_files_are_missing(rofl, facts_copy):
    """An answer over a scan with a listed fact file gone is incomplete, and --json says which file:
    a CI consumer of JSON never takes it for a whole answer."""
    query = 'dependency[code]("a.ts", X)'
    code, out, _ = rofl("ask", query, "--facts", facts_copy, "--json")
    assert code == 0 and json.loads(out)["incomplete"] == []
    (gone,) = [p for p in (facts_copy / "code").iterdir() if p.name.startswith("b.ts.")]
    gone.unlink()
    code, out, err = rofl("ask", query, "--facts", facts_copy, "--json")
    answer = json.loads(out)
    assert answer["incomplete"] == [f"code/{gone.name}"]
    assert "incomplete" in err


def test_ask_over_stale_facts_says_so_on_stderr(rofl, tmp_path):
    """ask answers from the facts as they are; once a source changed since the scan, stderr says so
    (naming the path and the scan to run), while stdout keeps the answers."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text('import { b } from "./b";\nexport const a = b;\n')
    (src / "b.ts").write_text("export const b = 1;\n")
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    query = 'dependency[code]("a.ts", X)'
    code, out, err = rofl("ask", query, "--facts", facts)
    assert (code, out, "stale" in err) == (0, 'X = "b.ts"\n', False)
    (src / "b.ts").write_text("export const b = 2;\n")
    code, out, err = rofl("ask", query, "--facts", facts)
    assert (code, out) == (0, 'X = "b.ts"\n')
    assert "rofl ask: warning: the facts are stale" in err and "b.ts" in err and "rofl scan" in err
