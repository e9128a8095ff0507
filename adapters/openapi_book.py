"""The book of an OpenAPI 3.0/3.1 description: one capability per operation (http_op, http_in, http_field, pages, secrets).

``book_text`` is what ``rofl adapter openapi SPEC [HOW[:NAME]=ENV ...]`` prints.  Per operation: a
capability (GET and HEAD are ``reads``, every other method ``does``), named after its operationId in
snake case; an argument per path parameter and per *required* query or header parameter and JSON body
field (the optional ones are listed in a comment, to add by hand); the answer columns from the 2xx JSON
response's row schema (an array's items, or the object itself; ``$ref``, ``allOf``, ``oneOf`` and
``anyOf`` followed), each with its JSON pointer.

Pagination, where the description says it: ``x-ms-pageable`` (its ``nextLinkName`` and ``itemName``); a
``Link`` response header (``link_header``); a ``next``-like URL property of the response
(``next_link``); a cursor query parameter beside a next-cursor property (``cursor``); else a ``page`` or
``offset`` query parameter.  The rows of a paged response are its array property (``items``, ``data``,
``results``, ...).

Secrets: each security scheme the operations use becomes ``http_auth`` (http bearer and basic, apiKey in a
header or the query, OAuth2 client credentials with its token URL, OAuth2 authorization code or OpenID
Connect as ``login`` at the issuer); ``HOW[:NAME]=ENV`` of the command line names the variable of the
scheme it matches, and a key no scheme matches is added for every operation.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rofl.engine.lexer import is_name
from rofl.engine.terms import quote

from .books import RESERVED_BOOKS, BookSourceError, Key
from .books import parse_key as parse_key  # its home is books.py; tests and scripts still ask for it here

METHODS = ("get", "head", "post", "put", "patch", "delete", "options")
READS = ("get", "head")
RESERVED_NAMES = frozenset(("not", "is", "mod", "want", "bridge"))  # words of the language
NEXT_LINKS = ("next", "nextLink", "next_link", "nextUrl", "next_url", "nextPage", "next_page_url", "@odata.nextLink")
CURSOR_PARAMS = ("cursor", "page_token", "pageToken", "after", "starting_after", "next_token", "continuation")
NEXT_CURSORS = (
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "cursor",
    "next_token",
    "nextToken",
    "continuation",
)
ROW_ARRAYS = ("items", "data", "results", "value", "entries", "records", "elements", "list")
MAX_DEPTH = 64  # $ref hops while resolving one schema


SpecError = BookSourceError  # an OpenAPI description (or a key of the command line) rofl cannot make a book of


@dataclass(frozen=True, slots=True)
class _Scheme:
    atom: str  # its name in the book
    how: str
    name: str
    env: str
    origin: str  # where it comes from, for the comment
    keyed: bool = False  # a key of the command line names its variable


class _Resolver:
    """``$ref`` inside the description (``#/...``), followed with a bound on hops."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec

    def __call__(self, node: Any) -> Any:
        hops = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#"):
                raise SpecError(f"$ref {ref!r}: rofl follows only references inside the description (#/...)")
            hops += 1
            if hops > MAX_DEPTH:
                raise SpecError(f"$ref {ref!r}: references loop")
            target: Any = self.spec
            for raw in ref[1:].split("/")[1:]:
                token = urllib.parse.unquote(raw).replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or token not in target:
                    raise SpecError(f"$ref {ref!r}: the description has nothing there")
                target = target[token]
            node = target
        return node


def _dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a description may hold anything anywhere)."""
    return value if isinstance(value, dict) else {}


def _type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):  # 3.1: ["string", "null"]
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and "properties" in schema:
        kind = "object"
    return kind if isinstance(kind, str) else None


def _flatten(resolve: _Resolver, node: Any, depth: int = 0) -> dict[str, Any]:
    """A schema with ``$ref`` resolved and ``allOf``/``oneOf``/``anyOf`` merged into one object's properties."""
    schema = resolve(node)
    if not isinstance(schema, dict):
        return {}
    if depth > MAX_DEPTH:
        return schema
    parts = [schema]
    for word in ("allOf", "oneOf", "anyOf"):
        if isinstance(schema.get(word), list):
            parts += [_flatten(resolve, p, depth + 1) for p in schema[word]]
    if len(parts) == 1:
        return schema
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k not in ("allOf", "oneOf", "anyOf")}
    props: dict[str, Any] = {}
    required: list[str] = []
    for part in parts:
        props.update({k: v for k, v in (part.get("properties") or {}).items() if k not in props})
        if isinstance(part.get("required"), list) and (part is schema or "allOf" in schema):
            required += [r for r in part["required"] if r not in required]
        if "type" not in merged and _type(part):
            merged["type"] = _type(part)
        if "items" not in merged and "items" in part:
            merged["items"] = part["items"]
    if props:
        merged["properties"], merged["type"] = props, merged.get("type") or "object"
    merged["required"] = required
    return merged


