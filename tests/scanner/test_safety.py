"""Crash safety, orphan clean-up and the lock against concurrent scans."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rofl.scanner import factfile, lock
from rofl.scanner.api import scan
from rofl.scanner.hashing import hash_bytes

from tests.scanner.conftest import load_manifest, parse_fact_file, read_facts, rel, run_scan, scan_json

BASE = {f"m{i}.ts": f'import "./m{(i + 1) % 6}";\nexport const v{i} = {i};\n' for i in range(6)}


def assert_consistent(out: Path) -> None:
    """Every fact file the manifest names exists, has its recorded digest and parses."""
    manifest = load_manifest(out)
    for entry in manifest["files"].values():
        data = (out / entry["facts"]).read_bytes()
        assert hash_bytes(data) == entry["digest"]
        parse_fact_file(out / entry["facts"])
    preamble = out / manifest["preamble"]["facts"]
    assert hash_bytes(preamble.read_bytes()) == manifest["preamble"]["digest"]
    assert preamble.read_text().strip().endswith("authority(code, scanner).")


def orphans(out: Path) -> set[str]:
    named = {e["facts"] for e in load_manifest(out)["files"].values()}
    return {"code/" + n for n in os.listdir(out / "code")} - named


class Interrupted(Exception):
    pass


def test_interrupted_scan_leaves_previous_manifest_valid_and_next_scan_repairs(repo, out, monkeypatch):
    src = repo(BASE)
    scan_json(src, out)
    before = load_manifest(out)
    for i in range(3):
        (src / f"m{i}.ts").write_text(f"export const changed{i} = {i};\n")

    real_write = factfile.write_fact_file
    calls = []

    def dying_write(out_dir: str, name: str, data: bytes) -> None:
        calls.append(name)
        if len(calls) == 2:
            with open(os.path.join(out_dir, name), "wb") as handle:
                handle.write(data[:10])  # killed halfway through writing a fact file
            raise Interrupted
        real_write(out_dir, name, data)

    monkeypatch.setattr(factfile, "write_fact_file", dying_write)
    with pytest.raises(Interrupted):
        scan(str(src), str(out), jobs=1)
    monkeypatch.setattr(factfile, "write_fact_file", real_write)

    assert load_manifest(out) == before  # untouched
    assert_consistent(out)
    assert orphans(out)  # the interrupted scan left files behind

    summary = scan_json(src, out)
    assert (summary["parsed"], summary["reused"]) == (3, 3)
    assert_consistent(out)
    assert orphans(out) == set()
    assert ("m0.ts", "changed0") in rel(read_facts(out), "src_export")


def test_interrupted_manifest_write_keeps_the_old_one(repo, out, monkeypatch):
    src = repo(BASE)
    scan_json(src, out)
    before = (out / "manifest.json").read_bytes()
    (src / "m5.ts").write_text("export const five = 5;\n")
    from rofl.scanner import manifest

    def dying(out_dir: str, data: dict) -> None:
        with open(os.path.join(out_dir, "manifest.json.4242.tmp"), "wb") as handle:
            handle.write(b'{"format": 1, "fi')
        raise Interrupted

    monkeypatch.setattr(manifest, "write", dying)
    with pytest.raises(Interrupted):
        scan(str(src), str(out), jobs=1)
    monkeypatch.undo()
    assert (out / "manifest.json").read_bytes() == before
    assert_consistent(out)
    summary = scan_json(src, out)
    assert summary["parsed"] == 1
    assert_consistent(out)
    assert orphans(out) == set()


def test_leftovers_are_removed_and_other_files_are_not_the_scans_to_remove(repo, out):
    """A fact-file name no manifest names is a leftover of the scan's own: removed.  Any other file
    in the fact folder is someone else's: kept (a foreign .rofl file loads as unverified and audits
    report it as forged; a user's file in an --out that was not empty is never deleted)."""
    src = repo(BASE)
    scan_json(src, out)
    leftover = out / "code" / "m9.ts.0123456789ab-0123456789abcdef.rofl"
    leftover.write_text('src_file[code]("m9.ts", "0123456789ab").\n')
    forged = out / "code" / "forged.rofl"
    forged.write_text('src_file[code]("evil.ts", "000000000000").\n')
    notes = out / "code" / "notes.txt"
    notes.write_text("mine\n")
    summary = scan_json(src, out)
    assert summary["parsed"] == 0
    assert not leftover.exists()
    assert forged.read_text().startswith("src_file") and notes.read_text() == "mine\n"
    assert scan_json(src, out)["parsed"] == 0  # and they do not stop a rescan from seeing nothing changed


def test_an_out_that_holds_src_is_refused(tmp_path):
    """Scanning into SRC itself (or a folder holding it) would mix the manifest and fact folder with
    the sources, and a user's own code/ folder with fact files: refused before anything is written."""
    src = tmp_path / "project"
    (src / "code").mkdir(parents=True)
    (src / "code" / "keep.ts").write_text("export const k = 1;\n")
    (src / "a.ts").write_text('import "./code/keep";\n')
    (tmp_path / "link").symlink_to(src)
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    for out in (src, tmp_path, tmp_path / "link"):
        run = run_scan(src, out)
        assert run.exit_code == 2, run.stderr
        assert "is SRC or a folder holding it" in run.stderr and "Traceback" not in run.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before


def test_someone_elses_manifest_is_not_replaced(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    out = tmp_path / "public"
    out.mkdir()
    (out / "manifest.json").write_text('{"name": "My web app", "start_url": "/"}\n')
    run = run_scan(src, out)
    assert run.exit_code == 2 and "is not a rofl scan's manifest" in run.stderr
    assert (out / "manifest.json").read_text().startswith('{"name": "My web app"')
    (out / "manifest.json").write_text("{torn")  # not JSON: a damaged manifest of ours, rewritten
    assert run_scan(src, out).exit_code == 0
    assert load_manifest(out)["counts"]["files"] == 1


def test_concurrent_scan_is_refused_with_one_line(repo, out):
    src = repo(BASE)
    out.mkdir()
    held = lock.acquire(str(out))
    try:
        run = run_scan(src, out)
    finally:
        held.release()
    assert run.exit_code == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rofl scan: another scan (pid ")
    assert str(os.getpid()) in lines[0] and "Traceback" not in run.stderr
    assert not (out / "manifest.json").exists()
    assert run_scan(src, out).exit_code == 0  # released: the next scan runs


def test_stale_lock_from_a_dead_process_is_taken_over(repo, out):
    src = repo(BASE)
    out.mkdir()
    (out / ".lock").write_text("999999999\n")
    summary = scan_json(src, out)
    assert summary["parsed"] == 6
    assert (out / ".lock").read_text().strip() != "999999999"


def test_a_helper_process_dying_costs_no_facts(repo, out, monkeypatch):
    files = {f"m{i}.ts": f"export const v{i} = {i};\n" for i in range(60)}
    src = repo(files)
    from rofl.scanner import materialize

    parent = os.getpid()
    real_extract = materialize.Materializer.extract

    def fragile(self, path):
        if os.getpid() != parent:
            os._exit(9)  # a helper crashes hard (as a segfault would end it)
        return real_extract(self, path)

    monkeypatch.setattr(materialize.Materializer, "extract", fragile)
    summary = scan(str(src), str(out), jobs=2)
    assert (summary.parsed, summary.errors) == (60, 0)
    assert len(load_manifest(out)["files"]) == 60
    assert_consistent(out)
