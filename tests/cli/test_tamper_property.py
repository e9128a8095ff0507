"""Issue 10, how it is checked: random tampering of a signed scan of examples/shop.

With the public key every tampering is an audit finding (exit 1); with --reextract (no key) every
tampering of the facts; without either, every tampering the manifest digests can see; a clean copy
gives none, nor does a scan recovered after a kill.  One scan is made per module and copied
per example.  20 examples by default; 500 under the slow marker.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import xxhash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.forgery import fact_name, redigest
from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"
ENV = "ROFL_TEST_PROPERTY_KEY"
# (kind, whether the manifest digests can see it without a signature)
KINDS = {
    "edit": True,
    "add": True,
    "delete": True,
    "swap": True,
    "rename": True,
    "manifest_digest": True,
    "redigest": False,  # the whole attack: a fact file edited, its digest recomputed, renamed to carry it
    "redigest_keep_name": True,  # a source's fact file whose name no longer carries its digest
    "add_listed": False,  # a new fact file named as the scanner names them, with a hand-written entry
    "add_listed_any_name": True,
    "preamble": True,
    "rules_fact": True,
    "rules_rule": True,
    "rules_authority": True,
    "foreign_signature": False,
    "other_scan_signature": False,
}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("tamper")
    runner = CliRunner()
    for name in ("ci", "other"):
        assert runner.invoke(main, ["keygen", "--out", str(root / name)]).exit_code == 0
    src = root / "shop"
    shutil.copytree(SHOP, src)
    for out, key, extra in (
        ("facts", "ci", []),
        ("facts_other_key", "other", []),
        ("facts_other_scan", "ci", ["--exclude", "**/cart.ts"]),
    ):
        result = runner.invoke(
            main,
            ["scan", str(src), "--out", str(root / out), "--sign-key", ENV, *extra],
            env={ENV: (root / f"{key}.key").read_text()},
        )
        assert result.exit_code == 0, result.output
    manifest = json.loads((root / "facts" / "manifest.json").read_text())
    return root, sorted(manifest["files"])


def _listed(facts: Path) -> list[str]:
    manifest = json.loads((facts / "manifest.json").read_text())
    records = [manifest.get("preamble"), manifest.get("package_entries"), *manifest["files"].values()]
    return [r["facts"] for r in records if isinstance(r, dict)]


def tamper(kind: str, facts: Path, root: Path, sources: list[str], a: int, b: int, n: int, work: Path) -> list[str]:
    """Apply one tampering to ``facts``; return extra audit arguments (a --rules file)."""
    listed = _listed(facts)
    one, two = listed[a % len(listed)], listed[b % len(listed)]
    edge = f'src_resolves[code]({json.dumps(sources[a % len(sources)])}, "./forged-{n}", {json.dumps(sources[b % len(sources)])})'
    if kind == "edit":
        (facts / one).write_text((facts / one).read_text() + edge + ".\n")
    elif kind == "add":
        (facts / "code" / f"extra{n}.rofl").write_text(edge + ".\n")
    elif kind == "delete":
        (facts / one).unlink()
    elif kind == "swap":
        if one == two:
            two = listed[(listed.index(one) + 1) % len(listed)]
        x, y = (facts / one).read_bytes(), (facts / two).read_bytes()
        (facts / one).write_bytes(y)
        (facts / two).write_bytes(x)
    elif kind == "rename":
        target = facts / one
        target.rename(target.with_name(f"z{n}" + target.name))
    elif kind == "manifest_digest":
        manifest = json.loads((facts / "manifest.json").read_text())
        path = sorted(manifest["files"])[a % len(manifest["files"])]
        manifest["files"][path]["digest"] = f"{n:016x}"
        (facts / "manifest.json").write_text(json.dumps(manifest))
    elif kind in ("redigest", "redigest_keep_name"):
        if kind == "redigest_keep_name":  # a source's fact file (the preamble's text is fixed, entries unnamed)
            one = [p for p in listed if p.startswith("code/")][a % (len(listed) - 2)]
        (facts / one).write_text((facts / one).read_text() + edge + ".\n")
        redigest(facts, one, rename=kind == "redigest")
    elif kind in ("add_listed", "add_listed_any_name"):
        digest = xxhash.xxh3_64_hexdigest((edge + ".\n").encode())
        rel = fact_name(f"src/extra{n}.ts", digest) if kind == "add_listed" else f"code/extra{n}.rofl"
        (facts / rel).write_text(edge + ".\n")
        manifest = json.loads((facts / "manifest.json").read_text())
        # a well-formed entry (a copy of a real one) naming the new file: a malformed one is refused outright
        template = next(iter(manifest["files"].values()))
        manifest["files"][f"src/extra{n}.ts"] = {**template, "facts": rel, "digest": digest}
        (facts / "manifest.json").write_text(json.dumps(manifest))
    elif kind == "preamble":
        (facts / "preamble.rofl").write_text(
            (facts / "preamble.rofl").read_text() + ["authority(code, unverified).\n", edge + ".\n"][n % 2]
        )
    elif kind.startswith("rules_"):
        rules = work / "rules.rofl"
        text = {
            "rules_fact": edge + ".\n",
            "rules_rule": f"{edge} :- src_file[code](_, _).\n",
            "rules_authority": f"authority(code, {['user', 'unverified'][n % 2]}).\n{edge}.\n",
        }[kind]
        rules.write_text(text)
        return ["--rules", str(rules)]
    elif kind == "foreign_signature":
        shutil.copy(root / "facts_other_key" / "manifest.sig", facts / "manifest.sig")
    elif kind == "other_scan_signature":
        shutil.copy(root / "facts_other_scan" / "manifest.sig", facts / "manifest.sig")
    return []


def run_audit(facts: Path, extra: list[str]) -> int:
    from click.testing import CliRunner

    from rofl.cli import main

    return CliRunner().invoke(main, ["audit", "--facts", str(facts), *extra]).exit_code


SIGNATURE_KINDS = {"foreign_signature", "other_scan_signature"}  # the facts are intact: only a key sees these


def check(world, kind: str, a: int, b: int, n: int, reextract: bool = False) -> None:
    """With the public key, every tampering is a finding; with --reextract (no key), every tampering of the
    facts; without either, every one the manifest digests can see."""
    root, sources = world
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        facts = work / "facts"
        shutil.copytree(root / "facts", facts)
        extra = tamper(kind, facts, root, sources, a, b, n, work)
        assert run_audit(facts, [*extra, "--public-key", str(root / "ci.pub")]) == 1, kind
        if reextract and kind not in SIGNATURE_KINDS:
            assert run_audit(facts, [*extra, "--src", str(root / "shop"), "--reextract"]) == 1, kind
        if KINDS[kind]:
            assert run_audit(facts, extra) == 1, kind


TAMPERING = dict(
    kind=st.sampled_from(sorted(KINDS)), a=st.integers(0, 10_000), b=st.integers(0, 10_000), n=st.integers(0, 10**6)
)
QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def test_a_clean_copy_has_no_findings(world):
    root, _ = world
    with tempfile.TemporaryDirectory() as tmp:
        facts = Path(tmp) / "facts"
        shutil.copytree(root / "facts", facts)
        assert run_audit(facts, ["--public-key", str(root / "ci.pub")]) == 0
        assert run_audit(facts, ["--src", str(root / "shop"), "--reextract"]) == 0
        assert run_audit(facts, []) == 0


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_of_tampering_is_detected(world, kind):
    check(world, kind, 1, 2, 3, reextract=True)


# each example runs two audits (about half a second): `make test` tries 20, `make test-all` 500 more
# (with a third, --reextract, audit each)
@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=QUIET, database=None)
@given(**TAMPERING)
def test_every_tampering_is_detected(world, kind, a, b, n):
    check(world, kind, a, b, n)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=QUIET, database=None)
@given(**TAMPERING)
def test_every_tampering_is_detected_500(world, kind, a, b, n):
    check(world, kind, a, b, n, reextract=True)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="fork-based kills")
def test_scans_recovered_after_a_kill_have_no_findings(tmp_path):
    """A rescan killed at a random moment leaves a folder that audits clean (its leftovers are never
    loaded), and so does the scan that recovers it, against the sources too (--src)."""
    import random

    from tests.scanner.test_hostile_kill import scan_and_kill

    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    assert run_scan(src, facts) == 0
    files = sorted((src / "src" / "domain").glob("*.ts"))
    rng = random.Random(10)
    killed = 0
    for i in range(40):
        for path in rng.sample(files, 3):
            path.write_text(path.read_text() + f"\nexport const edit{i} = {i};\n")
        killed += scan_and_kill(src, facts, rng.uniform(0, 0.15))
        assert run_audit(facts, []) == 0
        assert run_scan(src, facts) == 0
        assert run_audit(facts, ["--src", str(src)]) == 0
        if killed == 3:
            break
    assert killed == 3


def run_scan(src: Path, facts: Path) -> int:
    from click.testing import CliRunner

    from rofl.cli import main

    return CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)]).exit_code
