"""Cancelling a scan (engine.events): it stops between files or before the commit, and the previous scan stays whole."""

from __future__ import annotations

import os

import pytest
from rofl.engine.base import events
from rofl.scanner.api import scan

from tests.scanner.conftest import load_manifest, read_facts, scan_json


def sources(count: int, version: int) -> dict[str, str]:
    return {f"m{i}.ts": f"import './m{(i + 1) % count}';\nexport const v{i}_{version} = {i};\n" for i in range(count)}


@pytest.mark.parametrize("count, jobs", [(6, 1), (60, 2)], ids=["in-process", "pool"])
def test_a_scan_cancelled_between_files_leaves_the_previous_scan(repo, out, count, jobs):
    src = repo(sources(count, 1))
    scan_json(src, out)
    manifest_before = (out / "manifest.json").read_bytes()
    facts_before = read_facts(out)
    for rel, text in sources(count, 2).items():
        (src / rel).write_text(text)
    token = events.CancelToken()
    heard: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        heard.append((done, total))
        if done == 2:
            token.cancel("stopped by the user")

    with pytest.raises(events.ExecutionCancelled, match="stopped by the user"):
        scan(str(src), str(out), jobs=jobs, progress=progress, check=token.check)
    assert heard and heard[-1][0] < count  # stopped before the last file
    assert (out / "manifest.json").read_bytes() == manifest_before
    assert read_facts(out) == facts_before  # every fact file the old manifest names is intact
    summary = scan_json(src, out)  # the lock was released: the next scan runs, redoes the work, removes orphans
    assert summary["parsed"] == count
    names = {e["facts"].split("/", 1)[1] for e in load_manifest(out)["files"].values()}
    assert set(os.listdir(out / "code")) == names


def test_a_cancel_before_the_commit_replaces_nothing(repo, out):
    src = repo(sources(4, 1))
    scan_json(src, out)
    manifest_before = (out / "manifest.json").read_bytes()
    entries = out / load_manifest(out)["package_entries"]["facts"]
    entries_before = entries.read_bytes()
    (src / "m3.ts").unlink()  # nothing to parse: only the commit would change the folder
    token = events.CancelToken()
    token.cancel()
    with pytest.raises(events.ExecutionCancelled):
        scan(str(src), str(out), check=token.check)
    assert (out / "manifest.json").read_bytes() == manifest_before
    assert entries.read_bytes() == entries_before
    assert scan_json(src, out)["removed"] == 1


def test_the_running_calls_reporter_cancels_by_default(repo, out):
    src = repo(sources(3, 1))
    reporter = events.Reporter("e1")
    reporter.token.cancel("server shutdown")
    with events.reporting(reporter), pytest.raises(events.ExecutionCancelled, match="server shutdown"):
        scan(str(src), str(out))
    assert not (out / "manifest.json").exists()
    assert scan_json(src, out)["parsed"] == 3
