"""The pre-commit hook (`.pre-commit-hooks.yaml`): scan the repository, then run `rofl audit` over the scan.

``python -m rofl.precommit [--src DIR] [--out DIR] [AUDIT OPTION]...`` scans DIR (default ``.``)
incrementally into ``--out`` (default ``.rofl/facts``: the next commit reparses only what changed)
and runs ``rofl audit --facts OUT`` with the remaining options (``--rules``, ``--baseline``,
``--fail-on``, ...), exiting with the audit's code.
"""

from __future__ import annotations

import sys

DEFAULT_OUT = ".rofl/facts"


def split(argv: list[str]) -> tuple[str, str, list[str]]:
    """``(src, out, audit options)`` from the hook's arguments."""
    src, out, rest = ".", DEFAULT_OUT, []
    items = iter(argv)
    for arg in items:
        if arg in ("--src", "--out"):
            value = next(items, None)
            if value is None:
                print(f"rofl pre-commit: {arg} needs a folder", file=sys.stderr)
                raise SystemExit(2)
            src, out = (value, out) if arg == "--src" else (src, value)
        else:
            rest.append(arg)
    return src, out, rest


def main(argv: list[str] | None = None) -> int:
    from .cli import main as rofl

    src, out, rest = split(sys.argv[1:] if argv is None else argv)
    try:
        rofl(["scan", src, "--out", out], standalone_mode=True)
    except SystemExit as exc:
        if exc.code not in (0, None):
            return int(exc.code) if isinstance(exc.code, int) else 2
    try:
        rofl(["audit", "--facts", out, *rest], standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
