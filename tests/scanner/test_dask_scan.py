"""`rofl scan --dask`: a scan on a Dask cluster writes the same bytes as a local scan, a killed one keeps the
previous manifest, and without the extra (or with a bad address) it is one line and exit 2."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import write_tree
from tests.scanner.conftest import load_manifest, run_scan

ROOT = Path(__file__).resolve().parents[2]
COMPARED_OUT = ("manifest.json", "preamble.rofl", "entries.rofl")  # besides code/; .lock holds a pid, the
# scan state the manifest's mtime


def module_text(i: int, n: int, lines: int = 6) -> str:
    """A TypeScript module importing its neighbours every way the resolver knows."""
    body = "\n".join(f"export function f{i}_{k}(x: number): number {{ return g(x) + {k}; }}" for k in range(lines))
    return (
        f'import {{ f{(i + 1) % n}_0 }} from "./m{(i + 1) % n}";\n'
        f'import type {{ T }} from "@lib/types";\n'
        f'import * as b from "@t/b";\n'
        f'import React from "react";\n'
        f'const lazy = () => import("./m{(i + 7) % n}.js");\n'
        f'import "./missing{i % 3}";\n'
        f"function g(x: number): number {{ return x * {i}; }}\n"
        f"export class C{i} {{ m(): T {{ return b.v as T; }} }}\n{body}\n"
    )


def make_tree(root: Path, n: int, lines: int = 6) -> None:
    """A workspace of ``n`` modules plus the odd files a scan meets: a syntax error, binary, not UTF-8,
    too large, a declaration file, JSX, CommonJS; a tsconfig with paths and a workspace package."""
    files: dict[str, str | bytes] = {
        "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
        "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["lib/*"]}}}',
        "lib/types.ts": "export type T = number;\n",
        "packages/b/package.json": '{"name": "@t/b", "main": "index.js"}',
        "packages/b/index.js": "export const v = 1;\nmodule.exports = { v };\n",
        "odd/broken.ts": "export function ( {\n  let = ;\n",
        "odd/binary.js": b"var a = 1;\0\0\0",
        "odd/latin1.js": b"var s = '\xe9t\xe9';\n",
        "odd/huge.js": "var x = 1;\n" * 4000,
        "odd/decl.d.ts": "declare module 'virtual' { export const z: number; }\n",
        "odd/view.tsx": 'import { C0 } from "../src/m0";\nexport const V = () => <div>{String(C0)}</div>;\n',
        "odd/old.cjs": 'const m = require("../src/m1");\nmodule.exports = m;\n',
    }
    for i in range(n):
        files[f"src/m{i}.ts"] = module_text(i, n, lines)
    write_tree(root, files)


def folder_bytes(out: Path) -> dict[str, bytes]:
    """What two scans must agree on, byte for byte: every fact file, the manifest, preamble and entries."""
    found = {f"code/{p.name}": p.read_bytes() for p in (out / "code").iterdir()}
    found.update({name: (out / name).read_bytes() for name in COMPARED_OUT})
    return found


def scan_ok(src: Path, out: Path, *args: str) -> None:
    result = run_scan(src, out, *args)
    assert result.exit_code == 0, result.stderr


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """One Dask cluster for the module's tcp:// tests: two worker processes, scheduler on loopback."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster.scheduler_address


