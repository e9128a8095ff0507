"""`rofl audit` answers with the last audit's answer when no row its rules read changed (rofl.questions.audit_memo):
the same answer as an audit of every fact file, without loading or evaluating the pure files' rows; anything the
answer depends on (an import, a rule file, a baseline, the memo's own bytes) makes it evaluate again."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest

from rofl.questions.audit_memo import NAME
from tests.cli.test_audit_reuse import audit_both, run
from tests.conftest import write_tree

TREE = {
    "package.json": '{"name": "app", "dependencies": {"left-pad": "1"}}\n',
    "src/a.js": "import { b } from './b.js';\nimport pad from 'left-pad';\nexport const a = b + pad;\n",
    "src/b.js": "import { c } from './lib/c.js';\nexport const b = c;\n",
    "src/lib/c.js": "export const c = 2;\n",
    "src/x.js": "import { y } from './y.js';\nexport const x = 1;\n",
    "src/y.js": "import { x } from './x.js';\nimport lodash from 'lodash';\nexport const y = x + lodash;\n",
}
PRESETS = "use(no_circular).\nuse(no_orphans).\nuse(no_undeclared_packages).\nuse(unused_dependency).\n"


@pytest.fixture
def scanned(tmp_path: Path) -> tuple[Path, Path, Path]:
    src, facts, rules = tmp_path / "repo", tmp_path / "facts", tmp_path / "rules.rofl"
    write_tree(src, TREE)
    rules.write_text(PRESETS)
    assert run("scan", src, "--out", facts)[0] == 0
    return src, facts, rules


def rescan(src: Path, facts: Path) -> None:
    assert run("scan", src, "--out", facts)[0] == 0


def no_pure_rows():
    """Loading the pure files' rows fails the test: an answer given under it came from the memo."""
    return mock.patch("rofl.loading.audit_store.load_pure", side_effect=AssertionError("pure rows loaded"))


def test_a_body_edit_reuses_the_last_answer_without_loading_the_pure_rows(scanned):
    src, facts, rules = scanned
    first, full = audit_both(facts, "--rules", rules)
    assert first == full and first[0] == 1  # the cycle x <-> y and lodash undeclared
    assert (facts / NAME).is_file()
    (src / "src/b.js").write_text(TREE["src/b.js"] + "function later() { return 3; }\n// edited\n")
    rescan(src, facts)
    with no_pure_rows():
        reused = run("audit", "--facts", facts, "--rules", rules, "--json")
    assert reused == first
    assert audit_both(facts, "--rules", rules)[1] == reused  # and it is what every fact file gives


def test_an_import_edit_evaluates_again_and_the_next_audit_reuses_that(scanned):
    src, facts, rules = scanned
    before = run("audit", "--facts", facts, "--rules", rules, "--json")
    (src / "src/lib/c.js").write_text("import { a } from '../a.js';\n" + TREE["src/lib/c.js"])  # a new cycle
    rescan(src, facts)
    with no_pure_rows(), pytest.raises(AssertionError, match="pure rows loaded"):
        run("audit", "--facts", facts, "--rules", rules, "--json")
    after, full = audit_both(facts, "--rules", rules)
    assert after == full and after != before
    assert any(f.get("to") == "src/a.js" for f in json.loads(after[1])["findings"])
    with no_pure_rows():
        assert run("audit", "--facts", facts, "--rules", rules, "--json") == after


@pytest.mark.parametrize(
    "change",
    [
        "rules",  # a rule file that exempts a file
        "severity",  # the same rules, another severity for one of them
        "baseline",  # a baseline that knows the findings
        "memo",  # the memo's bytes edited (its tag no longer verifies)
        "package",  # a dependency declared: package facts, not a source file
    ],
)
def test_what_the_answer_depends_on_besides_the_pure_rows_evaluates_again(scanned, tmp_path, change):
    src, facts, rules = scanned
    first = run("audit", "--facts", facts, "--rules", rules, "--json")
    extra: tuple = ()
    if change == "rules":
        rules.write_text(PRESETS + 'allow(no_circular, "src/x.js").\n')
    elif change == "severity":
        rules.write_text(PRESETS + "severity(no_circular, info).\n")
    elif change == "baseline":
        baseline = tmp_path / "baseline.json"
        assert run("audit", "--facts", facts, "--rules", rules, "--write-baseline", baseline)[0] == 0
        extra = ("--baseline", baseline)
    elif change == "memo":
        data = bytearray((facts / NAME).read_bytes())
        data[-1] ^= 1
        (facts / NAME).write_bytes(bytes(data))
    else:
        (src / "package.json").write_text('{"name": "app", "dependencies": {"left-pad": "1", "lodash": "4"}}\n')
        rescan(src, facts)
    again, full = audit_both(facts, "--rules", rules, *extra)
    assert again == full
    if change != "memo":
        assert again != first
    else:
        assert again == first


