"""`rofl export` user errors, and XML/JSON output that survives control characters and non-UTF-8 file names.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import os

import pytest

from tests.cli.user_errors import (
    assert_user_error,
    cli,
    write,
)


def test_export_user_errors(rofl, tiny, tmp_path):
    facts = tiny[1]
    assert_user_error(rofl("export", "src_import_kind", "--facts", facts), "binary relation")
    assert_user_error(rofl("export", "dependency"), "give --facts DIR")
    assert_user_error(rofl("export", "dependency", "--facts", facts, "-o", tmp_path / "no" / "g.json"), "cannot write")
    for name in ("", "Dependency", "$x", "dependency(X, Y)", "dependency[code", "1dep"):
        assert_user_error(rofl("export", name, "--facts", facts), "relation")
    mixed = write(tmp_path / "mixed.rofl", "e(a, b).\ne(a).\n")
    assert_user_error(rofl("export", "e", mixed), "binary relation")


@pytest.mark.parametrize("name", ["dependency[", "dependency[]", "dependency[a][b]", "dependency[Code]"])
def test_export_malformed_perspective(rofl, tiny, name):
    assert_user_error(rofl("export", name, "--facts", tiny[1]), "relation")


def test_export_undefined_relation(rofl, tiny):
    assert_user_error(rofl("export", "dependncy", "--facts", tiny[1]), "dependncy")


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_export_xml_with_control_characters_reads_back(rofl, tmp_path, fmt):
    import networkx as nx

    prog = write(tmp_path / "e.rofl", 'e("\\u{7}", "a").\ne("\\u{0}", "b").\n')
    out = tmp_path / f"g.{fmt}"
    assert rofl("export", "e", prog, "--format", fmt, "-o", out)[0] == 0
    graph = getattr(nx, f"read_{fmt}")(out)
    assert graph.number_of_edges() == 2


@pytest.fixture
def surrogate_scan(rofl, tmp_path):
    """A scan of a tree holding a file whose name is not UTF-8 (Linux: any bytes but / and NUL)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "b.ts").write_text("export const x = 2;\n")
    try:
        with open(os.path.join(os.fsencode(src), b"bad\xff.ts"), "w") as fh:
            fh.write('import { x } from "./b";\nexport const y = x;\n')
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 file names")
    assert rofl("scan", src, "--out", tmp_path / "facts")[0] == 0
    return src, tmp_path / "facts"


@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid"])
def test_export_to_file_with_non_utf8_file_name(rofl, surrogate_scan, tmp_path, fmt):
    code, out, err = rofl(
        "export", "dependency", "--facts", surrogate_scan[1], "--format", fmt, "-o", tmp_path / "g.out"
    )
    assert (code, out) == (0, "") and err == f"wrote {tmp_path / 'g.out'}: 2 nodes, 1 edges\n"
    written = (tmp_path / "g.out").read_bytes()
    assert b"bad\xff.ts" in written  # the file name's own bytes, as the file system gave them


@pytest.mark.parametrize(
    "args, shown",
    [
        # impact's text names the file in ROFL's escape; export hands the file name's own bytes on
        pytest.param(("impact", "--changed", "b.ts"), "bad\\u{dcff}.ts -> b.ts", id="impact"),
        pytest.param(("export", "dependency"), '"source": "bad\udcff.ts"', id="export"),
    ],
)
def test_strict_stdout_with_non_utf8_file_name(surrogate_scan, args, shown):
    proc = cli(*args, "--facts", surrogate_scan[1], env={"PYTHONIOENCODING": "utf-8:strict"})
    assert (proc.returncode, proc.stderr) == (0, "")
    assert shown in proc.stdout
