"""The impact question is a function of its options and its source: it answers what `rofl impact --json`
prints, prints nothing itself, loads only through the source it is given, and the report's impact is the
same answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rofl.engine.base.errors import RoflError

from rofl.loading.source import Source
from rofl.questions.answer import answer_json
from rofl.questions.impact import ImpactOptions, impact
from tests.cli.impact_fixtures import run, scan_tree

TREE = {
    "a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
    "b.ts": 'import { c } from "./c";\nexport const b = c;\n',
    "c.ts": "export const c = 1;\n",
    "a.test.ts": 'import { a } from "./a";\na();\n',
    "lone.ts": "export const lone = 1;\n",
}


def _params(folder: Path, **given: object) -> dict:
    """click's params of `rofl impact` as the command line gives them (defaults for the rest)."""
    params = {
        "facts": str(folder),
        "changed": (),
        "git_base": None,
        "runtime": False,
        "fmt": None,
        "as_json": True,
        "tests_only": False,
        "test_globs": (),
        "by_package": False,
        "no_rescan": False,
        "symbols": False,
        "rules": (),
        "budget": None,
        "public_key": None,
    }
    return params | given


class Watched(Source):
    """A server's kind of source: it says a watcher saw the sources unchanged, and records what it was asked."""

    __slots__ = ("asked",)

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def serves(self, facts: Path) -> bool:
        self.asked.append("serves")
        return True

    def kept(self, facts, name, build):
        self.asked.append(f"kept {name}")
        return build()

    def manifest(self, facts: Path) -> dict:
        self.asked.append("manifest")
        return super().manifest(facts)

    def sources_unchanged(self, facts: Path) -> bool:
        self.asked.append("sources_unchanged")
        return True


@pytest.mark.parametrize(
    "given",
    [
        {"changed": ("c.ts",)},
        {"changed": ("c.ts",), "no_rescan": True, "tests_only": True},
        {"changed": ("b.ts", "lone.ts"), "by_package": True, "runtime": True},
        {"changed": ("c.ts",), "budget": 50_000_000},  # the kernel answers
    ],
)
def test_the_question_answers_what_the_command_prints_and_prints_nothing(tmp_path, capfd, given):
    _, facts = scan_tree(tmp_path, TREE)
    argv = ["impact", "--facts", facts, "--json", *[a for c in given["changed"] for a in ("--changed", c)]]
    flags = {"no_rescan": "--no-rescan", "tests_only": "--tests", "by_package": "--packages", "runtime": "--runtime"}
    argv += [flag for key, flag in flags.items() if given.get(key)]
    if "budget" in given:
        argv += ["--budget", str(given["budget"])]
    code, out, _ = run(*argv)
    capfd.readouterr()
    answer = impact(ImpactOptions.from_params(_params(facts, **given)), Source())
    assert capfd.readouterr() == ("", "")
    assert answer.status() == code == 0
    assert answer_json(answer) == json.loads(out)


def test_the_source_says_whether_the_sources_changed_not_a_context_variable(tmp_path):
    """A source whose watcher saw no change answers from the facts as they are (no rescan, as a serving
    session does); the command line's source rescans and sees the new import."""
    src, facts = scan_tree(tmp_path, TREE)
    (src / "lone.ts").write_text('import { c } from "./c";\nexport const lone = c;\n')
    options = ImpactOptions.from_params(_params(facts, changed=("c.ts",)))
    watched = Watched()
    kept = impact(options, watched)
    assert "lone.ts" not in kept.files and not any("rescanned" in n for n in kept.notes)
    assert {"serves", "kept graph-index", "manifest", "sources_unchanged"} <= set(watched.asked)
    fresh = impact(options, Source())
    assert "lone.ts" in fresh.files and any(n.startswith("rofl impact: rescanned") for n in fresh.notes)


def test_no_rescan_says_in_a_note_whether_the_facts_are_stale(tmp_path):
    src, facts = scan_tree(tmp_path, TREE)
    options = ImpactOptions.from_params(_params(facts, changed=("c.ts",), no_rescan=True))
    current = impact(options, Source())
    assert current.stale == () and current.notes == ("rofl impact: the facts are up to date with the sources",)
    (src / "c.ts").write_text("export const c = 2;\n")
    stale = impact(options, Source())
    assert stale.stale == ("c.ts: changed since the scan",)
    assert stale.notes[0].startswith("warning: the facts are stale (1 path(s): c.ts: changed since the scan)")


@pytest.mark.parametrize(
    "given, says",
    [
        ({"facts": None, "changed": ("a.ts",)}, "--facts DIR is required"),
        ({}, "give either --changed"),
        ({"changed": ("a.ts",), "git_base": "HEAD"}, "give either --changed"),
        ({"git_base": "--output=x"}, "not a git revision"),
        ({"changed": ("a.ts",), "fmt": "names"}, "--json and --format names disagree"),
        ({"changed": ("a.ts",), "test_globs": ("*.spec.ts",)}, "--test-glob needs --tests"),
    ],
)
def test_options_refuse_what_the_command_refuses_in_one_line(tmp_path, given, says):
    with pytest.raises(RoflError, match=says) as refused:
        ImpactOptions.from_params(_params(tmp_path, **given))
    assert "\n" not in str(refused.value)
    argv = ["impact", "--json"] + (["--facts", str(tmp_path)] if given.get("facts", 1) else [])
    argv += [a for c in given.get("changed", ()) for a in ("--changed", c)]
    argv += ["--git-base", given["git_base"]] if given.get("git_base") else []
    argv += ["--format", given["fmt"]] if given.get("fmt") else []
    argv += [a for g in given.get("test_globs", ()) for a in ("--test-glob", g)]
    code, _, err = run(*argv)
    assert code == 2 and err.strip() == str(refused.value)


def test_the_report_marks_the_affected_files_the_question_answers(tmp_path):
    """One pipeline: the report's impact is the question's answer over the report's kernel."""
    from rofl.loading.kernel import KernelInputs, build_kernel
    from rofl.questions.report_data import impact_view

    _, facts = scan_tree(tmp_path, TREE)
    view = impact_view(build_kernel(KernelInputs((), (), None, facts=str(facts))), str(facts), ("c.ts",), None, False)
    answer = impact(ImpactOptions.from_params(_params(facts, changed=("c.ts",), no_rescan=True)), Source())
    assert view.affected == {a.file: a.via for a in answer.affected}
    assert set(view.affected) == {"a.ts", "b.ts", "a.test.ts"}
    with pytest.raises(RoflError, match=r"^rofl report: 'nowhere.ts'"):
        impact_view(
            build_kernel(KernelInputs((), (), None, facts=str(facts))), str(facts), ("nowhere.ts",), None, False
        )
