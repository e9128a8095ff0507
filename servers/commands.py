"""The commands a server runs, read from the command line itself: names, JSON schemas, and argv from JSON.

There is no second registry of actions.  The table is ``rofl.cli.COMMANDS`` and each command's click
parameters: a server runs the commands that work over a fact folder (they take ``--facts``) and
``scan``; the JSON arguments of a call are that command's parameter names, checked against the
parameter's type and turned into the argv the command line would get.  An argument is named as on
the command line (``arg_name``): ``--tests`` is ``tests``, ``--git-base`` is ``git_base``.  The server sets what is its
own (the fact folder, the scanned folder, JSON output) and confines every path argument to the
configured folders.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import click

# commands with a --facts option that a server does not run, and why
NOT_SERVED = {
    "repl": "it reads commands from a terminal",
    "server": "it is a server",
    "mcp": "it is a server",
    "serve": "it is a server",
    "report": "it writes an HTML file; run it on the command line",
}
# parameters a client may not set, and why (the server's environment, or files written anywhere)
REFUSED = {
    "sign_key": "it names an environment variable of the server",
    "output": "the server writes no file but the scan's; read the answer instead",
    "write_baseline": "the server writes no file but the scan's; write the baseline on the command line",
    "store": "a saved store is not one of the configured folders' scans",
    "watch": "it never ends; start a scan execution after each change instead",
    # with no --allow, no adapter program (exec, a served world) ever starts in a server
    "allow": "the server keeps the default adapter policy (reads and shows, and no adapter programs); run it on the command line",
    "verbose": "the server's own log is set when it starts (rofl server -v)",
}
# path options a command only reads (confined to the configured folders); any other path option
# (one that writes, such as --output, or one a new command adds) is refused until it is listed here
READ_PATHS = ("files", "load_as", "rules", "src", "public_key", "baseline_file", "changed")
# integer arguments bounded for a client: a scan forks this many parser processes at most
MAX_INT = {"jobs": os.cpu_count() or 1}
# commands that answer synchronously as well (they only read the loaded store)
QUICK = ("ask", "why", "whynot", "impact", "relations")


@dataclass(frozen=True, slots=True)
class Cancellable:
    """A command's handler checks its cancel flag: where it stops, and (``when``) the one boolean argument
    under which it does (None: always).  A cancel that arrives after its last safe point changes nothing:
    the execution ends as it would have."""

    stops: str
    when: str | None = None

    def applies(self, args: Mapping[str, Any]) -> bool:
        return self.when is None or bool(args.get(self.when))

    def as_json(self) -> dict[str, Any]:
        return {"cancellable": True, "stops": self.stops, "when": self.when, "why_not": None}


# the served commands whose handlers check their cancel flag (engine.events' safe points); every other
# command runs to its end, and cancelling it is refused (HTTP 409) rather than answered and ignored
CANCELLABLE: Mapping[str, Cancellable] = {
    "scan": Cancellable(
        "between files and before the manifest is replaced: a cancelled scan leaves the previous scan as it was"
    ),
    "audit": Cancellable("between files of its re-extraction; the audit after it runs to its end", when="reextract"),
}
NOT_CANCELLABLE = "its handler checks no cancel flag (it reads the loaded store and answers); it runs to its end"
# a command that checks a flag only sometimes, too seldom to promise a cancel, and why
CANCEL_TOO_SELDOM = {
    "impact": "its handler checks a cancel flag only while a rescan parses files (most calls parse none) and "
    "never while it answers, so a cancel could not be kept; it runs to its end",
}


def cancel_refusal(command: str, args: Mapping[str, Any]) -> str | None:
    """Why an execution of ``command`` with ``args`` cannot be cancelled; None when its handler checks."""
    declared = CANCELLABLE.get(command)
    if declared is None:
        return f"{command} cannot be cancelled: {CANCEL_TOO_SELDOM.get(command, NOT_CANCELLABLE)}"
    if not declared.applies(args):
        return f"{command} cannot be cancelled without '{declared.when}': only its {declared.when} checks a cancel flag"
    return None


def cancellation(command: str) -> dict[str, Any]:
    """What the protocol says of ``command``'s cancellation."""
    declared = CANCELLABLE.get(command)
    if declared is None:
        why = CANCEL_TOO_SELDOM.get(command, NOT_CANCELLABLE)
        return {"cancellable": False, "stops": None, "when": None, "why_not": why}
    return declared.as_json()


# the positional arguments (click gives them no help text): what a client gives in each
ARGUMENT_HELP = {
    "query": "A query: one or more atoms, e.g. 'dependency[code](A, B)' (variables start with a capital letter).",
    "fact": 'One ground fact, e.g. \'dependency[code]("src/a.ts", "src/b.ts")\' (paths relative to the scanned folder).',
    "files": "Program files (.rofl) to load beside the scan's facts, inside the configured folders.",
}


