"""Export formats have one home (rofl.questions.graph_documents.WRITERS): the command, its help, its errors and docs/commands.md follow it,
and every format carries every node and edge of the relation."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from rofl.questions.graph_documents import FORMATS, WRITERS
from tests.conftest import EXAMPLES, ROOT

TC = EXAMPLES / "tc.rofl"
EDGES = {("a", "b"), ("b", "c"), ("c", "d"), ("x", "y")}  # edge/2 in examples/tc.rofl


def _edges(fmt: str, text: str) -> set[tuple[str, str]]:
    """The edges a reader of ``fmt`` finds in ``text`` (an independent reading, not rofl's writer)."""
    if fmt == "json":
        data = json.loads(text)
        return {(link["source"], link["target"]) for link in data["links"]}
    if fmt in ("graphml", "gexf"):
        root = ET.fromstring(text)
        return {(e.get("source"), e.get("target")) for e in root.iter() if e.tag.endswith("}edge")}
    if fmt == "dot":
        return set(re.findall(r'^\s*"([^"]*)" -> "([^"]*)"', text, re.M))
    if fmt == "mermaid":
        ids = dict(re.findall(r'^\s*(n\d+)\["([^"]*)"\]', text, re.M))
        return {(ids[a], ids[b]) for a, b in re.findall(r"^\s*(n\d+) --> (n\d+)", text, re.M)}
    raise AssertionError(
        f"no reader for {fmt}: add one here when a format is added to rofl.questions.graph_documents.WRITERS"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_carries_every_edge(rofl, fmt):
    code, out, err = rofl("export", "edge", TC, "--format", fmt)
    assert code == 0, err
    assert _edges(fmt, out) == EDGES


def test_the_command_offers_exactly_the_writers(rofl):
    code, out, _ = rofl("export", "--help")
    assert code == 0
    listed = re.search(r"\[([a-z|]+)\]", out.replace("\n", " ")).group(1).split("|")
    assert tuple(listed) == tuple(WRITERS)
    code, _, err = rofl("export", "edge", TC, "--format", "xml")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert all(f"'{fmt}'" in err for fmt in FORMATS), err


def test_the_command_docs_name_exactly_the_formats():
    synopsis = next(
        line
        for line in (ROOT / "docs" / "commands.md").read_text().splitlines()
        if line.startswith("rofl export ") and "--format" in line
    )
    listed = re.search(r"--format ([a-z|]+)", synopsis).group(1).split("|")
    assert tuple(listed) == FORMATS


def test_export_to_a_file_replaces_it_whole_or_leaves_it(rofl, tmp_path, monkeypatch):
    target = tmp_path / "deps.dot"
    target.write_text("the previous export\n")
    assert rofl("export", "edge", TC, "--format", "dot", "-o", target)[0] == 0
    assert _edges("dot", target.read_text()) == EDGES

    def full_disk(fd: int, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rofl.engine.base.safe_write._write_all", full_disk)
    before = target.read_bytes()
    code, out, err = rofl("export", "edge", TC, "--format", "json", "-o", target)
    assert (code, out) == (2, "") and "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert target.read_bytes() == before  # the earlier export is whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deps.dot"]  # no temporary left


def test_export_replaces_a_symlink_never_its_target(rofl, tmp_path):
    """A link at the output name (a repository can commit one) is replaced; its target keeps its bytes."""
    (tmp_path / "real.dot").write_text("not rofl's\n")
    (tmp_path / "link.dot").symlink_to("real.dot")
    assert rofl("export", "edge", TC, "--format", "dot", "-o", tmp_path / "link.dot")[0] == 0
    assert not (tmp_path / "link.dot").is_symlink() and _edges("dot", (tmp_path / "link.dot").read_text()) == EDGES
    assert (tmp_path / "real.dot").read_text() == "not rofl's\n"


def test_export_to_a_pipe_writes_into_it(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "rofl.cli", "export", "edge", str(TC), "--format", "mermaid", "-o", "/dev/stdout"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert _edges("mermaid", proc.stdout) == EDGES


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_budget_cut_short_is_a_partial_export(rofl, fmt, tmp_path):
    """The graph written is marked partial and the exit status is 3, as for every answering command."""
    code, out, err = rofl("export", "path", TC, "--format", fmt, "--budget", "2")
    assert code == 3 and "partial" in err and len(err.strip().splitlines()) == 1
    assert _edges(fmt, out) < {("a", "b"), ("b", "c"), ("c", "d"), ("x", "y"), ("a", "c"), ("a", "d"), ("b", "d")}
    if fmt == "json":
        assert json.loads(out)["graph"]["partial"] is True
    code, out, err = rofl("export", "path", TC, "--format", fmt)
    assert code == 0 and "partial" not in out and len(_edges(fmt, out)) == 7


def test_export_of_stale_facts_says_so(rofl, tmp_path):
    """Export answers from the facts as they are (as cycles and report do): one warning line when the
    sources changed since the scan, none when they did not."""
    from tests.conftest import write_tree

    src = tmp_path / "src"
    write_tree(src, {"a.ts": 'import { b } from "./b";\nexport const a = b;\n', "b.ts": "export const b = 1;\n"})
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    code, out, err = rofl("export", "dependency", "--facts", facts)
    assert code == 0 and err == "" and _edges("json", out) == {("a.ts", "b.ts")}
    (src / "c.ts").write_text('import { a } from "./a";\n')
    code, out, err = rofl("export", "dependency", "--facts", facts)
    assert code == 0 and _edges("json", out) == {("a.ts", "b.ts")}
    assert err.count("\n") == 1 and "stale" in err and "c.ts: added since the scan" in err
