"""Synthetic pnpm monorepos of N files built from copies of real code (three.js's sources), deterministic.

``generate(n, dest)`` writes a pnpm workspace of ``n`` JavaScript files: packages ``packages/pNNNN``
(``@syn/pNNNN``), each a copy of a window of ``PACKAGE_FILES`` consecutive three.js source files
(three/src, sorted by path, the window shifted by ``SHIFT`` per package).  A relative import that stays
inside the package's window is kept; one that leaves it is rewritten to an import through a package
name, ``@syn/pJJJJ/src/<path>``, of the nearest earlier package of the same family (``FAMILY``
packages each) whose window holds the file, and kept as written (unresolved) when none does.  Each
package's first file also imports its family predecessor by bare name (``@syn/pJJJJ``), which
resolves to that package's ``main``.  Families never import each other, so a change in family 0
reaches the same files at every size: the answer stays the same while the repository grows.

``python bench/synthetic_monorepo.py N DEST`` writes one; ``ensure(n)`` keeps one per size under
bench/.cache/synthetic.
"""

from __future__ import annotations

import json
import posixpath
import re
import shutil
import sys
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
THREE = CACHE / "corpora" / "three" / "src"
SIZES = (2_000, 20_000, 100_000)
PACKAGE_FILES = 250  # files per package
SHIFT = 97  # how far each package's window moves through three's sorted files
FAMILY = 8  # packages per family; imports never leave a family
GENERATOR_VERSION = "1"  # bump when the output changes: ensure() regenerates

_SPEC = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*|\bimport\s+)(['"])(\.{1,2}/[^'"\n]+)\2""")


def three_files(root: Path = THREE) -> list[str]:
    """three/src's JavaScript files, relative and sorted."""
    if not root.is_dir():
        raise SystemExit(
            f"bench/synthetic_monorepo.py: {root} is missing; run `python bench/run.py scan` once (bench/corpora.py installs three)"
        )
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.js"))


def name_of(k: int) -> str:
    return f"p{k:04d}"


def window(k: int, files: list[str], size: int) -> list[str]:
    """The three.js files package ``k`` copies: ``size`` consecutive ones from ``k * SHIFT``, wrapping."""
    start = (k * SHIFT) % len(files)
    return [files[(start + i) % len(files)] for i in range(min(size, len(files)))]


def rewrite(text: str, path: str, k: int, windows: list[set[str]]) -> str:
    """``text`` of three's ``path`` as package ``k`` holds it: imports leaving the window go through a
    package name of the family (the nearest earlier package holding the file)."""
    family_start = k - k % FAMILY

    def one(m: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group(3)))
        if target in windows[k]:
            return m.group(0)
        for j in range(k - 1, family_start - 1, -1):
            if target in windows[j]:
                return f"{m.group(1)}{m.group(2)}@syn/{name_of(j)}/src/{target}{m.group(2)}"
        return m.group(0)

    return _SPEC.sub(one, text)


def generate(n: int, dest: Path, root: Path = THREE) -> list[str]:
    """Write a monorepo of ``n`` source files into ``dest`` (created empty); its file paths."""
    files = three_files(root)
    count = (n + PACKAGE_FILES - 1) // PACKAGE_FILES
    sizes = [min(PACKAGE_FILES, n - k * PACKAGE_FILES) for k in range(count)]
    lists = [window(k, files, sizes[k]) for k in range(count)]
    windows = [set(w) for w in lists]
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "packages").mkdir(parents=True)
    (dest / "package.json").write_text(json.dumps({"name": "syn-monorepo", "private": True}, indent=2) + "\n")
    (dest / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")
    written: list[str] = []
    texts: dict[str, str] = {}
    for k in range(count):
        folder = dest / "packages" / name_of(k)
        main = lists[k][0]
        family_start = k - k % FAMILY
        deps = {f"@syn/{name_of(j)}": "workspace:*" for j in range(family_start, k)}
        package = {"name": f"@syn/{name_of(k)}", "version": "1.0.0", "type": "module", "main": f"src/{main}"}
        if deps:
            package["dependencies"] = deps
        (folder).mkdir()
        (folder / "package.json").write_text(json.dumps(package, indent=2) + "\n")
        for i, rel in enumerate(lists[k]):
            text = texts.get(rel)
            if text is None:
                text = texts[rel] = (root / rel).read_text(encoding="utf-8")
            body = rewrite(text, rel, k, windows)
            if i == 0 and k > family_start:
                body = f"import * as previous from '@syn/{name_of(k - 1)}';\n" + body
            target = folder / "src" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")
            written.append(f"packages/{name_of(k)}/src/{rel}")
    return written


def changed_file() -> str:
    """The one changed file the scale benchmark asks about: in family 0, so its answer is the same at
    every size (three's Vector3, which hundreds of files reach)."""
    return f"packages/{name_of(0)}/src/" + _first_in_window(0, "math/Vector3.js")


def _first_in_window(k: int, wanted: str) -> str:
    files = three_files()
    if wanted in window(k, files, PACKAGE_FILES):
        return wanted
    return window(k, files, PACKAGE_FILES)[0]


def ensure(n: int) -> Path:
    """The monorepo of ``n`` files under bench/.cache/synthetic, generated once per generator version."""
    dest = CACHE / "synthetic" / f"mono-{n}"
    stamp = dest.with_name(dest.name + ".stamp")
    if stamp.exists() and stamp.read_text() == GENERATOR_VERSION and dest.is_dir():
        return dest
    generate(n, dest)
    stamp.write_text(GENERATOR_VERSION)
    return dest


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python bench/synthetic_monorepo.py N DEST", file=sys.stderr)
        return 2
    paths = generate(int(argv[0]), Path(argv[1]))
    print(f"{len(paths)} files in {argv[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
