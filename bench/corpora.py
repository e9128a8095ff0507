"""Real-code corpora for the scanner benchmarks: pinned npm packages installed into bench/.cache.

`ensure()` installs the pinned packages once (npm, --ignore-scripts) and copies each corpus out of
node_modules (madge ignores any path containing ``node_modules``), returning where they are.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE = Path(__file__).resolve().parent / ".cache"
PINNED = (
    "three@0.187.0",
    "lodash-es@4.18.1",
    "rxjs@7.8.2",
    "madge@8.0.0",
    "dependency-cruiser@17.4.3",
    "typescript@5.9.3",
    # let dependency-cruiser read .vue and .svelte files (bench/monorepo_compare.py)
    "@vue/compiler-sfc@3.5.45",
    "svelte@5.57.3",
)
# the independent oracles the differential tests run (import graphs, cycles, TypeScript's resolution)
ORACLES = tuple(p for p in PINNED if p.split("@")[0] in ("madge", "dependency-cruiser", "typescript"))


@dataclass(frozen=True, slots=True)
class Corpus:
    """One folder of real code to scan, and how the Node tools must be told about it."""

    name: str
    root: Path  # the copied package folder (holds tsconfig.json for rxjs)
    src: Path  # the folder that is scanned
    madge_args: tuple[str, ...]
    depcruise_args: tuple[str, ...]


def node_bin(tool: str) -> Path:
    return CACHE / "node_modules" / ".bin" / tool


def _install(packages: tuple[str, ...] = PINNED, stamp_name: str = ".installed") -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    package_json = CACHE / "package.json"
    if not package_json.exists():
        package_json.write_text(json.dumps({"name": "rofl-bench-cache", "private": True}) + "\n")
    stamp = CACHE / stamp_name
    if stamp.exists() and stamp.read_text() == "\n".join(packages):
        return
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", *packages],
        cwd=CACHE,
        check=True,
        stdout=sys.stderr,
    )
    stamp.write_text("\n".join(packages))


def ensure_oracles() -> bool:
    """Install madge, dependency-cruiser and typescript (once) for the differential tests; False, with
    the reason on stderr, when npm is missing or fails (those tests then skip and say why)."""
    if shutil.which("npm") is None:
        print(
            "bench/corpora.py: npm is not installed; the tests against madge, dependency-cruiser and TypeScript skip",
            file=sys.stderr,
        )
        return False
    try:
        _install(ORACLES, ".installed-oracles")
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"bench/corpora.py: installing the Node oracles failed ({err}); their tests skip", file=sys.stderr)
        return False
    return True


def _copy(source: Path, target: Path) -> None:
    if target.exists():
        return
    tmp = target.with_name(target.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    shutil.copytree(source, tmp, symlinks=True)
    tmp.rename(target)


def _git_snapshot(root: Path) -> None:
    """Make ``root`` a git repository with everything committed, as a cloned project would be.

    The scanner lists files with git inside a work tree; without this the corpora (inside the
    ignored bench/.cache) would be walked instead, which is not how real projects are scanned.
    """
    if (root / ".git").exists():
        return
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run(["git", "init", "-q", str(root)], check=True, **quiet)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, **quiet)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "commit",
            "-q",
            "-m",
            "corpus snapshot",
        ],
        check=True,
        **quiet,
    )


def ensure() -> list[Corpus]:
    """Install the pinned packages (once) and return the three corpora, copied out of node_modules."""
    _install()
    modules = CACHE / "node_modules"
    corpora = CACHE / "corpora"
    corpora.mkdir(exist_ok=True)

    three = corpora / "three"
    three.mkdir(exist_ok=True)
    _copy(modules / "three" / "src", three / "src")

    lodash = corpora / "lodash-es"
    _copy(modules / "lodash-es", lodash)

    rxjs = corpora / "rxjs"
    rxjs.mkdir(exist_ok=True)
    _copy(modules / "rxjs" / "src", rxjs / "src")
    if not (rxjs / "tsconfig.json").exists():
        shutil.copy2(modules / "rxjs" / "tsconfig.json", rxjs / "tsconfig.json")

    for root in (three, lodash, rxjs):
        _git_snapshot(root)
    return [
        Corpus("three", three, three / "src", (), ()),
        Corpus("lodash-es", lodash, lodash, (), ()),
        Corpus(
            "rxjs",
            rxjs,
            rxjs / "src",
            ("--extensions", "ts,js", "--ts-config", str(rxjs / "tsconfig.json")),
            ("--ts-pre-compilation-deps", "--ts-config", str(rxjs / "tsconfig.json")),
        ),
    ]


def main() -> None:
    if sys.argv[1:] == ["--oracles"]:
        ensure_oracles()
        return
    for corpus in ensure():
        print(corpus.name, corpus.src)


if __name__ == "__main__":
    main()
