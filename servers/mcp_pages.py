"""Bounded MCP answers: a command's JSON answer cut to pages an agent's context holds, with totals and a cursor.

Every list at the top of an answer (impact's ``affected`` and ``files``, ask's ``answers``, cycles'
``components``, audit's ``findings``, and the lists of a top-level object such as audit's ``audits``)
is a page: items ``offset`` to ``offset + limit``; ``page.totals`` gives each list's full length and
``page.next_cursor`` the cursor that asks the same call for the next items.  A list deeper in (an
affected file's ``via``, a component's ``cycles``) is cut at ``limit`` items, and the object holding it
names the full length in ``truncated``.  A page is at most ``limit * 800`` bytes of JSON: one over
that is made again with half as many items (``page.limit`` says how many it holds).  A proof tree (why, whynot) keeps its first ``limit * 2`` nodes
breadth first; a node whose children were left out says how many in ``elided``.  A cursor is the
offset and a digest of the call's other arguments: it is refused for another call, so the pages of one
answer are never mixed with another's.  impact's answer gets a summary by package (counted over every
affected file, not the page): the workspace package holding each file, or its top folder when none does.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
TREE_NODES_PER_ITEM = 2  # a why tree keeps limit * this many nodes
BYTES_PER_ITEM = 800  # a page is at most limit * this many bytes of JSON (40 KB at the default limit)


class BadCursor(ValueError):
    """A cursor that is not one this server gave for the same call."""


@dataclass(frozen=True, slots=True)
class Paging:
    """Which page of an answer a call asks for: the first item's index and the number of items per list."""

    offset: int
    limit: int
    digest: str  # the call's arguments but limit and cursor: a cursor is good for the same call only


def call_digest(tool: str, arguments: Mapping[str, Any]) -> str:
    """A short digest of the call: the tool and its arguments but ``limit`` and ``cursor``."""
    kept = {k: v for k, v in arguments.items() if k not in ("limit", "cursor")}
    text = json.dumps([tool, kept], sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def paging(tool: str, arguments: dict[str, Any]) -> Paging:
    """Take ``limit`` and ``cursor`` out of ``arguments`` (the command never sees them); BadCursor or
    ValueError (one line) when either is wrong."""
    limit = arguments.pop("limit", DEFAULT_LIMIT)
    cursor = arguments.pop("cursor", None)
    if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"{tool}: 'limit' must be an integer from 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})")
    digest = call_digest(tool, arguments)
    if cursor is None:
        return Paging(0, limit, digest)
    if not isinstance(cursor, str):
        raise BadCursor(f"{tool}: 'cursor' must be the string a previous answer gave as page.next_cursor")
    try:
        offset_text, given = base64.urlsafe_b64decode(cursor.encode("ascii") + b"==").decode("ascii").split(":")
        offset = int(offset_text)
    except (ValueError, UnicodeError):
        raise BadCursor(
            f"{tool}: 'cursor' {cursor[:40]!r} is not one this server gave; drop it to start over"
        ) from None
    if given != digest or offset < 0:
        raise BadCursor(
            f"{tool}: this cursor belongs to a call with other arguments; repeat that call's arguments with it, "
            "or drop it to start over"
        )
    return Paging(offset, limit, digest)


def cursor_for(offset: int, digest: str) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{digest}".encode("ascii")).decode("ascii").rstrip("=")


def _cut_nested(value: Any, limit: int) -> Any:
    """``value`` with every list in it cut at ``limit`` items; an object names its cut lists' lengths in ``truncated``."""
    if isinstance(value, list):
        return [_cut_nested(item, limit) for item in value[:limit]]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    truncated: dict[str, int] = {}
    for key, item in value.items():
        if isinstance(item, list) and len(item) > limit:
            truncated[key] = len(item)
        out[key] = _cut_nested(item, limit)
    if truncated:
        out["truncated"] = truncated
    return out


