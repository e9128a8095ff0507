"""A loopback OpenAPI service for the openapi tests: a published spec, pages of every kind rofl follows
(``/gen/{style}``), 4xx/5xx, bearer, basic, API keys in a header and the query, and a client_credentials
token endpoint.

``running()`` starts it (Starlette on uvicorn in a thread, port 0) and stops it; ``Service.calls`` counts
the requests per path, ``Service.tokens`` the tokens issued, ``Service.seen`` every request's
path, Authorization header, query and raw path (so a test can say what was sent).
"""

from __future__ import annotations

import base64
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

BEARER = "bearer-tok-7d1f0c9b2a"
BASIC = ("admin", "pw-5e8a1b3c")
API_KEY = "key-9f3a77c1d2"
CLIENT = ("client-one", "client-secret-0a9b8c7d")
PETS = [
    {"id": i, "name": f"pet{i}", "tag": "dog" if i % 2 else "cat", "born": f"2020-01-0{i}T10:00:00+02:00"}
    for i in range(1, 8)
]


@dataclass
class Service:
    url: str = ""
    calls: dict = field(default_factory=dict)
    tokens: list = field(default_factory=list)  # issued, newest last
    revoked: set = field(default_factory=set)
    seen: list = field(default_factory=list)  # (path, authorization, query string, raw path)
    token_lifetime: int = 3600
    created: list = field(default_factory=list)
    refuse_all: bool = False  # /machine/whoami refuses every token
    elsewhere: str = ""  # the next link /wander answers with (another origin, in a test)
    items: list = field(default_factory=list)  # what /gen/{style} pages through, three a page


def spec(base: str) -> dict:
    """The service's OpenAPI 3.1 description."""
    pet = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "tag": {"type": ["string", "null"]},
            "born": {"type": "string", "format": "date-time"},
        },
    }
    bearer = [{"bearerAuth": []}]
    return {
        "openapi": "3.1.0",
        "info": {"title": "Pet Store", "version": "1.0.0"},
        "servers": [{"url": base}],
        "components": {
            "schemas": {"Pet": pet},
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer"},
                "basicAuth": {"type": "http", "scheme": "basic"},
                "keyHeader": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
                "keyQuery": {"type": "apiKey", "in": "query", "name": "api_key"},
                "machine": {
                    "type": "oauth2",
                    "flows": {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {}}},
                },
            },
        },
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "security": bearer,
                    "parameters": [
                        {"name": "tag", "in": "query", "required": True, "schema": {"type": "string"}},
                        {"name": "page", "in": "query", "schema": {"type": "integer"}},
                        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "a page of pets",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "items": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
                                            "next": {"type": ["string", "null"]},
                                        },
                                    }
                                }
                            },
                        }
                    },
                },
                "post": {
                    "operationId": "createPet",
                    "security": bearer,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["name", "tag"],
                                    "properties": {
                                        "name": {"type": "string"},
                                        "tag": {"type": "string"},
                                        "age": {"type": "integer"},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": {
                            "description": "made",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
                        }
                    },
                },
            },
            "/pets/{petId}": {
                "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "get": {
                    "operationId": "showPetById",
                    "security": bearer,
                    "responses": {
                        "200": {
                            "description": "a pet",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
                        }
                    },
                },
            },
            "/owners": {
                "get": {
                    "operationId": "listOwners",
                    "security": [{"basicAuth": []}],
                    "responses": {
                        "200": {
                            "description": "owners, paged by the Link header",
                            "headers": {"Link": {"schema": {"type": "string"}}},
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {"login": {"type": "string"}, "pets": {"type": "array"}},
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/toys": {
                "get": {
                    "operationId": "listToys",
                    "security": [{"keyHeader": []}],
                    "parameters": [{"name": "cursor", "in": "query", "schema": {"type": "string"}}],
                    "responses": {
                        "200": {
                            "description": "toys, paged by a cursor",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "data": {
                                                "type": "array",
                                                "items": {
                                                    "type": "object",
                                                    "properties": {
                                                        "toy": {"type": "string"},
                                                        "price": {"type": "number"},
                                                    },
                                                },
                                            },
                                            "next_cursor": {"type": ["string", "null"]},
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/keyed/{word}": {
                "get": {
                    "operationId": "echoWord",
                    "security": [{"keyQuery": []}],
                    "parameters": [{"name": "word", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {
                        "200": {
                            "description": "the word",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"word": {"type": "string"}}}
                                }
                            },
                        }
                    },
                }
            },
            "/machine/whoami": {
                "get": {
                    "operationId": "whoAmI",
                    "security": [{"machine": []}],
                    "responses": {
                        "200": {
                            "description": "me",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"client": {"type": "string"}}}
                                }
                            },
                        }
                    },
                }
            },
            "/status/{code}": {
                "get": {
                    "operationId": "status",
                    "security": [],
                    "parameters": [{"name": "code", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}
                                }
                            },
                        }
                    },
                }
            },
        },
    }


