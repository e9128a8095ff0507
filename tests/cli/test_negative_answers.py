"""Issue 21, "no silent wrong answers": a negative answer ("no", "0", "empty") is true, and where rofl
cannot know, it says what is missing."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """``(src, facts)``: a copy of examples/shop and its scan (a clean repository: no parse error)."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("negative")
    shutil.copytree(SHOP, root / "shop")
    result = CliRunner().invoke(
        main, ["scan", str(root / "shop"), "--out", str(root / "facts")], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return root / "shop", root / "facts"


# -- 6: a relation of the scanner's vocabulary is known even with no rows -----------------------------


@pytest.mark.parametrize(
    "query",
    [
        "src_parse_error[code](P, M)",
        "src_workspace_import[code](F, S, D)",
        "src_declaration[code](F)",
        "src_unresolved_reason[code](F, S, R)",
    ],
)
def test_an_empty_relation_of_the_vocabulary_answers_no(rofl, tiny, query):
    code, out, err = rofl("ask", query, "--facts", tiny[1])
    assert (code, out.strip()) == (1, "no"), (code, out, err)
    assert "no relation" not in err


def test_an_unknown_name_keeps_its_did_you_mean(rofl, shop):
    code, out, err = rofl("ask", "src_parse_eror[code](P, M)", "--facts", shop[1])
    assert (code, out) == (2, "") and "did you mean src_parse_error[code]/2" in err


def test_the_vocabulary_keeps_its_arity(rofl, shop):
    code, _, err = rofl("ask", "src_parse_error[code](P)", "--facts", shop[1])
    assert code == 2 and "no relation src_parse_error[code]/1" in err and "src_parse_error[code]/2" in err


# -- 7: rofl serve --facts answers [code] relations --------------------------------------------------


def test_serve_over_a_scan_answers_a_code_relation(rofl, shop):
    requests = [
        {"ask": "in_cycle[code]", "args": [], "arity": 1},
        {"ask": "src_file[code]", "args": ['"src/domain/cart.ts"'], "arity": 2},
        {"ask": "in_cycle[code](F)", "args": [], "arity": 1},
    ]
    text = "".join(json.dumps(r) + "\n" for r in requests)
    code, out, err = rofl("serve", "--facts", shop[1], input=text)
    assert code == 0, err
    cycle, file, bad = (json.loads(line) for line in out.splitlines())
    assert "rows" in cycle, cycle
    assert "rows" in file and len(file["rows"]) == 1, file
    assert "error" in bad and "name[perspective]" in bad["error"]


# -- 8: why affected(...) without a change cannot know --------------------------------------------------


def test_why_affected_without_a_change_says_what_is_missing(rofl, shop):
    code, out, err = rofl("why", 'affected("src/domain/cart.ts")', "--facts", shop[1])
    assert (code, out) == (2, ""), (code, out, err)
    assert err.count("\n") == 1 and "changed" in err and "rofl impact" in err and "does not hold" not in out


def test_why_affected_with_a_change_answers(rofl, shop, tmp_path):
    change = tmp_path / "change.rofl"
    change.write_text('changed("nothing/here.ts").\n')
    code, out, _ = rofl("why", 'affected("src/domain/cart.ts")', "--facts", shop[1], "--rules", change)
    assert code == 1 and "does not hold" in out


# -- 13: audit --public-key with the wrong key: one finding and a count, not every fact -------------------


@pytest.mark.slow
def test_audit_with_the_wrong_key_is_one_finding_and_a_count(rofl, tmp_path):
    from click.testing import CliRunner

    from rofl.cli import main

    runner = CliRunner()
    for name in ("ci", "other"):
        assert runner.invoke(main, ["keygen", "--out", str(tmp_path / name)]).exit_code == 0
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    env = {"ROFL_TEST_SIGN_KEY": (tmp_path / "ci.key").read_text()}
    scanned = runner.invoke(
        main, ["scan", str(src), "--out", str(tmp_path / "f"), "--sign-key", "ROFL_TEST_SIGN_KEY"], env=env
    )
    assert scanned.exit_code == 0, scanned.output
    code, out, _ = rofl("audit", "--facts", tmp_path / "f", "--public-key", tmp_path / "other.pub")
    assert code == 1 and "forged[audit]" not in out, out
    assert "facts of the scan are unverified because the signature does not match" in out
    code, out, _ = rofl("audit", "--facts", tmp_path / "f", "--public-key", tmp_path / "other.pub", "--json")
    data = json.loads(out)
    assert "forged" not in data["audits"] and len(data["audits"]["unsigned"]) == 1
    assert [f["audit"] for f in data["findings"]].count("unsigned") == 1
    assert "unverified because the signature does not match" in data["audits"]["unverified"][0]
