"""`export`, `scan` and `report` as questions: a function from options and a source to an answer, printing
nothing, whose answer is what the command line prints (or writes) for the same options."""

from __future__ import annotations

import json

import click
import jsonschema
import pytest
from rofl.engine.base.errors import RoflError

from rofl.loading.source import Source
from rofl.questions.answer import answer_json, json_schema
from rofl.questions.export import ExportAnswer, ExportOptions, export
from rofl.questions.report import ReportAnswer, ReportOptions, report
from rofl.questions.scan import ScanAnswer, ScanOptions, scan


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    """A scanned tree with a cycle (a -> b -> a) and a file no one imports."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("questions")
    src = root / "src"
    src.mkdir()
    (src / "a.ts").write_text('import { b } from "./b";\nexport const a = () => b;\n')
    (src / "b.ts").write_text('import { a } from "./a";\nexport const b = a;\n')
    (src / "lone.ts").write_text("export const lone = 1;\n")
    facts = root / "facts"
    assert CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)]).exit_code == 0
    return src, facts


def params(command: click.Command, args: list[str]) -> dict:
    """The params dict click builds for ``args`` (as a server builds it from a JSON call)."""
    with command.make_context(command.name, list(args)) as ctx:
        return dict(ctx.params)


@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid", "graphml", "gexf"])
def test_export_answers_the_document_the_command_prints_and_prints_nothing(rofl, scanned, capsys, fmt):
    from rofl.commands.export import command

    _, facts = scanned
    args = ["dependency", "--facts", str(facts), "--format", fmt]
    answer = export(ExportOptions.from_params(params(command, args)), Source())
    assert capsys.readouterr() == ("", "")
    code, out, _ = rofl("export", *args)
    assert code == answer.status() == 0
    assert answer.document == out
    assert (answer.nodes, answer.edges, answer.partial) == (2, 2, False)
    data = answer_json(answer)
    jsonschema.validate(data, json_schema(ExportAnswer))
    assert data["document"] == out and data["format"] == fmt and data["version"] == ExportAnswer.VERSION


def test_export_options_refuse_what_the_command_refuses(scanned):
    from rofl.commands.export import command

    with pytest.raises(RoflError, match="give --facts DIR"):
        ExportOptions.from_params(params(command, ["dependency"]))
    with pytest.raises(RoflError, match="not a relation name"):
        ExportOptions.from_params(params(command, ["no such", "--facts", str(scanned[1])]))


def test_an_empty_relation_is_a_note_of_the_answer(tmp_path, capsys):
    program = tmp_path / "edge.rofl"
    program.write_text("edge(A, B) :- edge(B, A).\n")
    answer = export(ExportOptions("edge", files=(str(program),), fmt="dot"), Source())
    assert capsys.readouterr() == ("", "")
    assert answer.notes == ("warning: relation 'edge' has no facts; the graph is empty",)
    assert (answer.nodes, answer.edges, answer.status()) == (0, 0, 0)


def test_scan_answers_what_scan_json_prints_plus_its_version(rofl, scanned, tmp_path, capsys):
    from rofl.commands.scan import command

    src, _ = scanned
    out = tmp_path / "facts"
    answer = scan(ScanOptions.from_params(params(command, [str(src), "--out", str(out)])), Source())
    assert capsys.readouterr() == ("", "")
    assert (answer.files, answer.parsed, answer.manifest_written, answer.status()) == (3, 3, True, 0)
    code, printed, _ = rofl("scan", src, "--out", out, "--json")
    assert code == 0
    data = json.loads(printed)
    jsonschema.validate(data, json_schema(ScanAnswer))
    again = answer_json(scan(ScanOptions(str(src), str(out)), Source()))
    assert {**data, "seconds": 0} == {**again, "seconds": 0}
    assert data["version"] == ScanAnswer.VERSION and data["parsed"] == 0 and data["reused"] == 3


def test_scan_options_refuse_what_the_command_refuses():
    from rofl.commands.scan import command

    with pytest.raises(RoflError, match="missing SRC"):
        ScanOptions.from_params(params(command, []))
    with pytest.raises(RoflError, match="--jobs 0 is not positive"):
        ScanOptions.from_params(params(command, ["src", "--jobs", "0"]))
    with pytest.raises(RoflError, match="--jobs and --dask"):
        ScanOptions.from_params(params(command, ["src", "--jobs", "2", "--dask", "local:2"]))


def test_a_glob_matching_nothing_is_a_note_of_the_scan(scanned, tmp_path, capsys):
    src, _ = scanned
    answer = scan(ScanOptions(str(src), str(tmp_path / "facts"), exclude=("nothing/**",)), Source())
    assert capsys.readouterr() == ("", "")
    assert len(answer.notes) == 1 and "--exclude 'nothing/**' matches none" in answer.notes[0]


def test_report_answers_the_counts_of_the_page_the_command_writes(rofl, scanned, tmp_path, capsys):
    from rofl.commands.report import command

    _, facts = scanned
    page = tmp_path / "report.html"
    args = ["--facts", str(facts), "--out", str(page)]
    answer = report(ReportOptions.from_params(params(command, args)), Source())
    assert capsys.readouterr() == ("", "")
    assert not page.exists()  # the question writes nothing: the command renders and writes the page
    assert (answer.files, answer.imports, answer.cycles, answer.status()) == (3, 2, 1, 0)
    assert answer.kinds["cycle"] == 1 and answer.kinds["orphan"] == 1
    code, out, _ = rofl("report", *args)
    assert code == 0 and out.strip() == answer.written(str(page))
    from rofl.report_html import render

    assert page.read_text() == render(answer.model)
    data = answer_json(answer)
    jsonschema.validate(data, json_schema(ReportAnswer))
    assert "affected" not in data and "model" not in data


def test_report_options_refuse_what_the_command_refuses(tmp_path):
    from rofl.commands.report import command

    out = str(tmp_path / "r.html")
    with pytest.raises(RoflError, match="--facts DIR is required"):
        ReportOptions.from_params(params(command, ["--out", out]))
    with pytest.raises(RoflError, match="not both"):
        ReportOptions.from_params(params(command, ["--facts", "f", "--out", out, "--changed", "a", "--git-base", "m"]))
    with pytest.raises(RoflError, match="not a git revision"):
        ReportOptions.from_params(params(command, ["--facts", "f", "--out", out, "--git-base=-x"]))


def test_the_command_lines_progress_bar_hears_the_scan(scanned, tmp_path, monkeypatch):
    from click.testing import CliRunner
    from rofl.engine.base.events import Progress
    from rofl.scanner import progress

    from rofl.commands.scan import command

    heard: list = []

    class Bar:
        def __init__(self, label: str) -> None:
            self.label = label

        def __call__(self, event) -> None:
            if isinstance(event.payload, Progress):
                heard.append((event.payload.label, event.payload.done, event.payload.total))

        def close(self) -> None:
            heard.append("closed")

    monkeypatch.setattr(progress, "wanted", lambda: True)
    monkeypatch.setattr(progress, "BarListener", Bar)
    result = CliRunner().invoke(command, [str(scanned[0]), "--out", str(tmp_path / "facts"), "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert heard[-1] == "closed" and ("scanning", 3, 3) in heard