def arg_name(param: click.Parameter) -> str:
    """The name a client gives ``param`` by: an option's long flag without its dashes (``--git-base``
    is ``git_base``, ``--tests`` is ``tests``), an argument's own name."""
    longs = [o for o in param.opts if o.startswith("--")] if isinstance(param, click.Option) else []
    if not longs:
        return param.name or ""
    return max(longs, key=len)[2:].replace("-", "_")


def refusal(command: str, param: click.Parameter) -> str | None:
    """Why a client may not set ``param`` of ``command``; None when it may."""
    key = param.name or ""
    if key in REFUSED:
        return REFUSED[key]
    if _is_path(param) and key not in READ_PATHS and not _server_set(command, param):
        return "it names a file the server would write, or one not known to be only read"
    return None


class BadRequest(ValueError):
    """A call the server refuses: one line saying what is wrong and how to fix it; ``status`` is its HTTP
    status (400 here, more precise in the subclasses), which every transport reports the same."""

    status: ClassVar[int] = 400


@dataclass(frozen=True, slots=True)
class Folders:
    """The configured folders: the scan (``facts``) and the sources it was scanned from (``src``)."""

    facts: Path
    src: Path | None

    def confine(self, command: str, name: str, value: str) -> str:
        """``value`` as an absolute path when it lies inside a configured folder; else BadRequest."""
        if "\0" in value:
            raise BadRequest(f"{command}: '{name}' holds a NUL character; give a path inside the configured folders")
        path = Path(os.path.realpath(value))
        for root in (self.facts, self.src):
            if root is not None and (path == root or root in path.parents):
                return str(path)
        raise BadRequest(
            f"{command}: '{name}' {value!r} lies outside the configured folders; give a path inside --facts or --src"
        )


def cli_command(name: str) -> click.Command:
    """The click command the command line runs for ``name`` (imported on first use)."""
    from rofl.cli import main

    command = main.get_command(click.Context(main), name)
    if command is None:
        raise BadRequest(f"unknown command {name!r}; known: {', '.join(served())}")
    return command


def served() -> tuple[str, ...]:
    """The commands a server runs: every command over a fact folder, and ``scan``."""
    from rofl.cli import COMMANDS, main

    out = []
    for name in sorted(COMMANDS):
        if name in NOT_SERVED:
            continue
        command = main.get_command(click.Context(main), name)
        if command is not None and (name == "scan" or any(p.name == "facts" for p in command.params)):
            out.append(name)
    return tuple(out)


def _server_set(name: str, param: click.Parameter) -> bool:
    """Parameters the server fills itself: the fact folder, the scan's folders, the output format."""
    return param.name in ("facts", "as_json", "fmt") or (name == "scan" and param.name in ("src", "out"))


def _is_path(param: click.Parameter) -> bool:
    return isinstance(param.type, click.Path) or getattr(param, "metavar", None) in ("PATH", "WHO FILE")


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema of ``name``'s arguments, derived from its click parameters."""
    command = cli_command(name)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in command.params:
        if param.name is None or _server_set(name, param) or refusal(name, param) is not None:
            continue
        prop = _param_schema(param)
        help_text = getattr(param, "help", None) or ARGUMENT_HELP.get(param.name)
        if help_text:
            prop["description"] = help_text
        properties[arg_name(param)] = prop
        if param.required and isinstance(param, click.Argument) and param.nargs == 1:
            required.append(arg_name(param))
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _param_schema(param: click.Parameter) -> dict[str, Any]:
    if getattr(param, "is_flag", False):
        return {"type": "boolean"}
    item = _type_schema(param.type)
    if param.nargs == 2:
        item = {"type": "array", "items": item, "minItems": 2, "maxItems": 2}
    if getattr(param, "multiple", False) or param.nargs == -1:
        return {"type": "array", "items": item}
    return item


def _type_schema(kind: click.ParamType) -> dict[str, Any]:
    if isinstance(kind, click.Choice):
        return {"type": "string", "enum": list(kind.choices)}
    if isinstance(kind, click.IntRange):
        out: dict[str, Any] = {"type": "integer"}
        if kind.min is not None:
            out["minimum"] = kind.min
        return out
    if isinstance(kind, click.types.IntParamType):
        return {"type": "integer"}
    return {"type": "string"}


@dataclass(frozen=True, slots=True)
class Invocation:
    """One checked call: the command, its argv (as the command line gets it), and its JSON arguments."""

    command: str
    argv: tuple[str, ...]
    args: Mapping[str, Any]
    json_output: bool
    scans: bool  # it may write the fact folder (a scan, or impact's rescan)

    @property
    def cancel_refusal(self) -> str | None:
        """Why this call cannot be cancelled (``cancel_refusal``); None when its handler checks its flag."""
        return cancel_refusal(self.command, self.args)


