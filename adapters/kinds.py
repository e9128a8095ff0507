"""The adapter kinds: one table of what each kind serves, whether it leaves this process, and how one is made.

Policy and rounds read this table and nothing else about kinds: a new kind is one ``Kind`` row here and a
module of its own with a class that has ``ask(batch) -> Reply`` (and, if it holds connections or processes,
``close()``).  A kind's module is imported only when a world uses it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .books import unmapped_columns
from .policy import CLASSES, NO_MATCHING_ADAPTER, UNSUPPORTED_CAPABILITY, is_files, why

if TYPE_CHECKING:
    from .batch import Batch, Reply
    from .books import Book, Capability
    from .rofl_kind import WorldFactory
    from .secrets import Scrubber


class Adapter(Protocol):
    """What a kind's adapter does: answer one batch of wants of one capability."""

    def ask(self, batch: Batch) -> Reply: ...


@dataclass(frozen=True, slots=True)
class KindContext:
    """What a session lends the adapters it makes: its environment, its secret scrubber, whether exec
    answers may be cached, and how a rofl world named by files is built."""

    environ: Mapping[str, str]
    scrubber: Scrubber
    use_cache: bool
    world_factory: WorldFactory | None


@dataclass(frozen=True, slots=True)
class Kind:
    """One adapter kind.  ``module``/``factory`` name the function ``(KindContext) -> Adapter`` that makes
    its adapter; ``stays_in_process(address)`` is true only for an adapter that opens nothing but files (deny
    by default: every other adapter starts a program or opens a socket, and needs ``--allow exec``);
    ``check(capability, book)`` says why a capability of this kind cannot be served, or None."""

    name: str
    classes: frozenset[str]
    module: str
    factory: str
    stays_in_process: Callable[[str], bool] = lambda _address: False
    check: Callable[[Capability, Book], str | None] = lambda _cap, _book: None

    def make(self, context: KindContext) -> Adapter:
        made: Any = getattr(importlib.import_module(f"{__package__}.{self.module}"), self.factory)(context)
        return made


def _sql_check(cap: Capability, _book: Book) -> str | None:
    if cap.query is None:
        return why(
            UNSUPPORTED_CAPABILITY, f'capability {cap.name} has no query({cap.name}, "SELECT ...") for its sql book'
        )
    return None


def _openapi_check(cap: Capability, book: Book) -> str | None:
    if not book.address.startswith(("http://", "https://")):
        return why(
            NO_MATCHING_ADAPTER, f'adapter {book.name}: an openapi address is the API\'s base URL, "https://..."'
        )
    if cap.http is None:
        return why(
            UNSUPPORTED_CAPABILITY,
            f'capability {cap.name} has no http_op({cap.name}, "GET", "/path") for its openapi book',
        )
    if cap.klass == "reads" and cap.http.method not in ("GET", "HEAD"):  # reads changes nothing outside
        return why(
            UNSUPPORTED_CAPABILITY,
            f"capability {cap.name} is reads, which sends only GET or HEAD; a {cap.http.method} is does",
        )
    return unmapped_columns(cap, cap.http.fields, "http_field")


def _mcp_check(cap: Capability, book: Book) -> str | None:
    from .mcp_kind import check  # the SDK itself is imported only when a batch is sent

    return check(cap, book)


def _render_check(cap: Capability, book: Book) -> str | None:
    from .render_kind import check

    return check(cap, book)


KINDS: Mapping[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("exec", frozenset(CLASSES), "exec_kind", "make_adapter"),
        Kind("sql", frozenset(("reads", "does")), "sql_kind", "make_adapter", lambda _a: True, _sql_check),
        # a rofl world only answers questions; a world named by files is evaluated here, a command is started
        Kind("rofl", frozenset(("reads",)), "rofl_kind", "make_adapter", is_files),
        # one HTTP request per want (it opens a socket: --allow exec); GET/HEAD are reads, others does
        Kind("openapi", frozenset(("reads", "does")), "openapi_kind", "make_adapter", check=_openapi_check),
        # one MCP tool call per want over one session with a server (a command it starts or a URL): --allow exec
        Kind("mcp", frozenset(("reads", "does")), "mcp_kind", "make_adapter", check=_mcp_check),
        # components shown to a person on the workbench (a page of `rofl server`, a terminal): drawn here
        Kind("render", frozenset(("shows",)), "render_kind", "make_adapter", lambda _a: True, _render_check),
    )
}


def runs_program(kind: str, address: str) -> bool:
    """Whether an adapter of ``kind`` at ``address`` starts a process or opens a socket (an unknown kind does)."""
    known = KINDS.get(kind)
    return known is None or not known.stays_in_process(address)