def snake(text: str) -> str:
    """``listPets`` -> ``list_pets``, ``get-pet by id`` -> ``get_pet_by_id``: a name of the language."""
    out = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    out = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", out)
    out = re.sub(r"[^A-Za-z0-9]+", "_", out).strip("_").lower()
    if not out or not out[0].isalpha():
        out = "x_" + out
    return out + "_" if out in RESERVED_NAMES else out


def _pointer(name: str) -> str:
    return "/" + name.replace("~", "~0").replace("/", "~1")


def _json_content(content: Any) -> Any:
    if not isinstance(content, dict):
        return None
    for media in ("application/json", *sorted(content)):
        if media in content and ("json" in media or media == "*/*"):
            return content[media]
    return None


def _arg_type(schema: Mapping[str, Any]) -> str:
    kind = _type(schema)
    if kind == "integer":
        return "number"
    if kind == "boolean":
        return "atom"
    if kind == "string":
        return "time" if schema.get("format") == "date-time" else "text"
    if kind in ("number", "array", "object"):
        return "json"
    return "text"


def _var(name: str) -> str:
    """A variable for a comment: ``pet_id`` -> ``PetId``."""
    text = "".join(part[:1].upper() + part[1:] for part in snake(name).split("_") if part)
    return text or "X"


class _Names:
    """Unique names within one book."""

    def __init__(self, taken: Sequence[str] = ()) -> None:
        self.taken = set(taken)

    def __call__(self, wanted: str) -> str:
        name, n = wanted, 1
        while name in self.taken:
            n += 1
            name = f"{wanted}_{n}"
        self.taken.add(name)
        return name


def book_text(
    spec: Any,
    source: str,
    *,
    keys: Sequence[Key] = (),
    book: str | None = None,
    base: str | None = None,
    prefix: str = "",
    spec_url: str | None = None,
) -> str:
    """The book of ``spec`` (the parsed description read from ``source``) as ROFL text; raises SpecError."""
    if not isinstance(spec, dict):
        raise SpecError(f"{source}: not an OpenAPI description (its top is not an object)")
    version = str(spec.get("openapi", ""))
    if not re.match(r"3\.[01]\.", version + "."):
        found = f"swagger {spec['swagger']}" if "swagger" in spec else f"openapi {version or '(none)'}"
        raise SpecError(f"{source}: {found}; rofl reads OpenAPI 3.0 and 3.1 (convert it first)")
    resolve = _Resolver(spec)
    info = _dict(spec.get("info"))
    title = str(info.get("title") or "api")
    name = book or snake(title)
    if not is_name(name) or name in RESERVED_BOOKS:
        raise SpecError(
            f"--book {name}: a book is named by an atom (a-z first) other than {', '.join(sorted(RESERVED_BOOKS))}"
        )
    address = _base_url(spec, source, base, spec_url)
    schemes = _schemes(spec, resolve, name, keys, address)
    extra = [s for s in schemes.values() if s.origin == "the command line"]
    lines = [
        f"-- The book of {quote(title)} {info.get('version', '')} (OpenAPI {version}), written by "
        "`rofl adapter openapi`; write it again when the API changes.",
        f"imports(main, {name}).",
        f"adapter({name}, openapi, {quote(address)}).",
    ]
    used: dict[str, _Scheme] = {}
    body: list[str] = []
    names = _Names()
    paths = _dict(spec.get("paths"))
    for path, raw_item in paths.items():
        item = resolve(raw_item)
        if not isinstance(item, dict) or not isinstance(path, str):
            continue
        for method in METHODS:
            op = resolve(item.get(method))
            if not isinstance(op, dict):
                continue
            wanted = snake(prefix + str(op.get("operationId") or f"{method}_{path}"))
            cap = names(wanted)
            needs = _needs(spec, op, schemes, extra)
            used.update({s.atom: s for s in needs})
            body += _operation(resolve, cap, name, method, path, item, op, needs)
    if not body:
        raise SpecError(f"{source}: the description has no operations under paths")
    for scheme in used.values():
        lines.append(f"-- {scheme.origin}" + (f"; set {scheme.env}" if scheme.env else ""))
        lines.append(f"http_auth({name}, {scheme.atom}, {scheme.how}, {quote(scheme.name)}, {quote(scheme.env)}).")
    return "\n".join(lines + body) + "\n"


