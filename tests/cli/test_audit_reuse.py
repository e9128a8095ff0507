"""`rofl audit` over a scan reuses what it judged before (rofl.loading.audit_store): the same answer as a load of
every fact file, after any sequence of source edits and rescans, with forged facts still reported."""

from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.forgery import redigest
from tests.conftest import write_tree

TREE = {
    "src/a.js": "import { b } from './b.js';\nexport const a = b + 1;\n",
    "src/b.js": "import { c } from './lib/c.js';\nexport const b = c;\n",
    "src/lib/c.js": "export const c = 2;\n",
    "src/lib/d.ts": "import type { T } from '../types';\nexport function d(t: T) { return t; }\n",
    "src/x.js": "import { y } from './y.js';\nexport const x = 1;\n",
    "src/y.js": "import { x } from './x.js';\nimport lodash from 'lodash';\nexport const y = x;\n",
}
FORBID = 'forbid("src/lib", "src").\n'  # a rule reading [code]: the audit adds the pure files' [code] facts it reads
PRESETS = 'use(no_circular).\nuse(no_orphans).\nuse(no_undeclared_packages).\nallow(no_orphans, "src/a.js").\n'
RULES = st.sampled_from([None, FORBID, PRESETS, FORBID + PRESETS])
NAMES = ["src/a.js", "src/b.js", "src/lib/c.js", "src/lib/d.ts", "src/e.js", "src/lib/f.js"]

edits = st.lists(
    st.tuples(
        st.sampled_from(["edit", "import", "delete", "add"]),
        st.sampled_from(NAMES),
    ),
    min_size=1,
    max_size=3,
)
tampers = st.sampled_from(
    [None, None, "append_main", "append_code", "hand_written", "repeat_code", "redigest_main", "delete_fact"]
)


def run(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from rofl.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@contextmanager
def every_fact_file():
    """The audit as it was: every fact file loaded (the reused residue refused)."""
    with mock.patch("rofl.loading.audit_store.residue", return_value=None):
        yield


def audit_both(facts: Path, *extra: str) -> tuple[tuple, tuple]:
    reused = run("audit", "--facts", facts, "--json", *extra)
    with every_fact_file():
        full = run("audit", "--facts", facts, "--json", *extra)
    return reused, full


def apply(src: Path, op: str, name: str) -> None:
    path = src / name
    if op == "delete":
        path.unlink(missing_ok=True)
    elif op == "add" or not path.exists():
        write_tree(src, {name: "export const x = 1;\n"})
    elif op == "edit":
        path.write_text(path.read_text() + "// edited\n")
    else:  # import another file
        target = "./c.js" if "/lib/" in name else "./lib/c.js"
        path.write_text(f"import {{ c as c{len(path.read_text())} }} from '{target}';\n" + path.read_text())


def tamper(facts: Path, kind: str) -> None:
    """What an attacker who can write the fact folder does (tests/cli/forgery.py)."""
    listed = sorted(p.relative_to(facts).as_posix() for p in (facts / "code").glob("*.rofl"))
    if not listed:
        return
    target = facts / listed[0]
    if kind == "append_main":
        target.write_text(target.read_text() + 'owner[main]("x").\n')
    elif kind == "append_code":
        target.write_text(target.read_text() + 'src_file[code]("fake.js", "0").\n')
    elif kind == "hand_written":
        (facts / "code" / "hand.rofl").write_text('src_file[code]("hand.js", "0").\nrole[main](admin).\n')
    elif kind == "repeat_code":  # a fact the scanner wrote too, asserted again by a hand-written file
        fact = next(line for line in target.read_text().splitlines() if line.startswith("src_file[code]("))
        (facts / "code" / "hand.rofl").write_text(fact + "\n")
    elif kind == "redigest_main":
        target.write_text(target.read_text() + 'owner[main]("x").\n')
        redigest(facts, listed[0], rename=True)
    elif kind == "delete_fact":
        target.unlink()


def findings(out: str) -> set[str]:
    return {f["audit"] for f in json.loads(out)["findings"]}


EDITS = st.lists(edits, min_size=1, max_size=2)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=EDITS, rules=RULES, forged=tampers)
def test_an_audit_after_rescans_equals_an_audit_of_every_fact_file(steps, rules, forged):
    audits_agree(steps, rules, forged)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=EDITS, rules=RULES, forged=tampers)
def test_many_edit_sequences_audit_as_every_fact_file(steps, rules, forged):
    audits_agree(steps, rules, forged)


