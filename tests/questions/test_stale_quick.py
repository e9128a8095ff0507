"""A question over a scan whose sources are as the scan left them says nothing is stale without reading the
manifest (scanner.api.sources_unchanged: the scan's saved state, as a no-change rescan reads it); any change
(a source edited, added or deleted, a package.json edited) is still found and named through the manifest."""

from __future__ import annotations

from unittest import mock

import pytest

from tests.conftest import write_tree

TREE = {
    "package.json": '{"name": "app"}',
    "src/a.ts": "import { b } from './b';\nexport const a = b;\n",
    "src/b.ts": "export const b = 1;\n",
}


def run(*args):
    from click.testing import CliRunner

    from rofl.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def scan(tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert run("scan", src, "--out", facts)[0] == 0
    return src, facts


def test_an_unchanged_scan_is_current_without_reading_its_manifest(scan):
    src, facts = scan
    from rofl.scanner import manifest

    for args in (("ask", "dependency[code](A, B)"), ("cycles",), ("summary",)):
        run(*args, "--facts", facts)  # the compiled cache is written, every module imported
        # (wraps: a module first imported under the patch keeps a working ``from_bytes``)
        with mock.patch.object(manifest, "from_bytes", wraps=manifest.from_bytes) as read:
            code, _, err = run(*args, "--facts", facts)
        assert code in (0, 1) and "stale" not in err and not read.called, (args, err)


@pytest.mark.parametrize(
    "change, named",
    [
        (lambda src: (src / "src/b.ts").write_text("export const b = 2 + 2;\n"), "src/b.ts"),
        (lambda src: (src / "src/c.ts").write_text("export const c = 3;\n"), "src/c.ts"),
        (lambda src: (src / "src/b.ts").unlink(), "src/b.ts"),
        (lambda src: (src / "package.json").write_text('{"name": "app", "dependencies": {"b": "1"}}'), "package.json"),
    ],
    ids=["edited", "added", "deleted", "config"],
)
def test_any_change_is_still_named(scan, change, named):
    src, facts = scan
    change(src)
    code, _, err = run("ask", "dependency[code](A, B)", "--facts", facts)
    assert "stale" in err and named in err


@pytest.mark.parametrize("planted", ["garbage", "other_src", "link"])
def test_a_planted_scan_state_never_hides_a_change(scan, tmp_path, planted):
    """The saved state is the fact folder's (untrusted): garbage, one naming another source folder, or a link
    planted in its place makes the check fall back to the manifest, which names what changed."""
    import json

    from rofl.scanner.state import STATE_NAME

    src, facts = scan
    path = facts / STATE_NAME
    if planted == "garbage":
        path.write_text("{not json")
    elif planted == "other_src":
        data = json.loads(path.read_text())
        data["key"]["src"] = str(tmp_path / "nowhere")
        path.write_text(json.dumps(data))
    else:
        outside = tmp_path / "state.json"
        outside.write_text(path.read_text())
        path.unlink()
        path.symlink_to(outside)
    (src / "src/b.ts").write_text("export const b = 2 + 2;\n")
    code, _, err = run("ask", "dependency[code](A, B)", "--facts", facts)
    assert "stale" in err and "src/b.ts" in err
