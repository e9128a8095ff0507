"""Hostile-input bench: scan time and peak memory of a hostile corpus beside a clean corpus of the same size.

The hostile corpus holds what issue 9 found: a 70,000-deep call chain, 100,000 unclosed brackets,
specifiers with NUL and lone surrogates, file names with newlines and invalid UTF-8, a package.json
and a tsconfig nested 100,000 deep, a tsconfig that is a FIFO and one linked to /dev/zero, sources
that are a FIFO, a link to /dev/zero, a symlink loop and a link out of the tree, and a file just
under --max-bytes; clean filler files bring it to the clean corpus's file count and bytes.
Each scan runs in a fresh process (``--measure``) that reports its wall time and the peak resident
memory of itself and its forked helpers.  A second table measures one large file against
--max-bytes: ordinary code, and the densest code measured (a call every 4 bytes, with and without a
syntax error); peak memory over file size is the factor that ``scanner.materialize.PEAK_FACTOR``
bounds (a file whose size times it exceeds the memory free is refused, not parsed).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = 400


def _module(i: int) -> str:
    return (
        f'import {{ v{(i + 1) % FILES} }} from "./m{(i + 1) % FILES:03d}";\n'
        f"export function f{i}(a, b) {{ if (a) {{ return g{i}(a.b.c, [b, {{ k: 1 }}]); }} return v{(i + 1) % FILES}(); }}\n"
        f"export class C{i} {{ m() {{ return this.x.y(f{i}(1, 2)); }} }}\nexport const v{i} = () => f{i}(0, 1);\n"
    )


def clean_corpus(root: Path) -> int:
    """FILES small modules; returns their total size in bytes."""
    total = 0
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "clean"}\n')
    (root / "tsconfig.json").write_text('{"compilerOptions": {"baseUrl": "."}}\n')
    for i in range(FILES):
        text = _module(i) * 40
        (root / "src" / f"m{i:03d}.ts").write_text(text)
        total += len(text)
    return total


def hostile_corpus(root: Path, total: int, max_bytes: int) -> None:
    """The hostile files, then clean filler up to FILES files and ``total`` bytes."""
    src = root / "src"
    src.mkdir(parents=True)
    deep = "[" * 100_000 + "]" * 100_000
    (root / "package.json").write_text('{"name": "hostile", "x": ' + deep + "}")
    (root / "tsconfig.json").write_text('{"extends": "./deep.json"}')
    (root / "deep.json").write_text('{"compilerOptions": ' + deep + "}")
    hostile: dict[str | bytes, bytes] = {
        "chain.js": b"f" + b"()" * 70_000 + b";\n",
        "unclosed.js": b"x = " + b"[" * 100_000 + b";\n",
        "brackets.js": b"x = " + b"[" * 50_000 + b"]" * 50_000 + b";\n",
        "specifiers.js": b'import a from "./x\\0y";\nimport b from "./j\\u{D800}x";\nimport c from "./\\x1b[2J";\n',
        "new\nline.ts": b'import { v0 } from "./m000";\n',
        "bad\xff\xfe.ts".encode("latin-1"): b"export const bad = 1;\n",
        "big.js": b"function big() { return 1; }\n" * (max_bytes // 30),
    }
    if hasattr(os, "mkfifo"):
        (src / "fifo").mkdir()
        os.mkfifo(src / "fifo" / "tsconfig.json")
        (src / "fifo" / "a.ts").write_text('import "./b";\n')
        (src / "zero").mkdir()
        (src / "zero" / "tsconfig.json").symlink_to("/dev/zero")
        (src / "zero" / "a.ts").write_text('import "./b";\n')
        os.mkfifo(src / "pipe.ts")
        (src / "devzero.ts").symlink_to("/dev/zero")
        (src / "loop.ts").symlink_to("loop.ts")
        (src / "outside.ts").symlink_to("/etc/hostname")
    used = 0
    for name, data in hostile.items():
        full = os.fsencode(str(src)) + b"/" + (name if isinstance(name, bytes) else os.fsencode(name))
        with open(full, "wb") as handle:
            handle.write(data)
        used += len(data)
    count = len(hostile) + 2
    filler = max(1, (total - used) // max(1, FILES - count))
    for i in range(FILES - count):
        text = _module(i) * max(1, filler // len(_module(i)))
        (src / f"m{i:03d}.ts").write_text(text + "//" + "x" * max(0, filler - len(text) - 3) + "\n")


def measure(src: Path, out: Path, *args: str) -> dict:
    """Scan in a fresh process; its seconds, summary and peak memory (MiB, largest process)."""
    result = subprocess.run(
        [sys.executable, __file__, "--measure", str(src), str(out), *args], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "scan failed")
    return json.loads(result.stdout)


def _measure_here(src: str, out: str, args: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from rofl.scanner.api import scan

    max_bytes = int(float(args[args.index("--max-bytes") + 1])) if "--max-bytes" in args else 2 * 1024 * 1024
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else None
    started = time.perf_counter()
    summary = scan(src, out, max_bytes=max_bytes, jobs=jobs)
    seconds = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_mib": max(own, children) * scale / 2**20,
                "files": summary.files,
                "errors": summary.errors,
                "refused": summary.skipped,
            }
        )
    )


BIG_KINDS = {
    "ordinary": "".join(_module(i) for i in range(50)),  # whole modules only: no syntax error at the cut
    "dense": "f();" * 1000,  # the most syntax nodes per byte measured
    "dense+error": "f();" * 1000,  # with one syntax error at the end: parsed again as TSX (two trees)
}


def big_file(root: Path, size: int, kind: str = "ordinary") -> None:
    """One JavaScript file of about ``size`` bytes of ``kind`` (``BIG_KINDS``)."""
    (root / "src").mkdir(parents=True)
    chunk = BIG_KINDS[kind].encode()
    with open(root / "src" / "big.js", "wb") as handle:
        for _ in range(max(1, size // len(chunk))):
            handle.write(chunk)
        if kind.endswith("+error"):
            handle.write(b"\nlet x = = 1;\n")


BIG_ROWS = (("ordinary", 5_000_000), ("ordinary", 20_000_000), ("dense", 2_000_000), ("dense+error", 2_000_000))


def main(big_rows: tuple[tuple[str, int], ...] = BIG_ROWS) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        total = clean_corpus(base / "clean")
        hostile_corpus(base / "hostile", total, 2 * 1024 * 1024)
        print(
            f"{FILES} files, {total / 2**20:.1f} MiB each corpus; default --max-bytes (2 MiB); cold scan, then a rescan\n"
        )
        print("| corpus | cold scan s | peak MiB | rescan s | files | errors |")
        print("|---|---|---|---|---|---|")
        for name in ("clean", "hostile"):
            cold = measure(base / name, base / f"{name}-out")
            warm = measure(base / name, base / f"{name}-out")
            print(
                f"| {name} | {cold['seconds']:.2f} | {cold['peak_mib']:.0f} | {warm['seconds']:.3f} | {cold['files']} | {cold['errors']} |"
            )
        from rofl.scanner.materialize import PEAK_FACTOR

        print(
            f"\nOne large file under --max-bytes 1e8 (--jobs 1): peak memory over its size (bounded by {PEAK_FACTOR})\n"
        )
        print("| file | MiB | scan s | peak MiB | peak / file size | parsed |")
        print("|---|---|---|---|---|---|")
        for kind, size in big_rows:
            root = base / f"big-{kind}-{size}"
            big_file(root, size, kind)
            row = measure(root, base / f"big-{kind}-{size}-out", "--max-bytes", "1e8", "--jobs", "1")
            print(
                f"| {kind} | {size / 2**20:.1f} | {row['seconds']:.1f} | {row['peak_mib']:.0f} "
                f"| {row['peak_mib'] * 2**20 / size:.0f} | {'no (refused: memory)' if row['refused'] else 'yes'} |"
            )


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--measure":
        _measure_here(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        rows = tuple(("ordinary", int(float(s))) for s in sys.argv[1:]) or BIG_ROWS
        main(rows)