def audits_agree(steps, rules_text, forged) -> None:
    """Scan, audit, apply each step, rescan and audit again, then tamper: the reused audit equals the full load."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src, facts = root / "repo", root / "facts"
        write_tree(src, TREE)
        rules: tuple[str, ...] = ()
        if rules_text is not None:
            (root / "rules.rofl").write_text(rules_text)
            rules = ("--rules", str(root / "rules.rofl"))
        assert run("scan", src, "--out", facts)[0] == 0
        first, full = audit_both(facts, *rules)
        assert first == full
        for step in steps:
            for op, name in step:
                apply(src, op, name)
            assert run("scan", src, "--out", facts)[0] == 0
            assert audit_both(facts, *rules)[0] == audit_both(facts, *rules)[1]
        if forged is not None:
            tamper(facts, forged)
            reused, full = audit_both(facts, *rules)
            assert reused == full
            if forged in ("append_main", "hand_written", "repeat_code", "redigest_main"):
                assert reused[0] == 1 and findings(reused[1]) & {"forged", "unverified"}, reused
            elif forged == "delete_fact":
                assert reused[0] == 1 and "missing_fact_file" in findings(reused[1]), reused


def test_after_a_one_file_change_the_audit_reads_only_that_fact_file(tmp_path):
    from rofl.loading import audit_store

    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert run("scan", src, "--out", facts)[0] == 0
    assert run("audit", "--facts", facts)[0] == 0
    assert audit_store.residue(facts).updated == 0  # judged by the first audit, nothing read again
    (src / "src/b.js").write_text(TREE["src/b.js"] + "// edited\n")
    assert run("scan", src, "--out", facts)[0] == 0
    found = audit_store.residue(facts)
    assert found.updated == 1 and [row[0] for row in found.whole] == ["preamble.rofl"]
    assert {"src_file", "src_import"} <= found.code
    from rofl.loading.factload import Loading

    parsed: list[str] = []
    original = Loading.load

    def counting(self, kernel, path, who, text):
        parsed.append(Path(path).name)
        return original(self, kernel, path, who, text)

    with mock.patch.object(Loading, "load", counting):
        code, out, _ = run("audit", "--facts", facts)
    assert code == 0 and "all audits are empty" in out
    assert parsed == ["preamble.rofl"]  # no source's fact file is parsed


def test_a_fact_file_edited_without_its_digest_is_still_reported(tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert run("scan", src, "--out", facts)[0] == 0
    assert run("audit", "--facts", facts)[0] == 0  # the records are written
    target = sorted((facts / "code").glob("*.rofl"))[0]
    text = target.read_text()
    target.write_text(text.replace("\n", '\nsecret[main]("x").\n', 1))
    code, out, _ = run("audit", "--facts", facts, "--json")
    assert code == 1 and findings(out) & {"forged", "unverified"}


def test_a_signed_scan_is_audited_from_its_residue_and_a_wrong_key_still_fails_it(tmp_path):
    import os

    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    for name in ("ci", "other"):
        assert run("keygen", "--out", tmp_path / name)[0] == 0
    os.environ["ROFL_TEST_REUSE_KEY"] = (tmp_path / "ci.key").read_text()
    try:
        assert run("scan", src, "--out", facts, "--sign-key", "ROFL_TEST_REUSE_KEY")[0] == 0
        (src / "src/b.js").write_text(TREE["src/b.js"] + "// edited\n")
        assert run("scan", src, "--out", facts, "--sign-key", "ROFL_TEST_REUSE_KEY")[0] == 0
    finally:
        del os.environ["ROFL_TEST_REUSE_KEY"]
    for key, clean in ((tmp_path / "ci.pub", True), (tmp_path / "other.pub", False)):
        reused, full = audit_both(facts, "--public-key", str(key))
        assert reused == full
        assert (reused[0] == 0) is clean and ("unsigned" in findings(reused[1])) is not clean


def loaded_relations(facts: Path, *extra: str) -> tuple[tuple, list[frozenset[str]]]:
    """The audit's outcome and the relations of the pure files it added (one entry per partial load)."""
    from rofl.loading import audit_store

    asked: list[frozenset[str]] = []
    original = audit_store.load_pure

    def recording(kernel, found, relations, **how):
        asked.append(relations)
        return original(kernel, found, relations, **how)

    with mock.patch.object(audit_store, "load_pure", recording):
        outcome = run("audit", "--facts", facts, "--json", *extra)
    return outcome, asked


