"""Issue 10 item 2: signed scans (rofl keygen, scan --sign-key, audit/ask/impact --public-key), and
the attacks that left the manifest consistent, which only the signature can see."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
import xxhash

from tests.cli.forgery import fact_name, redigest
from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"
EDGE = 'src_resolves[code]("src/domain/money.ts", "../cart", "src/domain/cart.ts").\n'
ENV = "ROFL_TEST_SIGN_KEY"


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """Keys, and one signed scan of the shop; each test takes a copy of the fact folder."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("signed")
    runner = CliRunner()
    for name in ("ci", "other"):
        result = runner.invoke(main, ["keygen", "--out", str(root / name)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    src = root / "shop"
    shutil.copytree(SHOP, src)
    env = {ENV: (root / "ci.key").read_text()}
    result = runner.invoke(
        main, ["scan", str(src), "--out", str(root / "facts"), "--sign-key", ENV], env=env, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert (root / "ci.key").read_text() not in result.output
    result = runner.invoke(
        main,
        ["scan", str(src), "--out", str(root / "facts2"), "--sign-key", ENV, "--exclude", "**/cart.ts"],
        env=env,
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def facts(signed, tmp_path) -> Path:
    out = tmp_path / "facts"
    shutil.copytree(signed / "facts", out)
    return out


def audit(rofl, facts, key) -> tuple[int, dict]:
    code, out, _ = rofl("audit", "--facts", facts, "--json", "--public-key", key)
    return code, json.loads(out)["audits"]


def test_keygen_modes_and_refuses_to_overwrite(rofl, signed):
    assert stat.S_IMODE(os.stat(signed / "ci.key").st_mode) == 0o600
    assert (signed / "ci.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    code, _, err = rofl("keygen", "--out", signed / "ci")
    assert code == 2 and "exists" in err and len(err.strip().splitlines()) == 1


def test_the_signature_verifies_and_the_key_is_nowhere_in_the_folder(rofl, signed, facts):
    assert audit(rofl, facts, signed / "ci.pub") == (0, {})
    secret = (signed / "ci.key").read_text().splitlines()[1]
    for path in facts.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace")


def test_a_bad_sign_key_is_a_user_error(rofl, signed, tmp_path):
    code, _, err = rofl("scan", SHOP, "--out", tmp_path / "x", "--sign-key", "ROFL_TEST_NO_SUCH_VAR")
    assert code == 2 and "ROFL_TEST_NO_SUCH_VAR" in err and not (tmp_path / "x").exists()


@pytest.mark.slow
def test_a_foreign_key_missing_or_reused_signature_is_a_finding(rofl, signed, facts):
    code, found = audit(rofl, facts, signed / "other.pub")
    assert code == 1 and "another key" in found["unsigned"][0] and "forged" not in found  # folded (issue 21)
    assert "facts of the scan are unverified because the signature does not match" in found["unverified"][0]
    shutil.copy(signed / "facts2" / "manifest.sig", facts / "manifest.sig")  # a signature of another scan
    code, found = audit(rofl, facts, signed / "ci.pub")
    assert code == 1 and "does not match" in found["unsigned"][0]
    (facts / "manifest.sig").unlink()
    code, found = audit(rofl, facts, signed / "ci.pub")
    assert code == 1 and "no signature" in found["unsigned"][0]


@pytest.mark.slow
@pytest.mark.parametrize("scanner_name", [False, True], ids=["any_name", "named_like_the_scanner"])
def test_a_new_fact_file_with_a_handwritten_manifest_entry(rofl, signed, facts, scanner_name):
    """A hand-written entry names its file as the scanner would (digest in the name) or not: the digests
    see only the second kind's name; the signature sees both."""
    digest = xxhash.xxh3_64_hexdigest(EDGE.encode())
    rel = fact_name("src/evil.ts", digest) if scanner_name else "code/evil.rofl"
    (facts / rel).write_text(EDGE)
    manifest = json.loads((facts / "manifest.json").read_text())
    manifest["files"]["src/evil.ts"] = {**next(iter(manifest["files"].values())), "facts": rel, "digest": digest}
    (facts / "manifest.json").write_text(json.dumps(manifest))
    assert rofl("audit", "--facts", facts)[0] == (0 if scanner_name else 1)
    code, found = audit(rofl, facts, signed / "ci.pub")
    assert code == 1 and found["unsigned"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["preamble.rofl", "entries.rofl"])
def test_a_redigested_preamble_or_entries_file(rofl, signed, facts, name):
    (facts / name).write_text((facts / name).read_text() + EDGE)
    redigest(facts, name)
    code, found = audit(rofl, facts, signed / "ci.pub")
    assert code == 1 and found["unsigned"]


def test_ask_and_impact_refuse_forged_facts_with_the_public_key(rofl, signed, facts):
    code, out, _ = rofl("ask", "in_cycle[code](F)", "--facts", facts, "--public-key", signed / "ci.pub")
    assert code == 0 and "src/" in out
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    victim.write_text(victim.read_text() + EDGE)
    redigest(facts, f"code/{victim.name}", rename=True)
    assert rofl("ask", "in_cycle[code](F)", "--facts", facts)[0] == 0  # only the signature sees it
    code, out, err = rofl("ask", "in_cycle[code](F)", "--facts", facts, "--public-key", signed / "ci.pub")
    assert code == 1 and out == "" and "refusing" in err
    code, out, err = rofl(
        "impact", "--facts", facts, "--changed", "src/domain/money.ts", "--public-key", signed / "ci.pub"
    )
    assert code == 1 and "refusing" in err


def test_the_key_is_never_printed_or_logged(rofl, signed, tmp_path, monkeypatch):
    """At -vv, a signed scan, a resign after an edit, and a failed key (not PEM) say nothing of the key."""
    key_text = (signed / "ci.key").read_text()
    secret = key_text.splitlines()[1]
    monkeypatch.setenv(ENV, key_text)
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    outputs = [rofl("scan", src, "--out", tmp_path / "f", "--sign-key", ENV, "-vv")]
    (src / "src" / "index.ts").write_text((src / "src" / "index.ts").read_text() + "\nexport const x = 1;\n")
    outputs.append(rofl("scan", src, "--out", tmp_path / "f", "--sign-key", ENV, "-vv"))
    monkeypatch.setenv(ENV, key_text.replace("PRIVATE", "PUBLIC"))
    outputs.append(rofl("scan", src, "--out", tmp_path / "g", "--sign-key", ENV, "-vv"))
    assert [code for code, _, _ in outputs] == [0, 0, 2]
    assert all(secret not in out + err for _, out, err in outputs)
    assert audit(rofl, tmp_path / "f", signed / "ci.pub") == (0, {})