def _base_url(spec: Mapping[str, Any], source: str, base: str | None, spec_url: str | None) -> str:
    if base is not None:
        url = base
    else:
        servers = spec.get("servers")
        server = servers[0] if isinstance(servers, list) and servers and isinstance(servers[0], dict) else {}
        url = str(server.get("url", "/"))
        variables = _dict(server.get("variables"))
        for var, decl in variables.items():
            if isinstance(decl, dict) and "default" in decl:
                url = url.replace("{" + str(var) + "}", str(decl["default"]))
        if not url.startswith(("http://", "https://")):
            if spec_url is None:
                raise SpecError(
                    f"{source}: its server URL {url!r} is not absolute; give the API's address with --base URL"
                )
            url = urllib.parse.urljoin(spec_url, url)
    if not url.startswith(("http://", "https://")) or "{" in url:
        raise SpecError(f"{url}: the API's address must be an http or https URL (give --base URL)")
    return url.rstrip("/") or url


def _schemes(
    spec: Mapping[str, Any], resolve: _Resolver, book: str, keys: Sequence[Key], address: str
) -> dict[str, _Scheme]:
    """The description's security schemes rofl can send (keyed by their name there), with the
    command line's keys; a key no scheme takes is a scheme of its own."""
    components = _dict(spec.get("components"))
    declared = _dict(components.get("securitySchemes"))
    out: dict[str, _Scheme] = {}
    free = list(keys)
    for scheme_name, raw in declared.items():
        decl = resolve(raw)
        if not isinstance(decl, dict):
            continue
        found = _how(decl, address)
        if found is None:
            continue
        how, wire = found
        key = next((k for k in free if k.how == how and (k.name is None or k.name == wire or not wire)), None)
        if key is not None:
            free.remove(key)
            wire = key.name if key.name is not None else wire
        atom = snake(str(scheme_name))
        env = key.env if key is not None else ("" if how == "login" else re.sub(r"\W", "_", f"{book}_{atom}").upper())
        out[str(scheme_name)] = _Scheme(
            atom, how, wire, env, f"security scheme {scheme_name!r} ({how})", key is not None
        )
    taken = _Names([s.atom for s in out.values()])
    for key in free:
        if key.how in ("header", "query", "client_credentials", "login") and not key.name:
            what = {"header": "the header", "query": "the query parameter", "client_credentials": "the token URL"}
            raise SpecError(f"{key.how}={key.env}: name {what.get(key.how, 'the issuer')}: {key.how}:NAME=ENV")
        atom = taken(key.how)
        out[f" {atom}"] = _Scheme(atom, key.how, key.name or "", key.env, "the command line", True)
    return out


def _how(decl: Mapping[str, Any], address: str) -> tuple[str, str] | None:
    """How rofl sends a security scheme, and its Name (header, parameter, token URL, issuer); None when it cannot."""
    kind = decl.get("type")
    if kind == "http":
        scheme = str(decl.get("scheme", "")).lower()
        return (scheme, "") if scheme in ("bearer", "basic") else None
    if kind == "apiKey" and decl.get("in") in ("header", "query") and isinstance(decl.get("name"), str):
        return str(decl["in"]), decl["name"]
    if kind == "oauth2" and isinstance(decl.get("flows"), dict):
        flows = decl["flows"]
        client = flows.get("clientCredentials")
        if isinstance(client, dict) and isinstance(client.get("tokenUrl"), str):
            return "client_credentials", urllib.parse.urljoin(address + "/", client["tokenUrl"])
        code = flows.get("authorizationCode")
        if isinstance(code, dict) and isinstance(code.get("authorizationUrl"), str):
            parts = urllib.parse.urlsplit(urllib.parse.urljoin(address + "/", code["authorizationUrl"]))
            return "login", f"{parts.scheme}://{parts.netloc}"
    if kind == "openIdConnect" and isinstance(decl.get("openIdConnectUrl"), str):
        url = decl["openIdConnectUrl"].split("/.well-known/", 1)[0]
        return "login", url
    return None