def test_a_preset_audit_adds_only_the_code_relations_its_rules_read(tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    (tmp_path / "rules.rofl").write_text("use(no_circular).\n")
    assert run("scan", src, "--out", facts)[0] == 0
    (reused, asked), full = loaded_relations(facts, "--rules", tmp_path / "rules.rofl"), None
    with every_fact_file():
        full = run("audit", "--facts", facts, "--json", "--rules", tmp_path / "rules.rofl")
    assert reused == full
    assert reused[0] == 1 and {(f["rule"], f["file"]) for f in json.loads(reused[1])["findings"]} == {
        ("no_circular", "src/x.js"),
        ("no_circular", "src/y.js"),
    }
    assert len(asked) == 1 and {"src_resolves", "src_file"} <= asked[0]
    assert not asked[0] & {"src_call", "src_decl", "src_decl_uses", "src_export"}  # what no rule of it reads


def test_without_a_live_rule_over_code_no_pure_fact_is_added(tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert run("scan", src, "--out", facts)[0] == 0
    (code, out, _), asked = loaded_relations(facts)
    assert code == 0 and asked == []


def test_a_dependency_cruiser_config_is_judged_over_the_residue_as_over_every_fact_file(tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    config = {
        "forbidden": [
            {"name": "no-lib-to-src", "severity": "warn", "from": {"path": "^src/lib"}, "to": {"path": "^src/[ab]"}}
        ]
    }
    (src / ".dependency-cruiser.json").write_text(json.dumps(config))
    (src / "src/lib/c.js").write_text("import { a } from '../a.js';\nexport const c = 2;\n")
    assert run("scan", src, "--out", facts)[0] == 0
    (reused, asked) = loaded_relations(facts, "--fail-on", "warn")
    with every_fact_file():
        full = run("audit", "--facts", facts, "--json", "--fail-on", "warn")
    assert reused == full and asked
    assert reused[0] == 1 and {f["rule"] for f in json.loads(reused[1])["findings"]} == {"no-lib-to-src"}


def test_the_pure_rows_are_kept_by_digest_and_a_rescan_parses_one_file(tmp_path):
    from rofl.loading import audit_store, pure_rows

    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    (tmp_path / "rules.rofl").write_text(PRESETS)
    rules = ("--rules", str(tmp_path / "rules.rofl"))
    assert run("scan", src, "--out", facts)[0] == 0
    assert run("audit", "--facts", facts, *rules)[0] == 1
    assert (facts / pure_rows.ROWS_NAME).is_file()
    (src / "src/b.js").write_text(TREE["src/b.js"] + "// edited\n")
    assert run("scan", src, "--out", facts)[0] == 0
    parsed: list[str] = []
    original = pure_rows.rows_of

    def counting(text, memo):
        parsed.append(text)
        return original(text, memo)

    with mock.patch.object(pure_rows, "rows_of", counting):
        reused = run("audit", "--facts", facts, "--json", *rules)
    assert len(parsed) == 1 and '"src/b.js"' in parsed[0]
    with every_fact_file():
        assert reused == run("audit", "--facts", facts, "--json", *rules)
    found = audit_store.residue(facts)
    assert found is not None
    code_files = {p.relative_to(facts).as_posix() for p in (facts / "code").glob("*.rofl")}
    assert code_files <= {row[0] for row in found.pure}


def test_a_rows_file_someone_else_wrote_is_ignored(tmp_path):
    from rofl.loading import pure_rows

    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    (tmp_path / "rules.rofl").write_text(FORBID + PRESETS)
    rules = ("--rules", str(tmp_path / "rules.rofl"))
    assert run("scan", src, "--out", facts)[0] == 0
    first = run("audit", "--facts", facts, "--json", *rules)
    rows_file = facts / pure_rows.ROWS_NAME
    data = rows_file.read_bytes()
    # a forged payload (no file imports another) under a tag its writer cannot make
    forged = __import__("marshal").dumps((pure_rows.FORMAT, pure_rows.stamp(), {}))
    head = data.split(b"\n", 2)
    rows_file.write_bytes(head[0] + b"\n" + b"0" * len(head[1]) + b"\n" + forged)
    assert run("audit", "--facts", facts, "--json", *rules) == first


@pytest.mark.parametrize("planted", ["garbage", "empty", "directory", "link"])
def test_a_damaged_or_planted_rows_file_is_ignored_and_never_followed(tmp_path, planted):
    from rofl.loading import pure_rows

    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    (tmp_path / "rules.rofl").write_text(PRESETS)
    rules = ("--rules", str(tmp_path / "rules.rofl"))
    assert run("scan", src, "--out", facts)[0] == 0
    with every_fact_file():
        expected = run("audit", "--facts", facts, "--json", *rules)
    rows_file = facts / pure_rows.ROWS_NAME
    outside = tmp_path / "outside.txt"
    outside.write_text("not rofl's\n")
    if planted == "garbage":
        rows_file.write_bytes(pure_rows.MAGIC + b"0" * 64 + b"\n" + b"\x00garbage")
    elif planted == "empty":
        rows_file.write_bytes(b"")
    elif planted == "directory":
        rows_file.mkdir()
    else:
        rows_file.symlink_to(outside)
    assert run("audit", "--facts", facts, "--json", *rules) == expected
    assert outside.read_text() == "not rofl's\n"  # a link is replaced or left, never written through
