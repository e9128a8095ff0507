"""Incremental scans, counted through --json: what is parsed, reused, re-resolved and removed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.scanner.conftest import load_manifest, read_facts, rel, scan_json

BASE = {
    "src/a.ts": 'import { b } from "./b";\nexport const a = b + 1;\n',
    "src/b.ts": 'import { c } from "./c.js";\nexport const b = c;\n',
    "src/c.ts": "export const c = 1;\n",
    "src/d.ts": 'import "./missing";\nexport {};\n',
    "src/e.ts": "export function e() {}\n",
}


def fact_files(out: Path) -> set[str]:
    return {"code/" + n for n in os.listdir(out / "code")}


def resolves(out: Path) -> set[tuple]:
    return rel(read_facts(out), "src_resolves")


def test_nothing_changed_parses_nothing_and_writes_nothing(repo, out):
    src = repo(BASE)
    first = scan_json(src, out)
    assert (first["files"], first["parsed"], first["reused"], first["removed"]) == (5, 5, 0, 0)
    before = {p: (out / p).stat().st_mtime_ns for p in fact_files(out)}
    manifest_mtime = (out / "manifest.json").stat().st_mtime_ns
    second = scan_json(src, out)
    assert (second["files"], second["parsed"], second["reused"], second["removed"]) == (5, 0, 5, 0)
    assert second["resolved"] == 0 and second["manifest_written"] is False
    assert {p: (out / p).stat().st_mtime_ns for p in fact_files(out)} == before
    assert (out / "manifest.json").stat().st_mtime_ns == manifest_mtime


def test_one_changed_file_is_parsed_once_and_its_old_facts_go(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    old = load_manifest(out)["files"]["src/e.ts"]["facts"]
    (src / "src/e.ts").write_text("export function e2() {}\n")
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["reused"], summary["removed"], summary["resolved"]) == (1, 4, 0, 0)
    new = load_manifest(out)["files"]["src/e.ts"]["facts"]
    assert new != old and not (out / old).exists() and (out / new).exists()
    assert ("src/e.ts", "e2", 1) in rel(read_facts(out), "src_func")
    assert ("src/e.ts", "e", 1) not in rel(read_facts(out), "src_func")


def test_touched_but_identical_file_is_rehashed_not_parsed(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    os.utime(src / "src/c.ts", ns=(1, 1))
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["reused"]) == (0, 5)
    assert load_manifest(out)["files"]["src/c.ts"]["mtime_ns"] == 1


def test_added_file_is_parsed_once_and_importers_re_resolve_without_parsing(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    assert ("src/d.ts", "./missing") in rel(read_facts(out), "src_unresolved")
    (src / "src/missing.ts").write_text("export {};\n")
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"], summary["reused"]) == (1, 1, 5)
    assert ("src/d.ts", "./missing", "src/missing.ts") in resolves(out)
    assert ("src/d.ts", "./missing") not in rel(read_facts(out), "src_unresolved")


def test_deleted_file_removes_its_facts_and_re_resolves_importers(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    facts_of_c = load_manifest(out)["files"]["src/c.ts"]["facts"]
    (src / "src/c.ts").unlink()
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["removed"], summary["resolved"], summary["files"]) == (0, 1, 1, 4)
    assert not (out / facts_of_c).exists()
    assert "src/c.ts" not in load_manifest(out)["files"]
    assert ("src/b.ts", "./c.js") in rel(read_facts(out), "src_unresolved")
    assert not any(f[0] == "src/c.ts" for f in rel(read_facts(out), "src_file"))


def test_file_appearing_earlier_in_probe_order_changes_the_answer(repo, out):
    src = repo({"a.ts": 'import "./m";\n', "m.js": ""})
    scan_json(src, out)
    assert resolves(out) == {("a.ts", "./m", "m.js")}
    (src / "m.ts").write_text("")
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"]) == (1, 1)
    assert resolves(out) == {("a.ts", "./m", "m.ts")}


def test_unrelated_new_file_re_resolves_nobody(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    (src / "src/zzz.ts").write_text("export {};\n")
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"], summary["reused"]) == (1, 0, 5)


def test_tsconfig_edit_re_resolves_without_parsing(repo, out):
    src = repo(
        {
            "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["lib/*"]}}}',
            "lib/x.ts": "",
            "alt/x.ts": "",
            "main.ts": 'import "@/x";\n',
            "rel.ts": 'import "./lib/x";\n',
        }
    )
    scan_json(src, out)
    assert ("main.ts", "@/x", "lib/x.ts") in resolves(out)
    (src / "tsconfig.json").write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["alt/*"]}}}')
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"]) == (0, 1)  # rel.ts never consulted the tsconfig
    assert ("main.ts", "@/x", "alt/x.ts") in resolves(out)


def test_new_tsconfig_in_a_folder_re_resolves_its_bare_importers(repo, out):
    src = repo({"web/main.ts": 'import "~/x";\n', "web/x.ts": ""})
    scan_json(src, out)
    assert ("web/main.ts", "~/x", "~") in rel(read_facts(out), "src_external")
    (src / "web/tsconfig.json").write_text('{"compilerOptions": {"paths": {"~/*": ["./*"]}}}')
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"]) == (0, 1)
    assert ("web/main.ts", "~/x", "web/x.ts") in resolves(out)


def test_workspace_package_appearing_re_resolves_its_importers(repo, out):
    # a workspace member (libs/*): a package folder no member and no dependency names is never a target
    src = repo(
        {
            "package.json": json.dumps({"private": True, "workspaces": ["libs/*"]}),
            "app/main.ts": 'import "shared-lib";\nimport "react";\n',
            "libs/shared/index.ts": "",
        }
    )
    scan_json(src, out)
    assert ("app/main.ts", "shared-lib", "shared-lib") in rel(read_facts(out), "src_external")
    (src / "libs/shared/package.json").write_text(json.dumps({"name": "shared-lib"}))
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"]) == (0, 1)
    assert ("app/main.ts", "shared-lib", "libs/shared/index.ts") in resolves(out)
    (src / "libs/shared/package.json").write_text(json.dumps({"name": "renamed-lib"}))
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["resolved"]) == (0, 1)
    assert ("app/main.ts", "shared-lib", "shared-lib") in rel(read_facts(out), "src_external")


def test_rename_is_delete_plus_add(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    (src / "src/e.ts").rename(src / "src/e2.ts")
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["removed"], summary["files"]) == (1, 1, 5)
    assert "src/e.ts" not in load_manifest(out)["files"]


def test_verify_rehashes_what_the_stat_check_would_trust(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    path = src / "src/e.ts"
    st = path.stat()
    path.write_text("export function f() {}\n")  # same size, then the old mtime back
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert scan_json(src, out)["parsed"] == 0  # the fast path trusts size + mtime
    summary = scan_json(src, out, "--verify")
    assert (summary["parsed"], summary["reused"]) == (1, 4)
    assert ("src/e.ts", "f", 1) in rel(read_facts(out), "src_func")


def test_verify_repairs_an_edited_fact_file(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    facts = out / load_manifest(out)["files"]["src/e.ts"]["facts"]
    facts.write_text(facts.read_text() + 'src_func[code]("src/e.ts", "forged", 1).\n')
    summary = scan_json(src, out, "--verify")
    assert summary["parsed"] == 1
    assert not any(f[1] == "forged" for f in rel(read_facts(out), "src_func"))


def test_verify_repairs_an_edited_fact_file_whose_manifest_digest_was_recomputed(repo, out):
    """The manifest's digest is public and unkeyed: an attacker who edits a fact file can recompute it.
    The name the scanner gave the file still carries the digest of what it wrote, so --verify
    re-extracts the file and the injected fact is gone."""
    from rofl.scanner.hashing import hash_bytes

    src = repo(BASE)
    scan_json(src, out)
    manifest = load_manifest(out)
    facts = out / manifest["files"]["src/e.ts"]["facts"]
    facts.write_text(facts.read_text() + 'src_func[code]("src/e.ts", "forged", 1).\n')
    manifest["files"]["src/e.ts"]["digest"] = hash_bytes(facts.read_bytes())
    (out / "manifest.json").write_text(json.dumps(manifest))
    summary = scan_json(src, out, "--verify")
    assert summary["parsed"] == 1
    assert not any(f[1] == "forged" for f in rel(read_facts(out), "src_func"))


def test_changed_options_re_extract_everything(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    assert scan_json(src, out, "--max-bytes", "100000")["parsed"] == 5
    assert scan_json(src, out, "--max-bytes", "100000")["parsed"] == 0


def test_new_extractor_or_grammar_version_re_extracts_everything(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    for key, value in (("extractor_version", "older"), ("grammar_versions", {"tree-sitter": "0.1"})):
        manifest = load_manifest(out)
        manifest[key] = value
        (out / "manifest.json").write_text(json.dumps(manifest))
        summary = scan_json(src, out)
        assert (summary["parsed"], summary["reused"]) == (5, 0), key


def test_missing_fact_file_is_rebuilt(repo, out):
    src = repo(BASE)
    scan_json(src, out)
    (out / load_manifest(out)["files"]["src/a.ts"]["facts"]).unlink()
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["reused"]) == (1, 4)
    assert all((out / e["facts"]).exists() for e in load_manifest(out)["files"].values())


def test_parallel_and_serial_scans_write_identical_facts(repo, tmp_path):
    files = {f"m{i}.ts": f'import "./m{(i + 1) % 60}";\nexport function f{i}() {{ g{i}(); }}\n' for i in range(60)}
    src = repo(files)
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    assert scan_json(src, serial, "--jobs", "1")["parsed"] == 60
    assert scan_json(src, parallel, "--jobs", "2")["parsed"] == 60
    assert load_manifest(serial)["files"] == load_manifest(parallel)["files"]
    assert read_facts(serial) == read_facts(parallel)


def test_symlinked_source_change_is_seen_through_the_link(tmp_path, out):
    src = tmp_path / "src"
    src.mkdir()
    (src / "real.ts").write_text("export const a = 1;\n")
    os.symlink("real.ts", src / "link.ts")
    assert scan_json(src, out)["parsed"] == 1  # one file, one node: the link is the real file
    assert scan_json(src, out)["parsed"] == 0
    (src / "real.ts").write_text("export const bb = 22;\n")
    assert scan_json(src, out)["parsed"] == 1
    assert ("real.ts", "bb") in rel(read_facts(out), "src_export")
    assert "link.ts" not in load_manifest(out)["files"]


def test_no_change_rescan_with_configs_takes_the_state_fast_path(repo, out, monkeypatch):
    src = repo({"tsconfig.json": '{"compilerOptions": {"baseUrl": "."}}', "a.ts": 'import "lib/b";\n', "lib/b.ts": ""})
    scan_json(src, out)
    (src / "a.ts").write_text('import "lib/b";\nexport const a = 2;\n')
    assert scan_json(src, out)["parsed"] == 1  # the full path, reading and recording the tsconfig
    from rofl.scanner import manifest

    def no_manifest(out_dir: str) -> None:
        raise AssertionError("a no-change rescan must not read manifest.json")

    monkeypatch.setattr(manifest, "load", no_manifest)
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["reused"]) == (0, 2)


def test_no_change_rescan_loads_no_parser_and_hashes_nothing(repo, out):
    import subprocess
    import sys

    src = repo(BASE)
    scan_json(src, out)
    probe = (
        "import sys\n"
        "from rofl.cli import main\n"
        "try:\n"
        f"    main(['scan', {str(src)!r}, '--out', {str(out)!r}, '--json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('LOADED', 'tree_sitter' in sys.modules, 'xxhash' in sys.modules, 'multiprocessing' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    summary_line, loaded = proc.stdout.strip().splitlines()
    assert json.loads(summary_line)["parsed"] == 0
    assert loaded == "LOADED False False False"
