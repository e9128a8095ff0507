"""`rofl serve FILE...`: serve a world to rofl adapters, one JSON request and one JSON response per line."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..exits import fail, user_errors
from ..options import FACTS, FILES, examples

EPILOG = examples(
    "rofl serve examples/adapters/library.rofl --facts facts/lib",
    'echo \'{"ask": "entry_reached", "args": ["\\"src/round.ts\\""], "arity": 1}\' | rofl serve --facts facts/lib examples/adapters/library.rofl',
    exit_codes="Exit codes: 0 the input ended, 2 user error (a file that does not load).",
)


@click.command("serve", epilog=EPILOG)
@FILES
@FACTS
@user_errors
def command(files: tuple, facts: str | None) -> None:
    """Evaluate FILES (boot first) as the first session, then answer requests from stdin until it ends.

    A request is {"ask": REL, "args": [TERM...], "arity": N}: the rows of REL (perspective main, or
    REL written name[persp] such as in_cycle[code]; N columns) whose first columns are ARGS; the response is {"rows": [[TERM...], ...]} or {"error": TEXT}.
    TERMs are ROFL term text.  A file that changes is loaded again before the next answer, so the
    world answers as it is now.  With --facts DIR the world is that scan (with rules/code.rofl) and
    FILES are rules over it; a new scan is loaded before the next answer too.  This is what `adapter(Book, rofl, "rofl serve FILE...")` starts.
    """
    from rofl.adapters.rofl_kind import serve_loop

    from ..loading.kernel import KernelInputs, build_kernel
    from ..rounds import load_world

    if not files and facts is None:
        fail("rofl serve: give the world's FILES, or --facts DIR (and FILES of rules over it)")
    if facts is None:
        serve_loop(load_world, [Path(f) for f in files], sys.stdin, sys.stdout)
        return
    from rofl.scanner.layout import MANIFEST_NAME

    manifest = Path(facts) / MANIFEST_NAME

    def scan_world(paths):
        return build_kernel(KernelInputs(tuple(str(p) for p in paths), (), None, facts=facts))

    serve_loop(scan_world, [Path(f) for f in files], sys.stdin, sys.stdout, watch=[manifest])