def _needs(
    spec: Mapping[str, Any], op: Mapping[str, Any], schemes: Mapping[str, _Scheme], extra: list
) -> list[_Scheme]:
    """The schemes an operation sends: the first alternative of its security requirement that the
    command line's keys cover (else the first rofl can send), and every key no scheme took."""
    required = op.get("security", spec.get("security", []))
    options = [r for r in required if isinstance(r, dict)] if isinstance(required, list) else []
    sendable = [[schemes[n] for n in opt] for opt in options if all(n in schemes for n in opt)]
    keyed = [opt for opt in sendable if opt and all(s.keyed for s in opt)]
    chosen = (keyed or sendable or [[]])[0]
    return [*chosen, *extra]


def _operation(
    resolve: _Resolver,
    cap: str,
    book: str,
    method: str,
    path: str,
    item: Mapping[str, Any],
    op: Mapping[str, Any],
    needs: Sequence[_Scheme],
) -> list[str]:
    """The declarations of one operation's capability."""
    params: dict[tuple[str, str], Mapping[str, Any]] = {}
    for raw in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
        param = resolve(raw)
        if (
            isinstance(param, dict)
            and isinstance(param.get("name"), str)
            and param.get("in") in ("path", "query", "header", "cookie")
        ):
            params[(param["name"], param["in"])] = param
    response, headers = _response(resolve, op)
    page, rows, row_schema = _paging(resolve, op, params, response, headers)
    paged = {page[1]} if page is not None and page[1] else set()
    args: list[tuple[str, str, str, str]] = []  # (arg name, type, wire name, in)
    optional: list[str] = []
    names = _Names()
    ordered = sorted(params.values(), key=lambda p: ("path", "query", "header", "cookie").index(p["in"]))
    for param in ordered:
        where = param["in"]
        if where == "path" or (param.get("required") and where != "cookie" and param["name"] not in paged):
            schema = _flatten(resolve, param.get("schema") or {})
            args.append((names(snake(param["name"])), _arg_type(schema), param["name"], where))
        elif param["name"] not in paged:
            optional.append(f"{where} {param['name']}" + (" (a cookie: not sent)" if where == "cookie" else ""))
    request = resolve(op.get("requestBody"))
    if isinstance(request, dict):
        content = _json_content(request.get("content"))
        schema = _flatten(resolve, content.get("schema") if isinstance(content, dict) else {})
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
        if props:
            required = set(schema.get("required") or [])
            for prop, sub in props.items():
                if prop in required:
                    args.append((names(snake(prop)), _arg_type(_flatten(resolve, sub)), prop, "body"))
                else:
                    optional.append(f"body field {prop}")
        elif content is not None and request.get("required"):
            args.append((names("body"), "json", "", "body"))
    if not args:  # a relation has at least one argument: one the request does not carry
        args.append((names("label"), "atom", "", "none"))
    columns = _columns(resolve, row_schema)
    klass = "reads" if method in READS else "does"
    summary = " ".join(str(op.get("summary") or op.get("description") or "").split())[:100]
    read = ", ".join(["W", *(_var(c) for c, _ in columns)])
    out = [
        "",
        f"-- {method.upper()} {path}" + (f": {summary}" if summary else ""),
        f"-- want {cap}({', '.join(_var(a[0]) if a[3] != 'none' else 'now' for a in args)}) :- ...   "
        f"then read {cap}[{book}]({read})",
        f"capability({cap}, {book}, {klass}).",
        f"http_op({cap}, {quote(method.upper())}, {quote(path)}).",
    ]
    for pos, (arg, kind, wire, where) in enumerate(args, 1):
        out.append(f"arg({cap}, {pos}, {arg}, {kind}).")
        out.append(f"http_in({cap}, {pos}, {quote(wire)}, {where}).")
    if optional:
        out.append(f"-- optional, not arguments (add arg and http_in to send one): {', '.join(optional)}")
    out.append(f"answers({cap}, {cap}, {len(columns) + 1}).")
    for col, (_, ptr) in enumerate(columns, 2):
        out.append(f"http_field({cap}, {col}, {quote(ptr)}).")
    if rows is not None:
        out.append(f"http_rows({cap}, {quote(rows)}).")
    if page is not None:
        out.append(f"http_page({cap}, {page[0]}, {quote(page[1])}, {quote(page[2])}).")
    out += [f"http_needs({cap}, {s.atom})." for s in needs]
    return out


