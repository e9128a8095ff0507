"""The `rofl` command group: dispatches to subcommands imported only when they run."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from . import __version__
from .lazygroup import LazyGroup
from .logs import verbose_option

# name -> (module under rofl.commands, one-line help); imported lazily so `rofl --help` stays fast.
COMMANDS = {
    "scan": ("scan", "Scan a JS/TS tree into one [code] fact file per source file, incrementally."),
    "ask": ("ask", "Answer a query over programs, a scan or a saved store."),
    "why": ("explain", "Show one derivation tree of a fact down to base facts."),
    "whynot": ("explain", "Name the failing premise of each rule that could conclude a fact."),
    "excise": ("explain", "Facts lost and gained when one base fact is removed."),
    "audit": ("audit", "Run the audits and layering rules; exit 1 on findings."),
    "impact": ("impact", "Files a change affects, each with its chain of imports."),
    "report": ("report", "Write one self-contained HTML report: graph by folder, cycles, findings, impact."),
    "cycles": ("cycles", "Import cycles as paths, and the fewest imports to remove to break them; exit 1 on cycles."),
    "summary": ("summary", "Counts per file and package: imports, importers, instability; the top of each, leaves."),
    "export": ("export", "Write a binary relation as GraphML, GEXF, JSON, DOT or Mermaid."),
    "relations": ("relations", "List every relation: perspective, arity, rows, where defined, what it means."),
    "run": ("run", "Run a program tick by tick until it goes quiet."),
    "save": ("save", "Save the whole store of loaded programs to a versioned file."),
    "repl": ("repl", "Interactive session over a live kernel."),
    "serve": ("serve", "Serve a world to rofl adapters: one JSON request and response per line on stdin/stdout."),
    "keygen": ("keygen", "Write an Ed25519 key pair for signing scans (PREFIX.key, PREFIX.pub)."),
    "server": ("server", "Serve the commands over a fact folder on HTTP: executions, events, quick answers."),
    "executions": ("executions", "List, start, follow and cancel the executions of a running rofl server."),
    "adapter": ("adapter", "Write adapter books (mcp, openapi) and log in to the services they ask (login, logout)."),
    "mcp": ("mcp", "Serve scan, impact, why, whynot, ask, cycles, audit and relations to coding agents over MCP."),
}


class RoflGroup(LazyGroup):
    """The `rofl` group: its commands' usage errors, interruptions and closed pipes end as one line and a code."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; with -v its duration is logged when it ends (exits included)."""
        import logging
        import time

        start = time.perf_counter()
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # the reader went away (`| head`): click would say exit 1
            _silence_stdout()
            sys.exit(EXIT_BROKEN_PIPE)
        finally:
            logging.getLogger(__name__).info(
                "rofl %s: %.3f s", ctx.invoked_subcommand or "", time.perf_counter() - start
            )

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run a command; a usage error (bad flag, missing argument) is one line on stderr and exit 2.
        A reader that stops early (``rofl impact ... | head``) ends the command quietly with 141, as a
        process killed by SIGPIPE does in a shell, never a traceback or a misleading exit 1."""
        _configure_process()
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            result = self._main_guarded(args, prog_name, complete_var, **extra)
            sys.stdout.flush()
            return result
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(EXIT_BROKEN_PIPE)

    def _main_guarded(
        self, args: Sequence[str] | None, prog_name: str | None, complete_var: str | None, **extra: Any
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        # the REPL and `scan --watch` stay in the main thread, where Ctrl-C arrives
        if "repl" not in argv[:1] and not (argv[:1] == ["scan"] and "--watch" in argv):
            from .deep import run_deep

            try:
                return run_deep(lambda: self._main_standalone(argv, prog_name, complete_var, **extra))
            except KeyboardInterrupt:
                click.echo("rofl: interrupted", err=True)
                sys.exit(EXIT_INTERRUPTED)
        return self._main_standalone(argv, prog_name, complete_var, **extra)

    def _main_standalone(self, args: list[str], prog_name: str | None, complete_var: str | None, **extra: Any) -> Any:
        try:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "rofl"
            click.echo(f"{where}: {exc.format_message().rstrip('.')}; see `{where} --help`", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            click.echo(f"rofl: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # click's word for Ctrl-C in the main thread
                click.echo("rofl: interrupted", err=True)  # (`scan --watch`'s second Ctrl-C): 128 + SIGINT
                sys.exit(EXIT_INTERRUPTED)
            click.echo("rofl: aborted", err=True)
            sys.exit(1)


EXIT_INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a command stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush finds no closed pipe to report."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _configure_process() -> None:
    """The command line prints any integer and any file name (undecodable bytes pass through)."""
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="surrogateescape")
            except (ValueError, OSError):
                pass


# the distributions whose versions decide the scanner's output (scanner/versions.py records the same
# three in each manifest); read from package metadata here because `--version` imports no scanner
# module and never tree-sitter itself
GRAMMAR_DISTRIBUTIONS = ("tree-sitter", "tree-sitter-javascript", "tree-sitter-typescript")


def version_text() -> str:
    """``rofl, version X`` and one ``NAME VERSION`` line per grammar distribution."""
    from importlib import metadata

    lines = [f"rofl, version {__version__}"]
    for dist in GRAMMAR_DISTRIBUTIONS:
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            version = "missing"
        lines.append(f"{dist} {version}")
    return "\n".join(lines)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(version_text())
    ctx.exit()


EPILOG = (
    "\b\nExit codes: 0 answers (or success), 1 no answer (or findings), 2 user error, 3 partial (a budget ran out).\n\n"
    "\b\nExamples:\n"
    "  rofl scan examples/shop --out facts/generated\n"
    "  rofl ask 'in_cycle[code](F)' --facts facts/generated\n"
    "  rofl relations --facts facts/generated"
)


@click.group(
    cls=RoflGroup,
    table=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=EPILOG,
    params=[verbose_option()],
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version of rofl and of the tree-sitter grammars, and exit.",
)
def main() -> None:
    """rofl: turn a JS/TS repository into facts and answer questions about them with proof."""


if __name__ == "__main__":  # python -m rofl.cli
    main()
