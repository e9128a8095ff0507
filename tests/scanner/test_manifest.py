"""The manifest and fact file contract the loader relies on, and loading a scan through `rofl ask`."""

from __future__ import annotations

import json
import os

import pytest
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.manifest import ManifestError
from rofl.scanner.manifest import read as manifest_read

from tests.scanner.conftest import load_manifest, scan_json

FILE_KEYS = {"hash", "facts", "digest", "size", "mtime_ns", "extractor", "resolution_deps"}


def test_a_probe_shared_by_many_files_is_written_once(repo, out):
    """Each probed path is spelled once on disk (the probe table); every file still reads it back."""
    files = {f"m{i}.ts": 'import "./shared";\nimport "react";\n' for i in range(30)}
    src = repo({**files, "shared.ts": "export const s = 1;\n"})
    scan_json(src, out)
    raw = (out / "manifest.json").read_bytes()
    assert raw.startswith(b'{"format":3,')
    assert raw.count(b'"shared.ts"') == 2  # the probe table, and the file's own entry key
    assert raw.count(b'"package:react"') == 1
    manifest = manifest_read(str(out))
    for name in files:
        deps = manifest.files[name].resolution_deps
        assert "shared.ts" in deps and "package:react" in deps


@pytest.mark.parametrize("written", ["past", "list", "word"])
def test_probe_indexes_that_do_not_fit_the_table_are_rebuilt(repo, out, written):
    """A manifest whose probe indexes point outside its table (or are not the string of them) is not
    trusted: the next scan rebuilds it, and a command reading that file's probes says so in one line."""
    src = repo({"a.ts": 'import "./b";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    data = load_manifest(out)
    past = len(data["probes"]) + 5
    data["files"]["a.ts"]["resolution_deps"] = {"past": f"0,{past}", "list": [0], "word": "0,x"}[written]
    (out / "manifest.json").write_text(json.dumps(data))
    if written == "list":
        with pytest.raises(ManifestError, match="not a rofl scan manifest"):
            manifest_read(str(out))
    else:
        read = manifest_read(str(out))  # the listing reads; the probes are looked up when read
        assert read.files["b.ts"].resolution_deps == load_manifest_paths(data, "b.ts")
        with pytest.raises(ManifestError, match=r"manifest.json: the probes of 'a.ts' do not fit its table; run"):
            list(read.files["a.ts"].resolution_deps)
    assert scan_json(src, out)["parsed"] == 2  # rebuilt: nothing of it was reused


def test_a_manifest_of_the_previous_format_is_rewritten_by_a_rescan_that_finds_nothing_changed(repo, out, rofl):
    """A rofl upgrade that changes the manifest's format: the next rescan finds no source changed, yet it
    reads the old manifest (its state names another format) and writes the new one, so questions read it."""
    src = repo({"a.ts": 'import "./b";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    data = load_manifest(out)
    data["format"] = 2  # as format 2 wrote it: each file's probe indexes a list
    for entry in data["files"].values():
        text = entry["resolution_deps"]
        entry["resolution_deps"] = [int(i) for i in text.split(",")] if text else []
    (out / "manifest.json").write_text(json.dumps(data))
    saved = json.loads((out / ".scan-state.json").read_text())
    del saved["key"]["manifest_format"]  # the state format 2's scanner wrote, for that manifest
    stat = (out / "manifest.json").stat()
    saved["manifest"] = [stat.st_size, stat.st_mtime_ns]
    (out / ".scan-state.json").write_text(json.dumps(saved))
    with pytest.raises(ManifestError, match="not a rofl scan manifest"):
        manifest_read(str(out))
    scan_json(src, out)
    assert load_manifest(out)["format"] == 3
    assert "b.ts" in manifest_read(str(out)).files["a.ts"].resolution_deps
    code, _, err = rofl("cycles", "--facts", out)
    assert code == 0, err


def load_manifest_paths(data: dict, name: str) -> tuple[str, ...]:
    """The probe paths a manifest as written (``load_manifest``) lists for ``name``."""
    text = data["files"][name]["resolution_deps"]
    return tuple(data["probes"][int(i)] for i in text.split(",")) if text else ()


def test_manifest_keys_and_entries(repo, out):
    src = repo({"a.ts": 'import "./b";\nimport "react";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    manifest = load_manifest(out)
    assert manifest["format"] == 3
    for key in ("tool_version", "extractor_version", "grammar_versions", "options", "counts"):
        assert manifest[key], key
    assert set(manifest["grammar_versions"]) == {"tree-sitter", "tree-sitter-javascript", "tree-sitter-typescript"}
    assert manifest["src"] == str(src) and os.path.isabs(manifest["src"])
    assert manifest["options"] == {"max_bytes": 2 * 1024 * 1024, "include": [], "exclude": []}
    preamble = out / manifest["preamble"]["facts"]
    assert preamble.read_text() == "authority(code, scanner).\n"
    assert manifest["preamble"]["digest"] == hash_bytes(preamble.read_bytes())
    assert set(manifest["files"]) == {"a.ts", "b.ts"}
    for path, entry in manifest["files"].items():
        assert FILE_KEYS <= set(entry)
        data = (src / path).read_bytes()
        assert entry["hash"] == hash_bytes(data) and entry["size"] == len(data)
        assert entry["mtime_ns"] == (src / path).stat().st_mtime_ns
        facts = (out / entry["facts"]).read_bytes()
        assert entry["digest"] == hash_bytes(facts)
        assert entry["hash"][:12] in entry["facts"]  # named from path and content hash
        assert facts.decode().splitlines()[1] == f'src_file[code]("{path}", "{entry["hash"][:12]}").'
    deps = manifest_read(str(out)).files["a.ts"].resolution_deps  # the paths, from the probe table
    assert "b.ts" in deps and "package:react" in deps and "b.tsx" not in deps  # stops at the hit
    assert manifest["counts"]["files"] == 2 and manifest["counts"]["external"] == 1


def test_manifest_is_written_after_fact_files_and_only_when_something_changed(repo, out):
    src = repo({"a.ts": "export {};\n"})
    scan_json(src, out)
    manifest = out / "manifest.json"
    before = manifest.stat().st_mtime_ns
    assert scan_json(src, out)["manifest_written"] is False
    assert manifest.stat().st_mtime_ns == before
    assert not [n for n in os.listdir(out) if n.endswith(".tmp")]
    json.loads(manifest.read_text())


def test_scan_loads_with_scanner_authority(repo, out):
    src = repo({"a.ts": 'import { b } from "./b";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    from click.testing import CliRunner

    from rofl.cli import main

    result = CliRunner().invoke(main, ["ask", 'src_resolves[code]("a.ts", S, T)', "--facts", str(out)])
    assert result.exit_code == 0, result.output
    assert 'S = "./b", T = "b.ts"' in result.stdout
    audit = CliRunner().invoke(main, ["ask", "forged[audit](F)", "--facts", str(out)])
    assert audit.exit_code == 1 and audit.stdout.strip() == "no", audit.output  # exit 1: no answer


def test_the_manifest_records_the_version_of_the_tool_that_scanned(repo, out, tmp_path):
    """The scanner takes the tool version from its caller (it imports nothing of the command line)."""
    from rofl.scanner.api import scan

    from rofl import __version__

    src = repo({"a.ts": "export {};\n"})
    scan_json(src, out)
    assert load_manifest(out)["tool_version"] == __version__
    other = tmp_path / "other"
    scan(str(src), str(other), tool_version="embedder-7.1")
    assert load_manifest(other)["tool_version"] == "embedder-7.1"


def _set(*keys: str, value: object):
    def edit(data: dict) -> None:
        for key in keys[:-1]:
            data = data[key]
        data[keys[-1]] = value

    return edit


# each field a reader uses, given a type the scanner never writes -> what the one error line names
WRONG_TYPES = [
    (_set("src", value=5), "'src' is not a path"),
    (_set("options", value="x"), "'options' is malformed"),
    (_set("options", "max_bytes", value="1"), "'options' is malformed"),
    (_set("options", "include", value=[1]), "'options' is malformed"),
    (_set("files", value=[]), "not a rofl scan manifest"),
    (_set("files", "a.ts", "facts", value=1), "the entry of 'a.ts' in 'files' is malformed"),
    (_set("files", "a.ts", "hash", value=None), "the entry of 'a.ts' in 'files' is malformed"),
    (_set("files", "a.ts", "digest", value=1), "the entry of 'a.ts' in 'files' is malformed"),
    (_set("files", "a.ts", "size", value="3"), "the entry of 'a.ts' in 'files' is malformed"),
    (_set("files", "a.ts", "mtime_ns", value=True), "the entry of 'a.ts' in 'files' is malformed"),
    (_set("packages", value=[]), "'packages' is malformed"),
    (_set("configs", value={"tsconfig.json": [1, 2]}), "'configs' is malformed"),
    (_set("packages", value={"p": 1}), "'packages' is malformed"),
    (_set("workspace", value=[1]), "'workspace' is malformed"),
    (_set("unreadable", value="a.ts"), "'unreadable' is malformed"),
    (_set("preamble", value={"facts": 1}), "a fact-file record"),
    (_set("package_entries", value="x"), "a fact-file record"),
    (_set("extractor_version", value=8), "a version field is malformed"),
    (_set("grammar_versions", value={"tree-sitter": 25}), "a version field is malformed"),
]


def test_a_manifest_with_a_field_of_the_wrong_type_is_one_error_line_naming_it(repo, out):
    """Every type check of a read manifest is in ``read``: a wrong type anywhere is a ``ManifestError``,
    one line naming the file, the field and the fix, never a reader's crash or a silently empty answer."""
    src = repo({"a.ts": 'import "./b";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    good = (out / "manifest.json").read_text()
    assert manifest_read(str(out)).files["a.ts"].facts.startswith("code/")
    for edit, named in WRONG_TYPES:
        data = json.loads(good)
        edit(data)
        (out / "manifest.json").write_text(json.dumps(data))
        with pytest.raises(ManifestError) as caught:
            manifest_read(str(out))
        line = str(caught.value)
        assert "\n" not in line and named in line, (named, line)
        assert line.startswith(str(out / "manifest.json")) and "rofl scan" in line, line


def test_a_read_manifest_is_frozen(repo, out):
    """Readers share the one ``Manifest`` a command read: none of them can change it for the next."""
    src = repo({"a.ts": 'import "./b";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    manifest = manifest_read(str(out))
    with pytest.raises(AttributeError):
        manifest.src = "elsewhere"  # type: ignore[misc]
    with pytest.raises(TypeError):
        manifest.files["c.ts"] = manifest.files["a.ts"]  # type: ignore[index]
    deps = manifest.files["a.ts"].resolution_deps
    assert "b.ts" in deps and not hasattr(deps, "append") and not hasattr(deps, "__setitem__")


@pytest.mark.parametrize(
    "command",
    [("impact", "--no-rescan", "--changed", "a.ts"), ("cycles",), ("ask", "src_file[code](X, _)")],
    ids=lambda c: c[0],
)
def test_every_command_reports_a_malformed_manifest_in_the_same_line(rofl, repo, out, command):
    """(``rofl.loading.graph_index`` and ``rofl.loading.audit_store`` parse the bytes themselves, for the fields they read.)"""
    from tests.cli.user_errors import assert_user_error

    src = repo({"a.ts": 'import "./b";\n', "b.ts": "export const b = 1;\n"})
    scan_json(src, out)
    data = load_manifest(out)
    data["packages"] = {"p": 1}
    (out / "manifest.json").write_text(json.dumps(data))
    line = assert_user_error(rofl(*command, "--facts", out), f"{out / 'manifest.json'}: 'packages' is malformed")
    assert line.endswith("again to rewrite it")
