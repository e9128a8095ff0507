"""The openapi kind: each want one HTTP request (httpx) to the book's base URL, its pages followed, each JSON row one answer.

The book (``rofl adapter openapi SPEC`` writes it) says per capability the request (``http_op``), where
each argument goes (``http_in``: path, query, header or a body field), where the rows are
(``http_rows``), which JSON pointer fills each answer column (``http_field``) and how to page
(``http_page``: a next link in the body, the ``Link`` header, a cursor, a page number or an offset).

A status other than 2xx, a body that is not JSON, a page at another origin, a loop of pages or a
timeout (``adapter_timeout`` bounds each want: its requests and pages) fails that want with the reason
(the status first), never the round or the other wants; a connection the API refuses fails the wants of
the batch not yet sent.  Redirects are not followed and
no proxy or netrc of the environment is used: a request (and its credentials) goes to the book's
address and nowhere else.  Secrets are added by ``http_auth`` (tokens it fetches are kept out of every
answer and reason, as the variables are).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rofl.engine.terms import Term

from .batch import Batch, Reply
from .books import Capability, HttpOp
from .http_auth import Credentials, Failed, Held, HttpAuth
from .policy import HOST_CALL_FAILED, NO_MATCHING_ADAPTER, UNSUPPORTED_CAPABILITY, why
from .wants import Want

if TYPE_CHECKING:
    import httpx

    from .kinds import KindContext

MAX_BODY = 16 * 1024 * 1024  # bytes of one response
MAX_PAGES = 1000  # pages of one want
MAX_ROWS = 200_000  # answer rows of one want
USER_AGENT = "rofl-openapi"
_MISSING = object()


class _Fail(Exception):
    """One want's request failed; ``why`` is its reason (``batch``: the batch's remaining wants too)."""

    def __init__(self, reason: str, batch: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.batch = batch


class _Hold(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _QuietUrls(logging.Filter):
    """Keeps httpx's request lines (which hold the URL, and so a query secret) out of any log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("HTTP Request:")


