"""Script blocks of single-file components (.vue, .svelte, .astro): where they are, which grammar parses them.

A component's scripts are handed to tree-sitter as the whole file with everything outside the
scripts blanked to spaces (newlines kept), so byte offsets and line numbers of the facts are those
of the original file.  Blocks that one grammar parses share one text (vue's ``<script>`` and
``<script setup>`` are parsed together when their ``lang`` agrees).

* ``<script>``, ``<script setup>``, ``<script context="module">``, ``<script module>``: the
  grammar comes from ``lang`` (``ts``/``typescript`` → typescript, ``tsx`` → tsx, ``jsx`` → tsx,
  anything else → javascript); Astro's scripts are TypeScript.
* Astro's ``---`` frontmatter at the top of the file (TypeScript).
* Scripts with a ``src`` attribute or a non-JavaScript ``type`` (``application/ld+json``, a
  template type) and scripts inside HTML comments are not code of the file and are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SFC_KINDS = frozenset({"vue", "svelte", "astro"})

_SCRIPT = re.compile(rb"<script\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)
_HTML_COMMENT = re.compile(rb"<!--.*?-->", re.DOTALL)
_ATTRIBUTE = re.compile(rb"([\w:@.-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+)))?")
_FRONTMATTER = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*---[ \t]*\r?\n(.*?)^---[ \t]*\r?$", re.DOTALL | re.MULTILINE)
_JS_TYPES = frozenset(
    {
        b"",
        b"module",
        b"text/javascript",
        b"application/javascript",
        b"text/typescript",
        b"application/typescript",
        b"module/typescript",
    }
)
_LANGS = {b"ts": "typescript", b"typescript": "typescript", b"tsx": "tsx", b"jsx": "tsx"}
# every byte but the line breaks becomes a space
_BLANK = bytes(b if b in b"\r\n" else 0x20 for b in range(256))


@dataclass(frozen=True, slots=True)
class ScriptBlock:
    """One script of a component: the byte range of its content and the grammar that parses it."""

    start: int
    end: int
    grammar: str


def _attributes(raw: bytes) -> dict[bytes, bytes]:
    found: dict[bytes, bytes] = {}
    for match in _ATTRIBUTE.finditer(raw):
        value = match.group(2) if match.group(2) is not None else match.group(3)
        if value is None:
            value = match.group(4) or b""
        found[match.group(1).lower()] = value.strip()
    return found


def script_blocks(data: bytes, kind: str) -> list[ScriptBlock]:
    """The script blocks of a ``vue``, ``svelte`` or ``astro`` file, in file order."""
    blocks: list[ScriptBlock] = []
    if kind == "astro":
        front = _FRONTMATTER.match(data)
        if front is not None:
            blocks.append(ScriptBlock(front.start(1), front.end(1), "typescript"))
    comments = [m.span() for m in _HTML_COMMENT.finditer(data)] if b"<!--" in data else []
    for match in _SCRIPT.finditer(data):
        start = match.start()
        if any(lo <= start < hi for lo, hi in comments):
            continue
        if blocks and start < blocks[-1].end:
            continue  # a "<script" inside the frontmatter's code
        attributes = _attributes(match.group(1))
        if b"src" in attributes or attributes.get(b"type", b"").lower() not in _JS_TYPES:
            continue
        lang = attributes.get(b"lang", b"").lower()
        grammar = "typescript" if kind == "astro" and not lang else _LANGS.get(lang, "javascript")
        blocks.append(ScriptBlock(match.start(2), match.end(2), grammar))
    return blocks


def blank_outside(data: bytes, blocks: list[ScriptBlock]) -> bytes:
    """``data`` with every byte outside ``blocks`` turned into a space, line breaks kept."""
    parts: list[bytes] = []
    at = 0
    for block in sorted(blocks, key=lambda b: b.start):
        parts.append(data[at : block.start].translate(_BLANK))
        parts.append(data[block.start : block.end])
        at = block.end
    parts.append(data[at:].translate(_BLANK))
    return b"".join(parts)


def script_texts(data: bytes, kind: str) -> list[tuple[str, bytes]]:
    """One (grammar, text) per grammar the file's scripts use; the text is the file with only them left."""
    by_grammar: dict[str, list[ScriptBlock]] = {}
    for block in script_blocks(data, kind):
        by_grammar.setdefault(block.grammar, []).append(block)
    return [(grammar, blank_outside(data, blocks)) for grammar, blocks in by_grammar.items()]
