"""Issue 10 item 1: ownership covers rules and authority itself; each bypass of the trial and the
attack on examples/shop is a regression test (the ones the manifest digests can see)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.forgery import redigest
from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"
EDGE = 'src_resolves[code]("src/domain/money.ts", "../cart", "src/domain/cart.ts")'


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """One scan of the shop; each test takes a copy of its fact folder."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("shop")
    src = root / "shop"
    shutil.copytree(SHOP, src)
    out = root / "facts"
    result = CliRunner().invoke(main, ["scan", str(src), "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def facts(pristine, tmp_path) -> Path:
    out = tmp_path / "facts"
    shutil.copytree(pristine, out)
    return out


def audit(rofl, facts, *extra) -> tuple[int, dict, str]:
    code, out, err = rofl("audit", "--facts", facts, "--json", *extra)
    return code, json.loads(out)["audits"], err


def test_clean_scan_has_no_findings(rofl, facts):
    assert audit(rofl, facts) == (0, {}, "")


def test_a_rules_file_rule_into_code_is_usurp_and_its_facts_forged(rofl, facts, tmp_path):
    rules = tmp_path / "r.rofl"
    rules.write_text(f'{EDGE} :- src_file[code]("src/index.ts", _).\n')
    code, found, _ = audit(rofl, facts, "--rules", rules)
    assert code == 1
    assert [row.split(", ")[1:] for row in found["usurp"]] == [["code", "user)"]]
    assert any("src/domain/money.ts" in f and "src/domain/cart.ts" in f for f in found["forged"])
    findings = json.loads(rofl("audit", "--facts", facts, "--rules", rules, "--json")[1])["findings"]
    assert {(f["audit"], f["file"], f["line"]) for f in findings} == {
        ("usurp", str(rules), 1),
        ("forged", str(rules), 1),
    }


def test_a_rules_file_rule_into_main_is_fine(rofl, facts, tmp_path):
    rules = tmp_path / "r.rofl"
    rules.write_text(
        'mine(F) :- src_file[code](F, _).\nviolation[audit](A, B) :- mine(A), mine(B), A = B, A = "none".\n'
    )
    assert audit(rofl, facts, "--rules", rules)[:2] == (0, {})


@pytest.mark.parametrize("claim", ["authority(code, unverified).", "authority(code, user)."])
def test_a_rules_file_authority_claim_is_a_finding_and_grants_nothing(rofl, facts, tmp_path, claim):
    rules = tmp_path / "r.rofl"
    rules.write_text(f"{claim}\n{EDGE}.\n")
    code, found, _ = audit(rofl, facts, "--rules", rules)
    assert code == 1 and found["claimed"] and any("src/domain/cart.ts" in f for f in found["forged"])


@pytest.mark.parametrize("who", ["user", "unverified"])
def test_a_tampered_preamble_claim_is_reported_and_its_facts_stay_forged(rofl, facts, who):
    pre = facts / "preamble.rofl"
    pre.write_text(pre.read_text() + f"authority(code, {who}).\n{EDGE}.\n")
    code, found, _ = audit(rofl, facts)
    assert code == 1 and found["claimed"] and any("src/domain/cart.ts" in f for f in found["forged"])


def test_a_redigested_preamble_cannot_grant(rofl, facts):
    pre = facts / "preamble.rofl"
    pre.write_text(pre.read_text() + "authority(code, user).\nauthority(main, unverified).\n")
    redigest(facts, "preamble.rofl")
    code, found, _ = audit(rofl, facts)
    assert code == 1 and len(found["claimed"]) == 2


def test_a_redigested_preamble_with_a_fact_loads_as_unverified(rofl, facts):
    """The preamble has one text: an edit with its digest recomputed still loads as unverified."""
    pre = facts / "preamble.rofl"
    pre.write_text(pre.read_text() + f"{EDGE}.\n")
    redigest(facts, "preamble.rofl")
    code, found, err = audit(rofl, facts)
    assert code == 1 and any("src/domain/cart.ts" in f for f in found["forged"])
    assert "not the preamble the scanner writes" in err


def test_a_manifest_without_preamble_still_grants_only_the_scanner(rofl, facts):
    manifest = json.loads((facts / "manifest.json").read_text())
    manifest["preamble"] = None
    (facts / "manifest.json").write_text(json.dumps(manifest))
    (facts / "preamble.rofl").write_text(f"authority(code, unverified).\n{EDGE}.\n")
    code, found, _ = audit(rofl, facts)
    assert code == 1 and found["claimed"] and any("src/domain/cart.ts" in f for f in found["forged"])


def test_a_rule_in_an_unlisted_fact_file(rofl, facts):
    (facts / "code" / "extra.rofl").write_text(f'{EDGE} :- src_file[code]("src/index.ts", _).\n')
    code, found, _ = audit(rofl, facts)
    assert code == 1 and found["rule_in_facts"] and found["usurp"]
    assert any("src/domain/cart.ts" in f for f in found["forged"])


def test_an_unlisted_authority_file_does_not_silence_an_edited_one(rofl, facts):
    (facts / "code" / "auth.rofl").write_text("authority(code, unverified).\nauthority(main, unverified).\n")
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    victim.write_text(victim.read_text() + f"{EDGE}.\n")
    code, found, _ = audit(rofl, facts)
    assert code == 1 and len(found["claimed"]) == 2
    assert len(found["forged"]) > 10  # every fact of the edited file, the injected edge among them
    assert any("src/domain/cart.ts" in f for f in found["forged"])


def test_a_deleted_fact_file_is_a_finding_and_answers_say_incomplete(rofl, facts):
    victim = sorted((facts / "code").glob("src_domain_cart*.rofl"))[0]
    victim.unlink()
    code, found, _ = audit(rofl, facts)
    assert code == 1 and found["missing_fact_file"] == [f'missing_fact_file[audit]("code/{victim.name}")']
    (finding,) = json.loads(rofl("audit", "--facts", facts, "--json")[1])["findings"]
    assert finding["file"] == str(facts / "code" / victim.name)  # named inside the fact folder
    code, out, err = rofl("impact", "--facts", facts, "--changed", "src/domain/money.ts", "--no-rescan")
    assert "incomplete" in err


def test_audit_never_answers_from_the_cache(rofl, facts, monkeypatch):
    """A forged cache (its key recomputed) cannot answer an audit: audit never reads it."""
    from rofl.loading import cache

    assert rofl("ask", "in_cycle[code](F)", "--facts", facts)[0] == 0  # writes the cache
    assert (facts / ".rofl-store.cache").exists()

    def poisoned(*_args):
        raise AssertionError("audit read the cache")

    monkeypatch.setattr(cache, "read", poisoned)
    assert audit(rofl, facts)[:2] == (0, {})


def test_excise_over_a_scan_recomputes_what_depended_on_the_fact(rofl, facts):
    """Excising the edge that closes the shop's import cycle removes the cycle (code.rofl's rules)."""
    edge = 'src_resolves[code]("src/services/checkout.ts", "./inventory", "src/services/inventory.ts")'
    code, out, _ = rofl("excise", edge, "--facts", facts, "--json")
    removed = json.loads(out)["removed"]
    assert code == 0 and edge.replace(", ", ", ") in [r.replace(", ", ", ") for r in removed]
    assert 'in_cycle[code]("src/services/checkout.ts")' in removed
    assert 'dependency[code]("src/services/checkout.ts", "src/services/inventory.ts")' in removed


def test_findings_name_the_file_and_line(rofl, facts, tmp_path):
    rules = tmp_path / "r.rofl"
    rules.write_text(f"-- a comment\nauthority(code, user).\n{EDGE}.\nx(1).\n{EDGE} :- x(1).\n")
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    lines = victim.read_text().splitlines()
    victim.write_text("\n".join(lines + ['src_export[code]("src/domain/money.ts", "evil").']) + "\n")
    code, out, _ = rofl("audit", "--facts", facts, "--rules", rules, "--json")
    findings = json.loads(out)["findings"]
    spot = {(f["audit"], f["file"], f["line"]) for f in findings}
    assert code == 1
    assert ("claimed", str(rules), 2) in spot and ("usurp", str(rules), 5) in spot
    assert ("forged", str(rules), 3) in spot and ("forged", str(victim), len(lines) + 1) in spot
    assert all({"audit", "fact", "file", "line"} <= set(f) for f in findings)


def test_a_leftover_of_a_killed_scan_is_no_finding(rofl, facts):
    """A file an interrupted scan wrote before its manifest is not loaded: a recovered scan is clean."""
    (facts / "code" / "src_gone.ts.0123456789ab-0123456789abcdef.rofl").write_text(
        f"{EDGE}.\nauthority(code, unverified).\n"
    )
    code, found, err = audit(rofl, facts)
    assert (code, found) == (0, {}) and "interrupted scan" in err


def test_a_forged_cache_with_its_key_recomputed_is_rebuilt(rofl, facts):
    """Issue 10 item 4: the cache answers only when its header carries this user's tag; a forger who
    recomputes the key and tags the payload with any other secret gets a rebuilt cache."""
    from rofl.loading import cache

    assert rofl("ask", "in_cycle[code](F)", "--facts", facts)[0] == 0  # builds the store
    assert rofl("ask", "in_cycle[code](F)", "--facts", facts)[0] == 0  # writes and tags the cache
    path = cache.cache_path(facts)
    key = path.read_bytes()[len(cache.MAGIC) :].split(b"\n", 1)[0].decode()
    cached = cache.read(facts, key)
    assert cached is not None
    store, warnings = cached
    store.add("src_resolves", ("code", "src/x.ts", "./y", "src/domain/cart.ts"), "scanner")
    cache.write(facts, key, store, warnings, secret=b"\x01" * 32)  # the forger's own secret
    assert cache.read(facts, key) is None
    manifest = json.loads((facts / "manifest.json").read_text())
    assert rofl("scan", manifest["src"], "--out", facts)[0] == 0  # the next scan: nothing to redo
    code, out, _ = rofl("ask", 'src_resolves[code]("src/x.ts", S, B)', "--facts", facts)
    assert code == 1 and "cart" not in out
    assert rofl("ask", "in_cycle[code](F)", "--facts", facts)[0] == 0  # the rebuilt cache answers
    assert cache.read(facts, key) is not None


def test_the_cache_tag_is_in_the_bytes_read(tmp_path):
    """The tag is checked on the very bytes parsed (one read): a cache tagged under another secret, or whose
    payload changed under a kept tag, is not read."""
    from rofl.engine.store import Store

    from rofl.loading import cache

    mine, theirs = b"\x02" * 32, b"\x03" * 32
    store = Store()
    store.add("x", ("main", 1), "scanner")
    cache.write(tmp_path, "k", store, (), secret=theirs)
    assert cache.read(tmp_path, "k", secret=mine) is None
    cache.write(tmp_path, "k", store, (), secret=mine)
    loaded = cache.read(tmp_path, "k", secret=mine)
    assert loaded is not None and ("main", 1) in loaded[0].base["x"]
    path = cache.cache_path(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert cache.read(tmp_path, "k", secret=mine) is None


def test_every_fact_only_a_usurping_rule_derives_is_forged_and_no_other(rofl, facts, tmp_path):
    """A usurping rule deriving many facts: each is forged once (read from one evaluation's provenance);
    a fact the scanner asserted is not, and a copy of a shipped rule is that rule (rules are their
    content), so it usurps nothing."""
    manifest = json.loads((facts / "manifest.json").read_text())
    n = len(manifest["files"])
    rules = tmp_path / "r.rofl"
    rules.write_text(
        "src_export[code](A, B) :- src_file[code](A, _), src_file[code](B, _).\n"  # n * n new facts
        "dependency[code](A, B) :- src_resolves[code](A, _, B).\n"  # code.rofl's own rule, copied
        "src_file[code](F, H) :- src_file[code](F, H).\n"  # only facts the scanner asserted
    )
    code, found, _ = audit(rofl, facts, "--rules", rules)
    assert code == 1 and len(found["usurp"]) == 2 and "dependency" not in str(found)
    assert len(found["forged"]) == n * n
    assert all("$fact(src_export, code," in f for f in found["forged"])


def test_why_names_the_forged_facts_a_derivation_rests_on(rofl, facts, tmp_path):
    """A fact only a usurping rule derives, or one a tampered fact file asserts, is named as forged[audit]
    by why (JSON and a warning), though no rule can see it inside the evaluation."""
    asked = 'depends_on[code]("src/domain/money.ts", "src/domain/cart.ts")'
    edge = 'src_resolves[code]("src/domain/money.ts", "../cart", "src/domain/cart.ts")'
    rules = tmp_path / "r.rofl"
    rules.write_text(f'{EDGE} :- src_file[code]("src/index.ts", _).\n')
    code, out, err = rofl("why", asked, "--facts", facts, "--rules", rules, "--json")
    assert code == 0 and json.loads(out)["forged"] == [edge] and "forged" in err
    assert rofl("why", asked, "--facts", facts)[0] == 1  # the edge is not in the scan
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    victim.write_text(victim.read_text() + f"{EDGE}.\n")
    code, out, err = rofl("why", asked, "--facts", facts)
    assert code == 0 and f"{edge}    -- base fact, asserted by unverified" in out and "1 forged fact" in err


def test_ask_warns_when_a_usurping_rule_forges_facts_it_answers_over(rofl, facts, tmp_path):
    """ask answers over what the rules derive, and says on stderr that facts only a usurping rule
    derives are forged; a --rules file that concludes only into [main] gets no such warning."""
    usurping = tmp_path / "r.rofl"
    usurping.write_text(f'{EDGE} :- src_file[code]("src/index.ts", _).\n')
    fine = tmp_path / "m.rofl"
    fine.write_text('touches_money(F) :- dependency[code](F, "src/domain/money.ts").\n')
    question = 'dependency[code]("src/domain/money.ts", X)'
    code, out, err = rofl("ask", question, "--facts", facts, "--rules", usurping)
    assert code == 0 and '"src/domain/cart.ts"' in out
    assert "1 fact(s) only usurping rules derive are forged" in err and "rofl audit" in err
    code, out, err = rofl("ask", question, "--facts", facts, "--rules", fine)
    assert "usurping" not in err


def test_why_over_a_clean_scan_names_no_forged_fact(rofl, facts):
    asked = 'depends_on[code]("src/domain/cart.ts", "src/domain/money.ts")'
    code, out, err = rofl("why", asked, "--facts", facts, "--json")
    assert code == 0 and json.loads(out)["forged"] == [] and err == ""


def test_load_as_scanner_is_refused_over_a_scan(rofl, facts, tmp_path):
    """Only the loader gives the scanner's identity: --load-as scanner cannot forge [code] facts."""
    forged = tmp_path / "f.rofl"
    forged.write_text(f"{EDGE}.\n")
    code, out, err = rofl("audit", "--facts", facts, "--load-as", "scanner", forged)
    assert code == 2 and "--load-as scanner" in err and len(err.strip().splitlines()) == 1


def test_the_cache_secret_is_private_to_its_user(tmp_path, monkeypatch):
    """The per-user secret lives outside any fact folder, readable by its owner only; a secret others
    can read is not used, and then no cache is read or written."""
    import os
    import stat

    from rofl.engine.store import Store

    from rofl.loading import cache, cachemac

    monkeypatch.setenv("ROFL_CONFIG_DIR", str(tmp_path / "config"))
    secret = cachemac.secret()
    key_file = tmp_path / "config" / cachemac.KEY_NAME
    assert secret is not None and stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert cachemac.secret() == secret  # the same secret each time
    folder = tmp_path / "facts"
    folder.mkdir()
    cache.write(folder, "k", Store(), ())
    assert cache.read(folder, "k") is not None
    key_file.chmod(0o644)
    assert cachemac.secret() is None
    assert cache.read(folder, "k") is None
    cache.cache_path(folder).unlink()
    cache.write(folder, "k", Store(), ())
    assert not cache.cache_path(folder).exists()


def test_the_cache_key_line_only_passes_over_another_key(tmp_path):
    """The key line before the tag lets a cache of another key be passed over unread; a key line changed to
    the one asked for does not make it answer (the key inside the authenticated payload counts)."""
    from rofl.engine.store import Store

    from rofl.loading import cache

    secret = b"\x04" * 32
    store = Store()
    store.add("x", ("main", 1), "scanner")
    cache.write(tmp_path, "k1", store, (), secret=secret)
    assert cache.read(tmp_path, "k2", secret=secret) is None
    assert cache.read(tmp_path, "k1", secret=secret) is not None
    path = cache.cache_path(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"\nk1\n", b"\nk2\n", 1))
    assert cache.read(tmp_path, "k2", secret=secret) is None


def test_a_cache_read_checks_and_decodes_only_the_segments_it_keeps(tmp_path):
    """Each relation is a segment with its digest in the authenticated header: a reader keeping some
    relations reads only theirs, and a damaged segment fails every read that keeps it."""
    from rofl.engine.store import Store

    from rofl.loading import cache

    secret = b"\x05" * 32
    store = Store()
    for n in range(3):
        store.add("a", ("main", n), "scanner")
        store.add("b", ("code", f"x{n}"), None)
    cache.write(tmp_path, "k", store, ("w",), secret=secret)
    whole = cache.read(tmp_path, "k", secret=secret)
    assert whole is not None and whole[0].base == store.base and whole[1] == ("w",)
    only_b = cache.read(tmp_path, "k", secret=secret, keep=lambda rel: rel == "b")
    assert only_b is not None and set(only_b[0].base) == {"b"} and only_b[0].base["b"] == store.base["b"]
    path = cache.cache_path(tmp_path)
    data = bytearray(path.read_bytes())
    at = data.index(b"x2")  # inside b's segment
    data[at] ^= 1
    path.write_bytes(bytes(data))
    assert cache.read(tmp_path, "k", secret=secret) is None
    assert cache.read(tmp_path, "k", secret=secret, keep=lambda rel: rel == "b") is None
    assert cache.read(tmp_path, "k", secret=secret, keep=lambda rel: rel == "a") is not None
