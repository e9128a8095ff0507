"""`rofl executions list|get|start|cancel|events|protocol --server URL`: the executions of a running `rofl server`.

Each subcommand is one operation of the plane (``rofl.servers.protocol.OPERATIONS``) called over the
server's HTTP routes, so it answers what HTTP and MCP answer.  The URL is the user's (--server, or
``ROFL_SERVER_URL``; http or https only); the bearer token is ``ROFL_SERVER_TOKEN`` when set.  Standard
library only (``urllib``): the client needs none of the server's packages.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import click

from rofl.engine.base import events

from ..exits import Exit

# rofl.options' epilog layout, not imported: loading the kernel would cost this client half a second per call
# and it needs none of it


def examples(*lines: str, exit_codes: str) -> str:
    """A --help epilog laid out as ``rofl.loading.kernel.examples`` lays out every command's."""
    return "\b\n" + exit_codes + "\n\n\b\nExamples:\n" + "\n".join("  " + line for line in lines)


URL_ENV = "ROFL_SERVER_URL"
TOKEN_ENV = "ROFL_SERVER_TOKEN"
DEFAULT_URL = "http://127.0.0.1:8731"  # rofl server's default address
REFUSED = 409  # a refusal in the execution's state: exit 1, not a user error

EPILOG = examples(
    "rofl executions list --server http://127.0.0.1:8731",
    "rofl executions start scan --wait",
    "rofl executions cancel x3-1f2e3d4c",
    exit_codes="Exit codes: 0 answered, 1 refused in the execution's state (409: not cancellable, already "
    "ended, a scan running) or, with --wait, an execution that did not succeed, 2 user error (a bad call, "
    "no such execution, no server at the URL).",
)


@dataclass(frozen=True, slots=True)
class Client:
    """The server's address, its token, and how long a request may take."""

    url: str
    token: str | None
    timeout: float

    def request(self, method: str, path: str, body: Any = None, query: Mapping[str, Any] | None = None) -> Any:
        """The JSON answer of one call; exits with the server's one-line error when it refuses."""
        with self._open(method, path, body, query) as response:
            return json.loads(response.read().decode("utf-8"))

    def stream(self, path: str, after: int) -> Iterator[dict[str, Any]]:
        """The events of an event stream (Server-Sent Events) as they arrive, until the server ends it."""
        with self._open("GET", path, None, {"after": after} if after else None, timeout=None) as response:
            data: list[str] = []
            for raw in response:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].strip())
                elif not line and data:
                    yield json.loads("\n".join(data))
                    data = []

    def _open(
        self, method: str, path: str, body: Any, query: Mapping[str, Any] | None, timeout: float | None = -1.0
    ) -> Any:
        url = self.url.rstrip("/") + path
        if query:
            url += "?" + urllib.parse.urlencode(query, doseq=True)
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            return urllib.request.urlopen(
                request, timeout=self.timeout if timeout == -1.0 else timeout
            )  # http(s) only: checked
        except urllib.error.HTTPError as err:
            refused(err.code, _error_line(err))
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            _fail(f"no rofl server answers at {self.url} ({reason}); start `rofl server` or give --server URL")


def _error_line(err: urllib.error.HTTPError) -> str:
    try:
        answer = json.loads(err.read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, OSError):
        return f"HTTP {err.code}"
    message = answer.get("error") if isinstance(answer, dict) else None
    return message if isinstance(message, str) else f"HTTP {err.code}"


def refused(status: int, message: str) -> NoReturn:
    """The server's refusal as one line on stderr: exit 1 for a 409 (the execution's state), else 2."""
    click.echo(f"rofl executions: {message} (HTTP {status})", err=True)
    sys.exit(Exit.NO_ANSWER if status == REFUSED else Exit.USER_ERROR)


def _fail(message: str) -> NoReturn:
    click.echo(f"rofl executions: {message}", err=True)
    sys.exit(Exit.USER_ERROR)


def _path(name: str, ident: str | None = None) -> str:
    from rofl.servers.protocol import BY_NAME

    path = BY_NAME[name].path
    return path.replace("{id}", urllib.parse.quote(ident, safe="")) if ident is not None else path


def _print(value: Any, as_json: bool) -> None:
    click.echo(json.dumps(value, ensure_ascii=False) if as_json else json.dumps(value, indent=2, ensure_ascii=False))


def _server_options(fn: Any) -> Any:
    """--server and --timeout, taken by the group and by each subcommand (the subcommand's win), and -v."""
    from ..logs import verbose_option

    fn.__click_params__ = [*getattr(fn, "__click_params__", []), verbose_option()]
    fn = click.option(
        "--timeout", type=click.FloatRange(0.1, 3600), default=None, help="Seconds a request may take (default 60)."
    )(fn)
    return click.option(
        "--server",
        "url",
        default=None,
        metavar="URL",
        help=f"The rofl server (default ${URL_ENV}, else {DEFAULT_URL}); its token is ${TOKEN_ENV} when set.",
    )(fn)


@click.group("executions", epilog=EPILOG)
@_server_options
@click.pass_context
def command(ctx: click.Context, url: str | None, timeout: float | None) -> None:
    """The executions of a running `rofl server` (or `rofl mcp --http`): list them, read one, start, cancel,
    follow its events, or read the protocol (the commands, their schemas and cancellation, the event schema)."""
    ctx.obj = (url, timeout)


def _client(ctx: click.Context) -> Client:
    """The client of the server named on the subcommand, else on the group, else in the environment."""
    given = ctx.params.get("url"), ctx.params.get("timeout")
    outer = ctx.obj if isinstance(ctx.obj, tuple) else (None, None)
    url = given[0] or outer[0] or os.environ.get(URL_ENV) or DEFAULT_URL
    timeout = given[1] or outer[1] or 60.0
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("http", "https"):
        _fail(f"--server {url!r} is not an http:// or https:// URL; give the address `rofl server` prints")
    return Client(url, os.environ.get(TOKEN_ENV) or None, timeout)


JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print the server's JSON answer, one line.")


def _on_one(fn: Any) -> Any:
    """--server, --timeout, the execution's ID and --json, as the commands on one execution take them."""
    return _server_options(click.argument("ident", metavar="ID")(JSON_OPTION(click.pass_context(fn))))


@command.command("list")
@_server_options
@click.option(
    "--state", "states", multiple=True, type=click.Choice([events.RUNNING, *events.ENDS]), help="Only these states."
)
@click.option("--command", "commands", multiple=True, metavar="NAME", help="Only executions of this command.")
@click.option("--limit", type=click.IntRange(1, 256), default=None, help="Executions per page (default 50).")
@click.option("--cursor", default=None, help="next_cursor of the previous page.")
@JSON_OPTION
@click.pass_context
def list_command(
    ctx: click.Context,
    states: tuple[str, ...],
    commands: tuple[str, ...],
    limit: int | None,
    cursor: str | None,
    as_json: bool,
    url: str | None,
    timeout: float | None,
) -> None:
    """The executions the server keeps, newest first."""
    query: dict[str, Any] = {"state": list(states), "command": list(commands)}
    if limit is not None:
        query["limit"] = limit
    if cursor is not None:
        query["cursor"] = cursor
    page = _client(ctx).request("GET", _path("executions.list"), query=query)
    if as_json:
        _print(page, True)
        return
    for x in page["executions"]:
        args = json.dumps(x["args"], ensure_ascii=False) if x["args"] else ""
        click.echo(f"{x['id']}  {x['state']:<9}  {x['command']:<9}  {x['started_at']}  {args}".rstrip())
    shown = len(page["executions"])
    more = f"; the next page: --cursor {page['next_cursor']}" if page["next_cursor"] else ""
    click.echo(f"{shown} of {page['total']} execution(s){more}", err=True)


@command.command("get")
@_on_one
def get_command(ctx: click.Context, ident: str, as_json: bool, url: str | None, timeout: float | None) -> None:
    """One execution: its state, and its result, error or reason once it ended."""
    _print(_client(ctx).request("GET", _path("executions.get", ident)), as_json)


@command.command("start")
@_server_options
@click.argument("name", metavar="COMMAND")
@click.option("--args", "args_text", default="{}", metavar="JSON", help="The command's arguments as a JSON object.")
@click.option("--wait", is_flag=True, help="Wait for its end and print it as `get` does.")
@JSON_OPTION
@click.pass_context
def start_command(
    ctx: click.Context, name: str, args_text: str, wait: bool, as_json: bool, url: str | None, timeout: float | None
) -> None:
    """Start COMMAND on the server; print its id (with --wait: how it ended)."""
    try:
        args = json.loads(args_text)
    except json.JSONDecodeError as err:
        _fail(f"--args is not JSON ({err.msg} at column {err.colno}); give an object such as '{{\"jobs\": 1}}'")
    client = _client(ctx)
    started = client.request("POST", _path("executions.start"), {"command": name, "args": args})
    if not wait:
        click.echo(json.dumps(started) if as_json else started["id"])
        return
    for _event in client.stream(_path("executions.events", started["id"]), 0):
        pass  # the stream ends with the execution
    view = client.request("GET", _path("executions.get", started["id"]))
    _print(view, as_json)
    if view["state"] == "succeeded":
        sys.exit(view["result"].get("exit_code", 0) if isinstance(view.get("result"), dict) else 0)
    sys.exit(Exit.NO_ANSWER)


@command.command("cancel")
@_on_one
def cancel_command(ctx: click.Context, ident: str, as_json: bool, url: str | None, timeout: float | None) -> None:
    """Ask an execution to stop at its next safe point; refused (exit 1) when it cannot be cancelled."""
    answer = _client(ctx).request("DELETE", _path("executions.cancel", ident))
    if as_json:
        _print(answer, True)
    else:
        click.echo(f"{answer['id']}: cancel requested; it stops at its next safe point (`get` says when)")


@command.command("events")
@_server_options
@click.argument("ident", metavar="ID")
@click.option("--after", type=click.IntRange(0), default=0, help="The last sequence number already read.")
@JSON_OPTION
@click.pass_context
def events_command(
    ctx: click.Context, ident: str, after: int, as_json: bool, url: str | None, timeout: float | None
) -> None:
    """Print an execution's events as they arrive, until it ends (each one JSON with --json)."""
    for event in _client(ctx).stream(_path("executions.events", ident), after):
        if as_json:
            click.echo(json.dumps(event, ensure_ascii=False))
        else:
            click.echo(f"{event['seq']:>5}  {event['type']:<9}  {json.dumps(event['data'], ensure_ascii=False)}")


@command.command("protocol")
@_server_options
@JSON_OPTION
@click.pass_context
def protocol_command(ctx: click.Context, as_json: bool, url: str | None, timeout: float | None) -> None:
    """The plane's operations, the commands with their cancellation, and the event schema (--json: all)."""
    described = _client(ctx).request("GET", _path("executions.protocol"))
    if as_json:
        _print(described, True)
        return
    for op in described["operations"]:
        click.echo(f"{op['command_line']:<30}  {op['http']:<32}  MCP {op['mcp_tool']}")
    for entry in described["commands"]:
        cancel = entry["cancel"]
        how = "cancellable" + (f" with {cancel['when']}" if cancel["when"] else "") if cancel["cancellable"] else ""
        click.echo(f"  {entry['name']:<10}  {'quick' if entry['quick'] else '':<5}  {how or 'not cancellable'}")