def _tree(node: dict[str, Any], nodes: int) -> dict[str, Any]:
    """A proof tree's first ``nodes`` nodes, breadth first; a node with children left out says how many in ``elided``."""
    root = {k: v for k, v in node.items() if k != "children"}
    queue: list[tuple[dict[str, Any], dict[str, Any]]] = [(node, root)]
    kept = 1
    while queue:
        source, copy = queue.pop(0)
        children = source.get("children")
        if not isinstance(children, list):
            continue
        shown: list[dict[str, Any]] = []
        for child in children:
            if kept >= nodes or not isinstance(child, dict):
                break
            twin = {k: v for k, v in child.items() if k != "children"}
            shown.append(twin)
            queue.append((child, twin))
            kept += 1
        copy["children"] = shown
        if len(shown) < len(children):
            copy["elided"] = sum(_count(c) for c in children[len(shown) :])
    return root


def _count(node: Any) -> int:
    if not isinstance(node, dict):
        return 1
    children = node.get("children")
    return 1 + (sum(_count(c) for c in children) if isinstance(children, list) else 0)


@dataclass(frozen=True, slots=True)
class Page:
    """One page of an answer: the cut answer, each top-level list's full length, and the next page's cursor."""

    output: Any
    totals: dict[str, int]
    next_cursor: str | None
    limit: int  # the items per list it holds: the limit asked, or less when that page was over its bytes

    def as_json(self, paging: Paging) -> dict[str, Any]:
        return {
            "offset": paging.offset,
            "limit": self.limit,
            "totals": self.totals,
            "next_cursor": self.next_cursor,
        }


def page(tool: str, output: Any, paging: Paging) -> Page:
    """The page of ``output`` that ``paging`` asks for (see the module's docstring), in at most
    ``BYTES_PER_ITEM * limit`` bytes of JSON: a page over that is made again with half the limit (as
    ``Page.limit`` says), until it fits or the limit is 1."""
    limit = paging.limit
    while True:
        cut = _page(tool, output, Paging(paging.offset, limit, paging.digest))
        if limit == 1 or len(json.dumps(cut.output, ensure_ascii=False)) <= BYTES_PER_ITEM * paging.limit:
            return cut
        limit = max(1, limit // 2)


def _page(tool: str, output: Any, paging: Paging) -> Page:
    if tool in ("why", "whynot") and isinstance(output, dict) and "children" in output:
        nodes = _count(output)
        return Page(_tree(output, paging.limit * TREE_NODES_PER_ITEM), {"nodes": nodes}, None, paging.limit)
    if not isinstance(output, dict):
        if isinstance(output, str) and len(output) > paging.limit * 400:
            return Page(output[: paging.limit * 400], {"characters": len(output)}, None, paging.limit)
        return Page(output, {}, None, paging.limit)
    start, stop = paging.offset, paging.offset + paging.limit
    totals: dict[str, int] = {}
    out: dict[str, Any] = {}
    for key, value in output.items():
        if isinstance(value, list):
            totals[key] = len(value)
            out[key] = [_cut_nested(item, paging.limit) for item in value[start:stop]]
        elif isinstance(value, dict) and any(isinstance(v, list) for v in value.values()):
            inner: dict[str, Any] = {}
            for name, item in value.items():
                if isinstance(item, list):
                    totals[f"{key}.{name}"] = len(item)
                    inner[name] = [_cut_nested(x, paging.limit) for x in item[start:stop]]
                else:
                    inner[name] = _cut_nested(item, paging.limit)
            out[key] = inner
        else:
            out[key] = _cut_nested(value, paging.limit)
    more = any(total > stop for total in totals.values())
    return Page(out, totals, cursor_for(stop, paging.digest) if more else None, paging.limit)


def package_summary(output: Any, workspace: Mapping[str, str] | None) -> list[dict[str, Any]] | None:
    """impact's affected files counted by package (all of them, not a page): the workspace package
    holding each (deepest folder), else its top folder with ``package`` null; the largest first.  None
    when the answer lists no affected files."""
    from rofl.questions.affected import package_of

    if not isinstance(output, dict) or not isinstance(output.get("affected"), list):
        return None
    packages = {k: v for k, v in (workspace or {}).items() if isinstance(v, str)}
    counts: dict[tuple[str | None, str], int] = {}
    for item in output["affected"]:
        path = item.get("file") if isinstance(item, dict) else item
        if not isinstance(path, str):
            continue
        name = package_of(path, packages)
        folder = (packages[name] or ".") if name is not None else (path.split("/")[0] if "/" in path else ".")
        counts[(name, folder)] = counts.get((name, folder), 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][1]))
    return [{"package": name, "folder": folder, "affected": n} for (name, folder), n in ranked]