class OpenApiAdapter:
    """Sends wants over one httpx client (keep-alive connections) for the whole session."""

    def __init__(self, context: KindContext) -> None:
        self.environ = context.environ
        self.requests = 0  # HTTP requests sent to APIs (token requests not counted)
        self._client: httpx.Client | None = None
        self._httpx: Any = None
        self._quiet = _QuietUrls()
        self.auth = HttpAuth(self._post_form)

    # -- the session's client ----------------------------------------------------------------------
    def _open(self) -> str | None:
        """Open the client once; the reason it cannot be (no httpx), or None."""
        if self._client is not None:
            return None
        try:
            import httpx
        except ImportError:
            return "the openapi kind needs httpx: pip install 'rofl[http]'"
        self._httpx = httpx
        logging.getLogger("httpx").addFilter(self._quiet)
        self._client = httpx.Client(
            follow_redirects=False,
            trust_env=False,
            headers={"user-agent": USER_AGENT, "accept": "application/json"},
        )
        return None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
            logging.getLogger("httpx").removeFilter(self._quiet)

    def _post_form(
        self, url: str, form: Mapping[str, str], basic: tuple[str, str], timeout: float
    ) -> tuple[int, bytes]:
        """A token request (``HttpAuth``'s ``post``): transport errors as OSError, without the URL's secrets."""
        assert self._client is not None
        try:
            response = self._client.post(url, data=dict(form), auth=basic, timeout=max(timeout, 0.001))
        except self._httpx.HTTPError as exc:
            raise OSError(type(exc).__name__) from None
        return response.status_code, response.content[:MAX_BODY]

    # -- a batch -------------------------------------------------------------------------------------
    def ask(self, batch: Batch) -> Reply:
        book, cap = batch.book, batch.cap
        problem = self._open()
        if problem is not None:
            return Reply.failing(batch.wants, why(NO_MATCHING_ADAPTER, f"adapter {book.name}: {problem}"))
        op = cap.http
        assert op is not None  # the kind's check refused the capability otherwise
        answers: dict[Want, tuple[tuple, ...]] = {}
        failed: dict[Want, str] = {}
        held: dict[Want, str] = {}
        unreachable: str | None = None
        for want, args in zip(batch.wants, batch.args):
            if unreachable is not None:
                failed[want] = unreachable
                continue
            try:
                # adapter_timeout bounds each want (its requests and pages), not the batch of many requests
                answers[want] = self._want(batch, op, args, time.monotonic() + book.timeout_s)
            except _Hold as exc:
                held[want] = exc.reason
            except _Fail as exc:
                failed[want] = exc.reason
                if exc.batch:
                    unreachable = exc.reason
        return self.auth.clean(batch.book.name, Reply(answers, failed, held))

    def _want(self, batch: Batch, op: HttpOp, args: dict, deadline: float) -> tuple[tuple, ...]:
        """One want's request and its pages, as answer rows; raises _Fail or _Hold."""
        httpx = self._httpx
        book, cap = batch.book, batch.cap
        label = f"adapter {book.name}: {op.method} {op.path}"
        base = httpx.URL(book.address)
        url, params, headers, body = _request(cap, op, args, book.address)
        rows: list[tuple] = []
        seen: set[tuple[str, tuple]] = set()
        renewed = False
        while True:
            if len(seen) >= MAX_PAGES:
                raise _Fail(why(HOST_CALL_FAILED, f"{label}: more than {MAX_PAGES} pages; narrow the want"))
            mark = (str(url), tuple(params))
            if mark in seen:
                raise _Fail(why(HOST_CALL_FAILED, f"{label}: the pagination repeats a page"))
            seen.add(mark)
            status, reason, data, response = self._send(batch, label, url, params, headers, body, deadline)
            if self.auth.send_again(status, cap.secrets, renewed):
                renewed = True  # a token the API no longer takes: fetched again, sent again, once
                seen.discard(mark)
                continue
            if not 200 <= status < 300:
                detail = _excerpt(data)
                raise _Fail(why(HOST_CALL_FAILED, f"{label} answered {status} {reason}{detail}"))
            page = _page_rows(cap, op, data, label)
            rows.extend(page)
            if len(rows) > MAX_ROWS:
                raise _Fail(why(HOST_CALL_FAILED, f"{label}: more than {MAX_ROWS:,} answer rows; narrow the want"))
            nxt = _next_page(op, data, response, url, params, page, label)
            if nxt is None:
                return tuple(dict.fromkeys(rows))
            url, params = nxt
            if not _same_origin(url, base):
                raise _Fail(
                    why(
                        HOST_CALL_FAILED,
                        f"{label}: the next page is at another origin ({url.scheme}://{url.host}); rofl sends "
                        f"requests only to {base.scheme}://{base.host}",
                    )
                )

    def _send(
        self,
        batch: Batch,
        label: str,
        url: httpx.URL,
        params: list[tuple[str, str]],
        headers: list[tuple[str, str]],
        body: object,
        deadline: float,
    ) -> tuple[int, str, object, httpx.Response]:
        """One request with the capability's credentials: (status, reason phrase, JSON body or _MISSING, response)."""
        httpx = self._httpx
        client = self._client
        assert client is not None
        cap = batch.cap
        op = cap.http
        assert op is not None
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: timed out after {batch.book.timeout_s:g} s"))
        creds = self.auth.credentials(cap.name, cap.secrets, self.environ, left)
        if isinstance(creds, Held):
            raise _Hold(creds.why)
        if isinstance(creds, Failed):
            raise _Fail(creds.why)
        assert isinstance(creds, Credentials)
        query = _merge(params, creds.params)
        sent_headers = [*headers, *creds.headers]
        kwargs: dict[str, Any] = {"headers": sent_headers}  # the query merged into the URL's own (a next link's)
        if body is not _MISSING:
            kwargs["json"] = body
        try:
            timeout = max(deadline - time.monotonic(), 0.001)
            request = client.build_request(op.method, url.copy_merge_params(tuple(query)), timeout=timeout, **kwargs)
            self.requests += 1
            response = client.send(request, stream=True)
        except httpx.ConnectError:
            raise _Fail(
                why(HOST_CALL_FAILED, f"adapter {batch.book.name}: {batch.book.address} accepts no connection"), True
            ) from None
        except httpx.TimeoutException:
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: timed out after {batch.book.timeout_s:g} s")) from None
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: {type(exc).__name__}")) from None
        try:
            raw = bytearray()
            for chunk in response.iter_bytes():
                raw += chunk
                if len(raw) > MAX_BODY:
                    raise _Fail(why(HOST_CALL_FAILED, f"{label}: the response is over {MAX_BODY >> 20} MiB"))
                if time.monotonic() > deadline:
                    raise _Fail(why(HOST_CALL_FAILED, f"{label}: timed out after {batch.book.timeout_s:g} s"))
        except httpx.TimeoutException:
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: timed out after {batch.book.timeout_s:g} s")) from None
        except httpx.HTTPError as exc:
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: the response broke off ({type(exc).__name__})")) from None
        finally:
            response.close()
        status = response.status_code
        data: object = _MISSING
        if raw.strip():
            try:
                data = json.loads(bytes(raw).decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                if not 200 <= status < 300:
                    data = bytes(raw[:400]).decode("utf-8", "replace")  # for the reason's excerpt
                elif (cap.answer_arity or 1) > 1 or op.rows is not None:
                    raise _Fail(
                        why(HOST_CALL_FAILED, f"{label} answered {status} with a body that is not JSON")
                    ) from None
        return status, response.reason_phrase, data, response


def make_adapter(context: KindContext) -> OpenApiAdapter:
    """The openapi kind's adapter for one session."""
    return OpenApiAdapter(context)


# -- requests ----------------------------------------------------------------------------------------
def _request(
    cap: Capability, op: HttpOp, args: dict, address: str
) -> tuple[httpx.URL, list[tuple[str, str]], list[tuple[str, str]], object]:
    """The URL, query, headers and JSON body (or _MISSING) of a want's first request."""
    import urllib.parse

    import httpx

    path = op.path
    params: list[tuple[str, str]] = []
    headers: list[tuple[str, str]] = []
    body: Any = _MISSING
    for arg, where in zip(cap.args, op.inputs):
        if where.where == "none":  # only the want's key
            continue
        value = args[arg.name]
        if arg.type == "atom" and where.where in ("body", "query"):
            value = {"true": True, "false": False, "null": None}.get(value, value)
        if where.where == "path":
            text = _text(value)
            if text in ("", ".", ".."):
                raise _Fail(
                    why(UNSUPPORTED_CAPABILITY, f"argument {arg.pos} ({arg.name}) is {text!r}, not a path segment")
                )
            path = path.replace("{" + where.name + "}", urllib.parse.quote(text, safe=""))
        elif where.where == "query":
            if value is None:
                continue
            for item in value if isinstance(value, list) else [value]:
                params.append((where.name, _text(item)))
        elif where.where == "header":
            text = _text(value)
            if any(ch in text for ch in "\r\n\0"):
                raise _Fail(
                    why(UNSUPPORTED_CAPABILITY, f"argument {arg.pos} ({arg.name}) holds a line break; no header can")
                )
            headers.append((where.name, text))
        elif where.name in ("", "/"):  # the whole body
            body = value
        else:
            if body is _MISSING:
                body = {}
            body[where.name] = value
    return httpx.URL(address.rstrip("/") + path), params, headers, body


def _text(value: object) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _merge(params: list[tuple[str, str]], extra: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    names = {name for name, _ in extra}
    return [p for p in params if p[0] not in names] + list(extra)


def _same_origin(url: httpx.URL, base: httpx.URL) -> bool:
    return (url.scheme, url.host, url.port) == (base.scheme, base.host, base.port)


def _excerpt(data: object) -> str:
    """A short, one-line excerpt of an error response's body (for the reason), or nothing."""
    if data is _MISSING or data is None:
        return ""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = " ".join(text.split())
    return f": {text[:200]}{'...' if len(text) > 200 else ''}"


# -- responses ---------------------------------------------------------------------------------------
def pointer(doc: object, ptr: str) -> object:
    """RFC 6901: the value ``ptr`` names inside ``doc``, or _MISSING."""
    if ptr == "":
        return doc
    node = doc
    for raw in ptr[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(token, _MISSING)
        elif isinstance(node, list) and token.isdigit() and (token == "0" or not token.startswith("0")):
            index = int(token)
            node = node[index] if index < len(node) else _MISSING
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def cell(value: object) -> Term:
    """A JSON value as an answer column: text, integer, true/false/null atoms, a fraction as text, an
    array or object as its JSON text (keys sorted)."""
    if value is None or value is _MISSING:
        return ("null",)
    if value is True or value is False:
        return ("true",) if value else ("false",)
    if isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else repr(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _page_rows(cap: Capability, op: HttpOp, data: object, label: str) -> list[tuple]:
    """The answer rows of one page: the items at ``http_rows`` (or the body), each through the fields."""
    if data is _MISSING:
        return []
    items = data if op.rows is None else pointer(data, op.rows)
    if items is _MISSING or items is None:
        return []
    if op.rows is not None and not isinstance(items, list):
        raise _Fail(why(HOST_CALL_FAILED, f"{label}: http_rows {op.rows!r} is not an array in the response"))
    listed = items if isinstance(items, list) else [items]
    return [tuple(cell(pointer(item, ptr)) for _, ptr in op.fields) for item in listed]


def _next_page(
    op: HttpOp,
    data: object,
    response: httpx.Response,
    url: httpx.URL,
    params: list[tuple[str, str]],
    page: list[tuple],
    label: str,
) -> tuple[httpx.URL, list[tuple[str, str]]] | None:
    """The next page's URL and query, or None at the last page."""
    spec = op.page
    if spec is None:
        return None
    if spec.style in ("next_link", "link_header"):
        if spec.style == "next_link":
            link = pointer(data, spec.pointer) if data is not _MISSING else _MISSING
        else:
            link = response.links.get("next", {}).get("url", _MISSING)
        if link is _MISSING or link is None or link == "":
            return None
        if not isinstance(link, str):
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: the next page's link is not text"))
        return url.join(link), []
    if spec.style == "cursor":
        cursor = pointer(data, spec.pointer) if data is not _MISSING else _MISSING
        if cursor is _MISSING or cursor is None or cursor == "" or cursor is False:
            return None
        if not isinstance(cursor, (str, int)):
            raise _Fail(why(HOST_CALL_FAILED, f"{label}: the next cursor at {spec.pointer!r} is not text"))
        return url, _merge(params, ((spec.param, str(cursor)),))
    if not page:  # page and offset: until a page has no rows
        return None
    if spec.style == "page":
        given = dict(params).get(spec.param)
        start = int(given) if given is not None and given.isdigit() else 1
        return url, _merge(params, ((spec.param, str(start + 1)),))
    given = dict(params).get(spec.param)
    start = int(given) if given is not None and given.isdigit() else 0
    return url, _merge(params, ((spec.param, str(start + len(page))),))