def _response(resolve: _Resolver, op: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The JSON schema of the first 2xx response (or None) and that response's headers."""
    # YAML reads an unquoted 200 as an integer: the codes as text
    responses = {str(code): value for code, value in _dict(op.get("responses")).items()}
    for code in sorted(c for c in responses if c.startswith("2")):
        response = resolve(responses[code])
        if not isinstance(response, dict):
            continue
        headers = _dict(response.get("headers"))
        media = _json_content(response.get("content"))
        if isinstance(media, dict) and "schema" in media:
            return _flatten(resolve, media["schema"]), headers
        return None, headers
    return None, {}


def _paging(
    resolve: _Resolver,
    op: Mapping[str, Any],
    params: Mapping[tuple[str, str], Mapping[str, Any]],
    response: dict[str, Any] | None,
    headers: Mapping[str, Any],
) -> tuple[tuple[str, str, str] | None, str | None, dict[str, Any] | None]:
    """(style, param, pointer) of the operation's pagination or None, the rows pointer or None, and the
    schema of one row (None: no JSON response)."""
    if response is None:
        return None, None, None
    kind = _type(response)
    props = _dict(response.get("properties"))
    query = [name for name, where in params if where == "query"]
    numbered = next(((s, s, "") for s in ("page", "offset") if s in query), None)
    link_header = ("link_header", "", "") if any(str(h).lower() == "link" for h in headers) else None
    pageable = op.get("x-ms-pageable")
    if isinstance(pageable, dict):
        item = str(pageable.get("itemName") or "value")
        link = pageable.get("nextLinkName")
        page = ("next_link", "", _pointer(str(link))) if isinstance(link, str) and link else None
        return page, _pointer(item), _items(resolve, props.get(item))
    if kind == "array":
        return link_header or numbered, None, _items(resolve, response.get("items"))
    if kind != "object":
        return None, None, response
    arrays = [p for p, sub in props.items() if _type(_flatten(resolve, sub)) == "array"]
    array_prop = next((p for p in ROW_ARRAYS if p in arrays), arrays[0] if len(arrays) == 1 else None)
    link = next((p for p in NEXT_LINKS if p in props), None)
    cursor_param = next((p for p in CURSOR_PARAMS if p in query), None)
    cursor = next((p for p in NEXT_CURSORS if p in props), None)
    page = link_header
    if page is None and link is not None:
        page = ("next_link", "", _pointer(link))
    if page is None:
        for holder in ("links", "_links", "meta", "pagination"):
            inner = _flatten(resolve, props.get(holder) or {}).get("properties") or {}
            found = next((p for p in NEXT_LINKS if p in inner), None)
            if found is not None:
                page = ("next_link", "", _pointer(holder) + _pointer(found))
                break
    if page is None and cursor_param is not None and cursor is not None:
        page = ("cursor", cursor_param, _pointer(cursor))
    if page is None and array_prop is not None:
        page = numbered
    if page is None:
        return None, None, response
    if array_prop is None:
        return page, None, response
    return page, _pointer(array_prop), _items(resolve, props.get(array_prop))


def _items(resolve: _Resolver, node: Any) -> dict[str, Any]:
    schema = _flatten(resolve, node or {})
    if _type(schema) == "array":
        return _flatten(resolve, schema.get("items") or {})
    return schema


def _columns(resolve: _Resolver, schema: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(name, JSON pointer) of each answer column of a row: its properties in order, or the whole row."""
    if schema is None:
        return []
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
    if not props:
        return [("value", "")]
    return [(str(prop), _pointer(str(prop))) for prop in props]
