"""Helpers of the hostile-input tests: a clean corpus, byte snapshots of a fact folder, a guarded scan."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.scanner.conftest import Facts, load_manifest, parse_fact_file, write_tree

CLEAN = {
    "package.json": '{"name": "clean", "version": "1.0.0"}\n',
    "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}\n',
    "src/a.ts": 'import { b } from "./b";\nimport { c } from "@/c";\nexport function a() { return b() + c(); }\n',
    "src/b.ts": "export function b() { return 1; }\n",
    "src/c.ts": "export const c = () => 2;\n",
}


def corpus(count: int) -> dict[str, str]:
    """``count`` small modules that import each other in a ring (enough to fork helpers)."""
    files = dict(CLEAN)
    for i in range(count):
        files[f"src/m{i:03d}.ts"] = (
            f'import {{ v{(i + 1) % count} }} from "./m{(i + 1) % count:03d}";\n'
            f"export const v{i} = () => v{(i + 1) % count};\nexport function f{i}() {{ return g(); }}\n"
        )
    return files


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root, files)
    return root


def snapshot(out: Path) -> dict[str, bytes]:
    """Every file a scan keeps in ``out``, by relative path: not the lock, not the query cache, and
    not ``.scan-state.json``, which records the manifest's own mtime (it differs between two scans)."""
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(out):
        for name in names:
            full = Path(folder) / name
            rel = full.relative_to(out).as_posix()
            if rel in (".lock", ".scan-state.json") or rel.startswith(".rofl-cache"):
                continue
            found[rel] = full.read_bytes()
    return found


def facts_by_file(out: Path) -> dict[str, Facts]:
    """Each scanned path's parsed facts (every fact file must parse)."""
    manifest = load_manifest(out)
    return {path: parse_fact_file(out / entry["facts"]) for path, entry in manifest["files"].items()}


def files_outside(root: Path, allowed: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under ``root`` except those under ``allowed``: to see stray writes."""
    seen: dict[str, tuple[int, int]] = {}
    for folder, dirs, names in os.walk(root):
        if Path(folder) == allowed or allowed in Path(folder).parents:
            dirs[:] = []
            continue
        for name in names:
            full = Path(folder) / name
            try:
                st = full.lstat()
            except OSError:
                continue
            seen[str(full)] = (st.st_size, st.st_mtime_ns)
    return seen


@contextmanager
def no_hang(seconds: int = 120) -> Iterator[None]:
    """Fail instead of hanging: a FIFO opened for reading, or a scan gone quadratic, would block the
    suite forever.  Not a timing assertion: what it guards takes well under a second, and only a
    hang (or a slowdown of hundreds of times) reaches the limit."""

    def expired(signum: int, frame: object) -> None:
        raise AssertionError(f"still running after {seconds} s: it hangs")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
