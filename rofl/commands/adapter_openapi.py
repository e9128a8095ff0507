"""`rofl adapter openapi SPEC [HOW[:NAME]=ENV ...]`: print the book of an OpenAPI 3.0/3.1 description.

SPEC is a file (JSON or YAML) or an http(s) URL, fetched once because the user named it (no redirect to
another origin, no credentials sent).  The book is ``rofl.adapters.openapi_book``'s: one capability per
operation, with its request, arguments, answer columns, pagination and the secrets it needs.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import click

from ..exits import fail
from ..options import examples

MAX_SPEC = 16 * 1024 * 1024  # bytes of a description
TIMEOUT_S = 30.0

EPILOG = examples(
    "rofl adapter openapi openapi.json > pets.rofl",
    "rofl adapter openapi https://api.example.com/openapi.yaml bearer=PETS_TOKEN > pets.rofl",
    "rofl adapter openapi spec.yaml --base http://127.0.0.1:8000 header:X-Api-Key=PETS_KEY",
    "rofl adapter openapi spec.json client_credentials=PETS_CLIENT login:https://auth.example.com",
    exit_codes="Exit codes: 0 the book was printed, 2 user error (an unreadable description, a bad key).",
)


@click.command("openapi", epilog=EPILOG)
@click.argument("spec")
@click.argument("keys", nargs=-1, metavar="[HOW[:NAME]=ENV]...")
@click.option("--book", "book", metavar="NAME", help="The book's name (default: the API's title in snake case).")
@click.option("--base", metavar="URL", help="The API's base URL (default: the description's first server).")
@click.option("--prefix", default="", metavar="TEXT", help="Put TEXT before every capability's name.")
def openapi_command(spec: str, keys: tuple[str, ...], book: str | None, base: str | None, prefix: str) -> None:
    """Print the book of the OpenAPI description SPEC (a file or URL): one capability per operation.

    GET and HEAD operations are reads, the others does. Each HOW[:NAME]=ENV names the environment
    variable of a secret (HOW is bearer, basic, header, query, client_credentials or login), e.g.
    bearer=API_TOKEN or header:X-Api-Key=API_KEY; its value is read when a want is sent, never printed.
    """
    from rofl.adapters.books import parse_key
    from rofl.adapters.openapi_book import SpecError, book_text

    try:
        parsed = [parse_key(k) for k in keys]
        is_url = spec.startswith(("http://", "https://"))
        document = _parse(_fetch(spec) if is_url else _read(spec), spec)
        text = book_text(
            document, spec, keys=parsed, book=book, base=base, prefix=prefix, spec_url=spec if is_url else None
        )
    except SpecError as exc:
        fail(f"rofl adapter openapi: {exc}")
    click.echo(text, nl=False)


def _read(path: str) -> bytes:
    from rofl.adapters.openapi_book import SpecError
    from rofl.engine.base.safe_write import UnsafePath, read_regular

    try:
        return read_regular(path, MAX_SPEC)
    except UnsafePath as exc:
        raise SpecError(f"{path}: {exc.strerror}") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot read it ({exc.strerror or exc}); give an OpenAPI file or URL") from None


def _fetch(url: str) -> bytes:
    from rofl.adapters.openapi_book import SpecError

    try:
        import httpx
    except ImportError:
        raise SpecError("reading a description from a URL needs httpx: pip install 'rofl[http]'") from None
    origin = urllib.parse.urlsplit(url)[:2]
    try:
        with httpx.Client(follow_redirects=False, trust_env=False, timeout=TIMEOUT_S) as client:
            for _ in range(5):  # redirects within the URL's own origin only
                response = client.get(url, headers={"accept": "application/json, application/yaml, */*"})
                if response.is_redirect and "location" in response.headers:
                    url = urllib.parse.urljoin(url, response.headers["location"])
                    if urllib.parse.urlsplit(url)[:2] != origin:
                        raise SpecError(f"{url}: the description redirects to another origin; give that URL itself")
                    continue
                break
    except httpx.HTTPError as exc:
        raise SpecError(f"{url}: cannot fetch it ({type(exc).__name__})") from None
    if response.status_code != 200:
        raise SpecError(f"{url}: answered {response.status_code} {response.reason_phrase}")
    if len(response.content) > MAX_SPEC:
        raise SpecError(f"{url}: the description is over {MAX_SPEC >> 20} MiB")
    return response.content


def _parse(raw: bytes, source: str) -> Any:
    from rofl.adapters.openapi_book import SpecError

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SpecError(f"{source}: not UTF-8 text") from None
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise SpecError(f"{source}: not JSON ({exc})") from None
    try:
        import yaml  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise SpecError(f"{source}: reading YAML needs PyYAML: pip install 'rofl[http]'") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SpecError(f"{source}: not JSON or YAML{where}") from None