def invocation(name: Any, args: Any, folders: Folders) -> Invocation:
    """Check a call against the command's parameters and build its argv; BadRequest names what is wrong."""
    if not isinstance(name, str) or not name:
        raise BadRequest("'command' must be a command name such as \"impact\"")
    known = served()
    if name not in known:
        raise BadRequest(f"unknown command {name!r}; the server runs: {', '.join(known)}")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise BadRequest(f"{name}: 'args' must be a JSON object of the command's options")
    command = cli_command(name)
    params = {arg_name(p): p for p in command.params if p.name is not None}
    for key in args:
        why = REFUSED.get(key) or (refusal(name, params[key]) if key in params else None)
        if why is not None:
            raise BadRequest(f"{name}: '{key}' cannot be given to a server: {why}")
        if key not in params or (_server_set(name, params[key]) and key != "facts"):
            allowed = sorted(k for k, p in params.items() if not _server_set(name, p) and refusal(name, p) is None)
            raise BadRequest(f"{name}: unknown argument {key!r}; give one of: {', '.join(allowed)}")
    if "facts" in args and folders.confine(name, "facts", _text(name, "facts", args["facts"])) != str(folders.facts):
        raise BadRequest(f"{name}: 'facts' must be the server's fact folder {folders.facts} (or left out)")
    options: list[str] = []
    positional: list[str] = []
    json_output = False
    for param in command.params:
        key = param.name
        if key is None:
            continue
        given = arg_name(param)
        if key == "facts":
            options += ["--facts", str(folders.facts)]
            continue
        if key == "as_json":
            options.append("--json")
            json_output = True
            continue
        if key == "fmt" and isinstance(param.type, click.Choice) and "json" in param.type.choices:
            if "as_json" not in params:
                options += [_flag(param), "json"]
                json_output = True
            continue
        if name == "scan" and key in ("src", "out"):
            if key == "src":
                if folders.src is None:
                    raise BadRequest("scan: the server was started without --src; restart it with --src SRC to scan")
                positional.append(str(folders.src))
            else:
                options += ["--out", str(folders.facts)]
            continue
        if given not in args:
            continue
        values = _values(name, param, args[given], folders)
        if isinstance(param, click.Argument):
            positional += values
        elif getattr(param, "is_flag", False):
            if args[given]:
                options.append(_flag(param))
        else:
            step = 2 if param.nargs == 2 else 1
            for i in range(0, len(values), step):
                options += [_flag(param), *values[i : i + step]]
    missing = [p.name for p in command.params if isinstance(p, click.Argument) and p.required and p.name not in args]
    if missing and not (name == "scan" and missing == ["src"]):
        raise BadRequest(f"{name}: missing argument {missing[0]!r}; see GET /commands/{name} for its schema")
    scans = name == "scan" or (name == "impact" and not args.get("no_rescan") and not args.get("public_key"))
    return Invocation(name, (*options, "--", *positional), dict(args), json_output, scans)


def _flag(param: click.Parameter) -> str:
    return max(param.opts, key=len)


def _text(command: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadRequest(f"{command}: '{key}' must be a string")
    return value


def _values(command: str, param: click.Parameter, value: Any, folders: Folders) -> list[str]:
    """The argv words of one argument, type-checked; paths confined to the configured folders."""
    key = arg_name(param) or "?"
    if getattr(param, "is_flag", False):
        if not isinstance(value, bool):
            raise BadRequest(f"{command}: '{key}' must be true or false")
        return []
    many = getattr(param, "multiple", False) or param.nargs == -1
    items = value if many else [value]
    if many and not isinstance(value, list):
        raise BadRequest(f"{command}: '{key}' must be a list")
    words: list[str] = []
    for item in items:
        parts = item if param.nargs == 2 else [item]
        if param.nargs == 2 and not (isinstance(item, list) and len(item) == 2):
            raise BadRequest(f"{command}: each '{key}' must be a pair [{getattr(param, 'metavar', 'A B')}]")
        for i, part in enumerate(parts):
            words.append(
                _word(command, key, param, part, folders, path=_is_path(param) and (param.nargs != 2 or i == 1))
            )
    return words


def _word(command: str, key: str, param: click.Parameter, part: Any, folders: Folders, path: bool) -> str:
    kind = param.type
    if isinstance(kind, (click.IntRange, click.types.IntParamType)) and not getattr(param, "is_flag", False):
        if type(part) is not int:
            raise BadRequest(f"{command}: '{key}' must be an integer")
        if key in MAX_INT and part > MAX_INT[key]:
            raise BadRequest(f"{command}: '{key}' {part} is over {MAX_INT[key]} (this machine's cores); give fewer")
        return str(part)
    text = _text(command, key, part)
    if isinstance(kind, click.Choice) and text not in kind.choices:
        raise BadRequest(f"{command}: '{key}' must be one of {', '.join(map(str, kind.choices))}")
    if getattr(param, "metavar", None) == "PATH":  # a path relative to the scanned folder
        relative = text.replace("\\", "/")
        if relative.startswith("/") or ".." in relative.split("/") or "\0" in relative:
            raise BadRequest(
                f"{command}: '{key}' {text!r} leaves the scanned folder; give a path relative to it without '..'"
            )
        return text
    if path:
        return folders.confine(command, key, text)
    return text