def test_local_cluster_scan_is_byte_identical_to_a_local_scan(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    src = tmp_path / "src"
    make_tree(src, 50)  # with the odd files, past the 48 below which no pool (and no cluster) is used
    scan_ok(src, tmp_path / "local", "--jobs", "1", "--max-bytes", "20000")
    with caplog.at_level(logging.INFO, logger="rofl.scanner.dask_pool"):
        scan_ok(src, tmp_path / "dask", "--dask", "local:2", "--max-bytes", "20000")
    assert any("on local:2 (2 worker thread(s))" in r.getMessage() for r in caplog.records), "not extracted on Dask"
    local, dask = folder_bytes(tmp_path / "local"), folder_bytes(tmp_path / "dask")
    assert sorted(local) == sorted(dask)
    assert [name for name in local if local[name] != dask[name]] == []
    assert not (tmp_path / "dask" / ".dask-scan").exists()  # the token goes with the scan


@pytest.mark.slow
def test_scheduler_address_rescans_incrementally_like_a_local_scan(tmp_path: Path, scheduler: str) -> None:
    """Through tcp://: a cold scan, then an edit of many files, a deletion, an addition and a tsconfig
    change (which re-resolves the rest), each scanned locally and on the cluster: the same bytes each time."""
    src = tmp_path / "src"
    make_tree(src, 55)
    local, dask = tmp_path / "local", tmp_path / "dask"
    scan_ok(src, local, "--jobs", "1")
    scan_ok(src, dask, "--dask", scheduler)
    assert folder_bytes(local) == folder_bytes(dask)
    for i in range(50):
        (src / f"src/m{i}.ts").write_text(module_text(i, 55, lines=9), encoding="utf-8")
    (src / "src/m54.ts").unlink()
    (src / "src/extra.ts").write_text('export * from "./m3";\n', encoding="utf-8")
    (src / "tsconfig.json").write_text(
        '{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["lib/*", "src/*"]}}}', encoding="utf-8"
    )
    scan_ok(src, local, "--jobs", "1")
    scan_ok(src, dask, "--dask", scheduler)
    assert folder_bytes(local) == folder_bytes(dask)
    assert "src/m54.ts" not in load_manifest(dask)["files"]


@pytest.mark.slow
def test_a_killed_dask_scan_keeps_the_previous_manifest(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")  # a dependency of distributed
    src, out = tmp_path / "src", tmp_path / "facts"
    make_tree(src, 60)
    scan_ok(src, out, "--jobs", "2")
    before = (out / "manifest.json").read_bytes()
    old_names = set(os.listdir(out / "code"))
    for i in range(150):  # enough work that the kill lands while the workers write
        (src / f"src/m{i}.ts").write_text(module_text(i, 150, lines=25), encoding="utf-8")
    scan = subprocess.Popen(
        [sys.executable, "-m", "rofl.cli", "scan", str(src), "--out", str(out), "--dask", "local:2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "CI": "true"},
    )
    try:
        while len(set(os.listdir(out / "code")) - old_names) < 10 and scan.poll() is None:
            time.sleep(0.005)
        try:
            workers = psutil.Process(scan.pid).children(recursive=True)
        except psutil.NoSuchProcess:  # it ended by itself: the assertion below says so
            workers = []
        scan.send_signal(signal.SIGKILL)
    finally:
        scan.wait()
    assert len(set(os.listdir(out / "code")) - old_names) >= 10, "the scan ended before its workers wrote"
    assert (out / "manifest.json").read_bytes() == before  # killed before its commit: the old scan stands
    _, alive = psutil.wait_procs(workers, timeout=60)
    assert alive == [], "the workers of local:N outlived the scan"
    scan_ok(src, out, "--jobs", "2")  # the next scan repairs the rest: every fact file is the manifest's
    named = {entry["facts"].removeprefix("code/") for entry in load_manifest(out)["files"].values()}
    assert set(os.listdir(out / "code")) == named
    assert len(named) == 150 + 9  # the modules and the odd files (package.json files are no sources)


def test_without_the_extra_dask_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    src = tmp_path / "src"
    make_tree(src, 3)
    result = run_scan(src, tmp_path / "facts", "--dask", "local:2")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'rofl[dask]'" in lines[0], result.stderr
    assert not (tmp_path / "facts").exists()  # refused before anything was written


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--dask", "local:0"], "is not a cluster address"),
        (["--dask", "http://example.org"], "is not a cluster address"),
        (["--dask", "local:2", "--jobs", "2"], "--jobs and --dask"),
    ],
)
def test_bad_dask_arguments_are_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    src = tmp_path / "src"
    make_tree(src, 3)
    result = run_scan(src, tmp_path / "facts", *args)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and said in result.stderr, result.stderr
    assert not (tmp_path / "facts").exists()


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from rofl.scanner import dask_pool

    monkeypatch.setattr(dask_pool, "CONNECT_TIMEOUT", 1)
    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    src, out = tmp_path / "src", tmp_path / "facts"
    make_tree(src, 60)
    result = run_scan(src, out, "--dask", f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 2
    assert "cannot reach the Dask scheduler" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (out / "manifest.json").exists() and not (out / ".dask-scan").exists()


def _kit_problem(tmp_path: Path, token_on_disk: str | None, versions: dict | None = None) -> str | None:
    """The problem a worker's kit finds at setup (what and fix, as one line), None when it may work."""
    from rofl.scanner.dask_pool import PROBE_NAME, ScanKit, _versions
    from rofl.scanner.materialize import ScanContext

    (tmp_path / "src").mkdir(parents=True)
    if token_on_disk is not None:
        (tmp_path / PROBE_NAME).write_text(token_on_disk)
    context = ScanContext(str(tmp_path / "src"), str(tmp_path), frozenset(), {}, None, 1000)
    kit = ScanKit(context, frozenset(), "token-of-this-scan", versions or _versions())
    kit.setup(SimpleNamespace(address="tcp://10.0.0.9:4000"))  # type: ignore[arg-type]
    return None if kit.problem is None else ", ".join(kit.problem)


def test_a_worker_that_does_not_share_the_output_folder_does_no_work(tmp_path: Path) -> None:
    assert _kit_problem(tmp_path, "token-of-this-scan") is None
    problem = _kit_problem(tmp_path / "other", "token-of-another-scan")
    assert problem is not None and "shared storage" in problem and "tcp://10.0.0.9:4000" in problem


def test_a_worker_with_another_extractor_version_does_no_work(tmp_path: Path) -> None:
    problem = _kit_problem(tmp_path, "token-of-this-scan", {"extractor": "rofl-extract-0", "resolver": "x"})
    assert problem is not None and "install the same rofl" in problem


@given(
    st.dictionaries(st.text("abc/.", min_size=1, max_size=8), st.integers(0, 10**6), max_size=300), st.integers(1, 9)
)
def test_chunks_hold_every_file_once_biggest_first(sizes: dict[str, int], threads: int) -> None:
    from rofl.scanner.dask_pool import MAX_CHUNK_FILES, chunk_by_bytes

    chunks = chunk_by_bytes(list(sizes), sizes, threads)
    flat = [p for chunk in chunks for p in chunk]
    assert sorted(flat) == sorted(sizes) and all(0 < len(c) <= MAX_CHUNK_FILES for c in chunks)
    assert [sizes[p] for p in flat] == sorted(sizes.values(), reverse=True)