def app(service: Service):
    """The Starlette application of ``service``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def count(request: Request) -> None:
        path = request.url.path
        service.calls[path] = service.calls.get(path, 0) + 1
        raw = request.scope.get("raw_path", b"").decode("latin-1")
        service.seen.append((path, request.headers.get("authorization", ""), request.url.query, raw))

    def bearer_ok(request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {BEARER}"

    async def openapi(request: Request) -> Response:
        return JSONResponse(spec(str(request.base_url).rstrip("/")))

    async def pets(request: Request) -> Response:
        count(request)
        if not bearer_ok(request):
            return JSONResponse({"detail": "no bearer"}, status_code=401)
        if request.method == "POST":
            body = await request.json()
            made = {"id": 100 + len(service.created), "name": body["name"], "tag": body["tag"], "born": "2026-01-01"}
            service.created.append(body)
            return JSONResponse(made, status_code=201)
        tag = request.query_params.get("tag")
        page = int(request.query_params.get("page", "1"))
        chosen = [p for p in PETS if p["tag"] == tag]
        items = chosen[(page - 1) * 2 : page * 2]
        more = page * 2 < len(chosen)
        return JSONResponse({"items": items, "next": f"/pets?tag={tag}&page={page + 1}" if more else None})

    async def pet(request: Request) -> Response:
        count(request)
        if not bearer_ok(request):
            return JSONResponse({"detail": "no bearer"}, status_code=401)
        wanted = int(request.path_params["petId"])
        found = [p for p in PETS if p["id"] == wanted]
        return JSONResponse(found[0]) if found else JSONResponse({"detail": f"no pet {wanted}"}, status_code=404)

    async def owners(request: Request) -> Response:
        count(request)
        expected = "Basic " + base64.b64encode(":".join(BASIC).encode()).decode()
        if request.headers.get("authorization") != expected:
            return JSONResponse({"detail": "no"}, status_code=401, headers={"www-authenticate": "Basic"})
        page = int(request.query_params.get("p", "1"))
        rows = [{"login": f"o{page}a", "pets": [page]}, {"login": f"o{page}b", "pets": []}]
        headers = {"link": f'<{request.base_url}owners?p={page + 1}>; rel="next"'} if page < 3 else {}
        return JSONResponse(rows, headers=headers)

    async def toys(request: Request) -> Response:
        count(request)
        if request.headers.get("x-api-key") != API_KEY:
            return JSONResponse({"detail": "no key"}, status_code=403)
        cursor = request.query_params.get("cursor", "c0")
        n = int(cursor[1:])
        data = [{"toy": f"toy{n}", "price": 1.5 + n}, {"toy": f"toy{n}x", "price": 2}]
        return JSONResponse({"data": data, "next_cursor": f"c{n + 1}" if n < 2 else None})

    async def keyed(request: Request) -> Response:
        count(request)
        if request.query_params.get("api_key") != API_KEY:
            return JSONResponse({"detail": "no key"}, status_code=403)
        word = request.path_params["word"]
        if word == "echo-key":  # a hostile answer: the secret itself
            return JSONResponse({"word": request.query_params["api_key"]})
        return JSONResponse({"word": word})

    async def token(request: Request) -> Response:
        count(request)
        expected = "Basic " + base64.b64encode(":".join(CLIENT).encode()).decode()
        form = await request.form()
        if request.headers.get("authorization") != expected or form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        issued = "cc-" + secrets.token_hex(12)
        service.tokens.append(issued)
        return JSONResponse({"access_token": issued, "token_type": "Bearer", "expires_in": service.token_lifetime})

    async def whoami(request: Request) -> Response:
        count(request)
        auth = request.headers.get("authorization", "")
        live = service.tokens and auth.startswith("Bearer ") and auth[7:] in service.tokens
        if not live or auth[7:] in service.revoked or service.refuse_all:
            return JSONResponse({"detail": "token"}, status_code=401)
        if request.query_params.get("leak"):
            return JSONResponse({"client": auth[7:]})
        return JSONResponse({"client": "machine-7"})

    async def wander(request: Request) -> Response:
        count(request)
        return JSONResponse({"items": [{"id": 1}], "next": service.elsewhere or None})

    async def gen(request: Request) -> Response:
        count(request)
        style, q, size = request.path_params["style"], request.query_params, 3
        if style == "next_link":
            k = int(q.get("page", "1"))
            more = k * size < len(service.items)
            rows = service.items[(k - 1) * size : k * size]
            return JSONResponse({"items": rows, "next": f"/gen/next_link?page={k + 1}" if more else None})
        if style == "link_header":
            k = int(q.get("p", "0"))
            more = (k + 1) * size < len(service.items)
            headers = {"link": f'<?p={k + 1}>; rel="next", </gen/link_header>; rel="first"'} if more else {}
            return JSONResponse(service.items[k * size : (k + 1) * size], headers=headers)
        if style == "cursor":
            k = int(q.get("after", "0"))
            more = k + size < len(service.items)
            return JSONResponse({"data": service.items[k : k + size], "next_cursor": str(k + size) if more else ""})
        if style == "page":
            k = int(q.get("page", "1"))
            return JSONResponse(service.items[(k - 1) * size : k * size])
        k = int(q.get("offset", "0"))
        return JSONResponse(service.items[k : k + size])

    async def status(request: Request) -> Response:
        count(request)
        code = int(request.path_params["code"])
        if code == 299:
            return Response("not json at all", status_code=200, media_type="text/plain")
        return JSONResponse({"ok": code < 400, "detail": f"status {code}"}, status_code=code)

    return Starlette(
        routes=[
            Route("/openapi.json", openapi),
            Route("/pets", pets, methods=["GET", "POST"]),
            Route("/pets/{petId}", pet),
            Route("/owners", owners),
            Route("/toys", toys),
            Route("/keyed/{word}", keyed),
            Route("/oauth/token", token, methods=["POST"]),
            Route("/machine/whoami", whoami),
            Route("/status/{code}", status),
            Route("/wander", wander),
            Route("/gen/{style}", gen),
        ]
    )


@contextmanager
def running(service: Service | None = None) -> Iterator[Service]:
    """The service listening on 127.0.0.1 (a free port) for the ``with`` block."""
    import uvicorn

    service = service or Service()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no ~40 ms Nagle wait per response
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    service.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(app(service), log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    try:
        yield service
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
