"""One served call of a question: its argv parsed by the command's click parameters, its options, its answer.

``servers.commands`` has checked the JSON call and built the argv the command line would get; click's
``make_context`` turns it into ``ctx.params`` (the same parsing, defaults and type checks as on the
command line); the question's ``Options.from_params`` and the question itself
(``rofl.questions.registry.QUESTIONS``) run with the session's source (``Session.source``: its loaded
kernel lent, its parsed manifest).  The result is the answer's JSON (``answer_json``), the exit code
``answer.status()``, and the lines the command line prints on stderr: the load warnings, then the
answer's notes.  A user error ends the call with its one line and its exit code, as on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from rofl.exits import USER_ERRORS, error_line
from rofl.questions.answer import answer_json

from .commands import cli_command

if TYPE_CHECKING:
    from rofl.questions.registry import Served

    from .commands import Invocation
    from .session import Session


@dataclass(frozen=True, slots=True)
class CommandResult:
    """How a command run ended (a command's, not the kernel's evaluate.Outcome): its exit code, its answer (parsed JSON, or the text it printed), stderr lines."""

    exit_code: int
    output: Any
    stderr: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "output": self.output, "stderr": list(self.stderr)}


def ask(served: Served, call: Invocation, session: Session) -> CommandResult:
    """Answer ``call`` with the question ``served`` over ``session``'s folder."""
    try:
        params = parsed(call)
        options = served.options.from_params(params)
    except click.UsageError as err:
        return CommandResult(2, "", (f"rofl {call.command}: {err.format_message()}",))
    except click.ClickException as err:
        return CommandResult(err.exit_code, "", (f"rofl: {err.format_message()}",))
    except USER_ERRORS as exc:
        line, code = error_line(exc)
        return CommandResult(code, "", _lines(line))
    with session.source(call.command) as source:
        try:
            answer = served.question(options, source)
            output = answer_json(answer)  # while the kernel is lent: nothing of the answer is read after
        except USER_ERRORS as exc:
            line, code = error_line(exc)
            return CommandResult(code, "", (*_warnings(source.warnings), *_lines(line)))
        return CommandResult(int(answer.status()), output, (*_warnings(source.warnings), *answer.notes))


def parsed(call: Invocation) -> dict[str, Any]:
    """The click params of ``call``'s argv, as the command line's parser makes them."""
    command = cli_command(call.command)
    with command.make_context(call.command, list(call.argv)) as ctx:
        return dict(ctx.params)


def _warnings(lines: list[str]) -> tuple[str, ...]:
    return tuple(f"warning: {line}" for line in lines)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line for line in text.splitlines() if line.strip())