def test_with_src_the_stale_check_still_runs(scanned):
    src, facts, rules = scanned
    assert run("audit", "--facts", facts, "--rules", rules)[0] == 1
    (src / "src/b.js").write_text(TREE["src/b.js"] + "// not rescanned\n")
    code, out, _ = run("audit", "--facts", facts, "--rules", rules, "--src", src, "--json")
    assert code == 1 and any(f["audit"] == "stale" for f in json.loads(out)["findings"])


def test_verbose_says_when_the_last_answer_holds(scanned):
    src, facts, rules = scanned
    run("audit", "--facts", facts, "--rules", rules)
    (src / "src/b.js").write_text(TREE["src/b.js"] + "// edited\n")
    rescan(src, facts)
    _, _, err = run("-v", "audit", "--facts", facts, "--rules", rules)
    assert "the last audit's answer holds (1 fact file(s) changed no row it reads)" in err


def test_read_columns_leaves_out_only_what_no_rule_can_see(tmp_path):
    from rofl.engine.kernel import Kernel

    from rofl.loading.audit_store import read_columns

    def columns(rules: str) -> dict:
        kernel = Kernel(None)
        program = tmp_path / "rules.rofl"
        program.write_text(rules)
        kernel.load_sources([(program, None)], evaluate_now=False)
        return read_columns(kernel, ["src_file", "src_in_dir", "src_resolves"])

    got = columns("f(F) :- src_file[code](F, _).\nd(D) :- src_in_dir[code](_, D).\n")
    assert got["src_file"] == (0, 1) and got["src_in_dir"] == (0, 2)
    assert got["src_resolves"] is None  # the findings read its rows (import lines)
    assert columns("f(F, H) :- src_file[code](F, H).\n")["src_file"] is None  # the digest is read
    assert columns('f(F) :- src_file[code](F, H), H != "x".\n')["src_file"] is None  # named twice: read
    assert columns('f(F) :- g(F), not src_file[code](F, _).\ng("a").\n')["src_file"] is None  # negated
    assert columns("n(C) :- C = count : { src_file[code](F, _) }.\n")["src_file"] is None  # aggregated
    assert columns("f(F) :- src_file[code](F, _).\nh(F) :- src_file[code](F, _, _).\n")["src_file"] is None
    assert columns('src_file[code]("a", "b") :- g(1).\ng(1).\nf(F) :- src_file[code](F, _).\n')["src_file"] is None
    assert columns("f(F) :- src_file[P](F, _).\n")["src_file"] == (0, 1)  # any perspective: read the same way


@pytest.mark.parametrize("planted", ["garbage", "empty", "directory", "link", "another_folder"])
def test_a_planted_answer_file_is_ignored_and_never_followed(scanned, tmp_path, planted):
    """Whoever can write the fact folder can plant `.rofl-audit.answer`: it is evaluated past, never believed,
    never written through; one copied from another scan (tagged by this user) does not match its inputs."""
    src, facts, rules = scanned
    expected = audit_both(facts, "--rules", rules)[1]
    memo = facts / NAME
    memo.unlink(missing_ok=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("not rofl's\n")
    if planted == "garbage":
        memo.write_bytes(b"rofl-audit-answer 1\n" + b"0" * 64 + b"\n\x00garbage")
    elif planted == "empty":
        memo.write_bytes(b"")
    elif planted == "directory":
        memo.mkdir()
    elif planted == "link":
        memo.symlink_to(outside)
    else:  # an answer this user's rofl kept for a scan without the cycle
        other_src, other_facts = tmp_path / "other", tmp_path / "other-facts"
        write_tree(other_src, {**TREE, "src/y.js": "export const y = 1;\n"})
        rescan(other_src, other_facts)
        run("audit", "--facts", other_facts, "--rules", rules)
        memo.write_bytes((other_facts / NAME).read_bytes())
    assert run("audit", "--facts", facts, "--rules", rules, "--json") == expected
    assert outside.read_text() == "not rofl's\n"
