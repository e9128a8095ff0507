"""`rofl adapter login ISSUER` and `rofl adapter logout ISSUER`: a person's OAuth login that `login` books send.

The flow is ``rofl.adapters.login_flow`` (authorization code with PKCE on a loopback port), the store
``rofl.adapters.logins``.  Nothing either command prints holds a token, a code, the verifier or a client
secret; a client secret, when the client has one, comes from an environment variable, never the command line.
"""

from __future__ import annotations

import os
import sys

import click

from ..exits import fail, user_errors
from ..options import examples

LOGIN_EPILOG = examples(
    "rofl adapter login https://auth.example.com",
    "rofl adapter login https://auth.example.com my-client-id --scope 'tickets:read'",
    "rofl adapter login http://127.0.0.1:9000 --no-browser",
    exit_codes="Exit codes: 0 logged in, 1 the server refused or no answer came, 2 user error.",
)
LOGOUT_EPILOG = examples(
    "rofl adapter logout https://auth.example.com",
    exit_codes="Exit codes: 0 logged out (or nobody was), 1 forgotten here but the server did not revoke, 2 user error.",
)
EXIT_REFUSED = 1


@click.command("login", epilog=LOGIN_EPILOG)
@click.argument("issuer")
@click.argument("client_arg", metavar="[CLIENT_ID]", required=False)
@click.option("--client-id", help="The client rofl is at the issuer (when it does not register clients itself).")
@click.option(
    "--client-secret-env",
    metavar="ENV",
    help="The environment variable holding the client's secret (a confidential client; most need none).",
)
@click.option("--scope", help="The scopes to ask for, separated by spaces.")
@click.option("--no-browser", is_flag=True, help="Print the address to open instead of opening a browser.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds to wait.")
@user_errors
def login_command(
    issuer: str,
    client_arg: str | None,
    client_id: str | None,
    client_secret_env: str | None,
    scope: str | None,
    no_browser: bool,
    timeout: float,
) -> None:
    """Log in to the OAuth 2.1 authorization server ISSUER in the browser, for the books whose
    `http_auth(Book, Scheme, login, "ISSUER", "")` sends your token. rofl reads the server's metadata,
    registers itself as a client when the server allows (else give CLIENT_ID), opens the login address (or
    prints it), takes the answer on a loopback port and keeps the tokens in ~/.config/rofl/logins.json
    ($ROFL_CONFIG_DIR), readable by you only; they are refreshed when they expire."""
    from rofl.adapters.login_flow import LoginRequest, Person, log_in
    from rofl.adapters.logins import save_login
    from rofl.adapters.oauth import LoginError, LoginUsage

    if client_arg and client_id and client_arg != client_id:
        fail(f"rofl adapter login: two client ids given ({client_arg}, --client-id {client_id}); give one")
    secret = None
    if client_secret_env:
        secret = os.environ.get(client_secret_env)
        if not secret:
            fail(
                f"rofl adapter login: --client-secret-env {client_secret_env}: the environment has no {client_secret_env}"
            )
    request = LoginRequest(issuer, client_arg or client_id, secret, scope, timeout)
    person = Person(say=_say, open_browser=_no_browser if no_browser else _browser, ask_client_id=_ask_client_id)
    try:
        login = log_in(request, person)
    except LoginUsage as err:
        fail(f"rofl adapter login: {err}")
    except LoginError as err:  # the server refused, could not be reached, or no answer came
        fail(f"rofl adapter login: {err}", EXIT_REFUSED)
    path = save_login(login, os.environ)
    if login.expires_at is None:
        lasts = ""
    elif login.refresh_token:
        lasts = "; the access token is refreshed when it expires"
    else:
        lasts = "; no refresh token: log in again when the access token expires"
    click.echo(f"logged in to {login.issuer} as client {login.client_id}; kept in {path}{lasts}")


@click.command("logout", epilog=LOGOUT_EPILOG)
@click.argument("issuer")
@user_errors
def logout_command(issuer: str) -> None:
    """Log out of ISSUER: revoke the tokens where the server has a revocation endpoint, then forget them."""
    from rofl.adapters.logins import forget_login, read_logins, revoke
    from rofl.adapters.oauth import issuer_key

    key = issuer_key(issuer)
    login = read_logins(os.environ).get(key)
    if login is None:
        click.echo(f"nobody is logged in to {key}")
        return
    trouble = revoke(login)
    forget_login(key, os.environ)
    if trouble is None:
        click.echo(f"logged out of {key}: the tokens were revoked and forgotten")
    elif login.revocation_endpoint is None:
        click.echo(f"logged out of {key}: the tokens were forgotten; {trouble}, so they stay valid until they expire")
    else:
        click.echo(f"logged out of {key}: the tokens were forgotten here, but revoking them failed: {trouble}")
        sys.exit(EXIT_REFUSED)


def _say(line: str) -> None:
    click.echo(line, err=True)


def _browser(url: str) -> object:
    import webbrowser

    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


def _no_browser(_url: str) -> object:
    return False


def _ask_client_id(issuer: str) -> str | None:
    if not sys.stdin.isatty():
        return None
    answer: str = click.prompt(f"{issuer} does not register clients itself; the client id rofl is there", err=True)
    return answer.strip() or None
