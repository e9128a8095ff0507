"""Reading a dependency-cruiser config (`.dependency-cruiser.{js,cjs,mjs,json}`) and translating its rules to rofl rules.

`rofl audit` finds the config at the scan's source root (or takes ``--depcruise-config FILE``).  JSON,
and a ``.js``/``.cjs``/``.mjs`` file that is one ``module.exports = {...}`` / ``export default {...}``
object literal, are read without running anything (``parse_literal``: strings, ``+`` between strings,
numbers, booleans, null, arrays, objects, regex literals, comments, trailing commas).  Anything else
in a JS config is refused, naming the key it could not read; Node evaluates the file only with
``--allow-config-js`` (it is code from the repository: see README's security model).

``translate`` turns ``forbidden``, ``allowed`` (with ``allowedSeverity``) and ``required`` rules and
the ``options`` that change results into a rules text over the scan's ``[code]`` facts.  Each rule
becomes a ``rule(dc_N, Severity, Message)`` fact and ``violation[audit](dc_N, From, To)`` rules;
``Translation.names`` maps ``dc_N`` back to dependency-cruiser's rule name, which findings carry.
Paths are dependency-cruiser's: files relative to the cruise root, a package as ``node_modules/P``
(``P`` for a Node core module), an unresolvable specifier as written.  Regexes are JavaScript's,
translated to the ``matches`` builtin's (Python) syntax; what cannot be (look-around, back-references)
is refused for that rule.  A ``$1`` in ``to.path`` is expanded here: the ``from.path`` captures over
the scanned files give the values, and each value becomes a fact pairing it with its ``to`` regex.
What is not translated is one line per rule in ``Translation.untranslated``, never dropped silently.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rofl.engine.base.errors import RoflError
from rofl.engine.base.safe_write import read_regular
from rofl.engine.terms import quote

CONFIG_NAMES = (
    ".dependency-cruiser.json",
    ".dependency-cruiser.js",
    ".dependency-cruiser.cjs",
    ".dependency-cruiser.mjs",
)
MAX_CONFIG_BYTES = 4 * 1024 * 1024
SEVERITIES = {"error": "error", "warn": "warn", "info": "info"}


class ConfigError(RoflError):
    """A dependency-cruiser config that cannot be read (without running it)."""


@dataclass(frozen=True, slots=True)
class JSRegex:
    """A regular expression literal ``/source/flags`` of a JS config."""

    source: str
    flags: str = ""


@dataclass(frozen=True, slots=True)
class Translation:
    """The rofl rules a config translates to, and what could not be translated."""

    text: str
    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # dc_N -> (name, severity) as written
    untranslated: tuple[str, ...] = ()


# -- finding and reading the config -----------------------------------------------------------------


def find_config(root: str | Path) -> Path | None:
    """The dependency-cruiser config at ``root``, if there is one (JSON first, as dependency-cruiser's --init
    writes one kind).  It is repository content: a name that is no regular file, or a link whose real location
    is outside ``root``, is passed over (the config outside the tree is never read), as the scanner's
    configs are."""
    top = Path(root).resolve()
    for name in CONFIG_NAMES:
        p = Path(root) / name
        if p.is_file() and p.resolve().is_relative_to(top):
            return p
    return None


def read_config(path: str | Path, allow_js: bool = False) -> dict:
    """The config's value.  JSON and a JS object literal are parsed; Node runs a JS config only with ``allow_js``."""
    p = Path(path)
    try:  # a regular file only: a FIFO never blocks, /dev/zero is never read
        data = read_regular(p, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the dependency-cruiser config ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: the dependency-cruiser config is not UTF-8 text") from None
    if p.suffix == ".json":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{p}:{exc.lineno}: not valid JSON ({exc.msg}); fix the config") from None
    elif allow_js:
        value = _node_eval(p)
    else:
        value = read_module_literal(text, str(p))
    if not isinstance(value, dict):
        raise ConfigError(f"{p}: the config is not an object; dependency-cruiser expects {{forbidden: [...], ...}}")
    return value


def _node_eval(p: Path) -> object:
    """The config as Node evaluates it (only with --allow-config-js): JSON out, regexes as {"$regex", "flags"}."""
    script = (
        "const {pathToFileURL}=require('url');"
        "import(pathToFileURL(process.argv[1]).href).then(m=>{const c=(m&&m.default!==undefined)?m.default:m;"
        "process.stdout.write(JSON.stringify(c,(k,v)=>v instanceof RegExp?{$regex:v.source,flags:v.flags}:v))})"
        ".catch(e=>{process.stderr.write(String(e&&e.message||e));process.exit(1)})"
    )
    try:
        done = subprocess.run(
            ["node", "-e", script, str(p.resolve())],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=str(p.resolve().parent),
            check=False,
        )
    except FileNotFoundError:
        raise ConfigError(f"{p}: --allow-config-js needs Node (`node` is not on PATH)") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(f"{p}: Node did not finish evaluating the config in 60 s") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise ConfigError(f"{p}: Node could not evaluate the config: {first}")
    try:
        return _revive(json.loads(done.stdout))
    except json.JSONDecodeError:
        raise ConfigError(f"{p}: the config Node evaluated is not JSON-serialisable") from None


def _revive(value: object) -> object:
    if isinstance(value, dict):
        if set(value) == {"$regex", "flags"}:
            return JSRegex(str(value["$regex"]), str(value["flags"]))
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


# -- the JS object-literal subset ------------------------------------------------------------------


class _Unreadable(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_HEX = re.compile(r"[0-9a-fA-F]+")
_NUMBER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class _Parser:
    """A recursive-descent reader of a JS value literal; errors carry the key path being read."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.path: list[str] = []

    def where(self) -> str:
        return "".join(self.path).lstrip(".") or "the config"

    def fail(self, what: str) -> _Unreadable:
        return _Unreadable(what, self.pos)

    def code_point(self, digits: str, width: int | None = None) -> str:
        """The character an escape's hex ``digits`` name (exactly ``width`` of them when given)."""
        if not digits or (width is not None and len(digits) != width) or not _HEX.fullmatch(digits):
            raise self.fail("a malformed escape")
        value = int(digits, 16)
        if value > 0x10FFFF:
            raise self.fail("an escape past the last code point")
        return chr(value)

    def skip(self) -> None:
        t = self.text
        while self.pos < len(t):
            c = t[self.pos]
            if c in " \t\r\n\ufeff":
                self.pos += 1
            elif t.startswith("//", self.pos):
                end = t.find("\n", self.pos)
                self.pos = len(t) if end < 0 else end + 1
            elif t.startswith("/*", self.pos):
                end = t.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("an unterminated comment")
                self.pos = end + 2
            else:
                return

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise self.fail(f"expected {ch!r}")
        self.pos += 1

    def value(self) -> object:
        first = self.term()
        while self.peek() == "+":  # "a" + "b": the comments of dependency-cruiser's own configs
            self.pos += 1
            nxt = self.term()
            if not (isinstance(first, str) and isinstance(nxt, str)):
                raise self.fail("a '+' between values that are not both strings")
            first += nxt
        return first

    def term(self) -> object:
        c = self.peek()
        if not c:  # "" is in every string: never read past the end as a string or a number
            raise self.fail("the end of the file")
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c in "\"'`":
            return self.string()
        if c == "/":
            return self.regex()
        m = _NUMBER.match(self.text, self.pos)
        if m and c in "-.0123456789":
            self.pos = m.end()
            s = m.group(0)
            return (
                int(s, 16) if s.lower().startswith(("0x", "-0x")) else (float(s) if re.search("[.eE]", s) else int(s))
            )
        m = _IDENT.match(self.text, self.pos)
        if m:
            word = m.group(0)
            literal = {"true": True, "false": False, "null": None}
            if word in literal:
                self.pos = m.end()
                return literal[word]
            raise self.fail(f"{word!r} (a name or expression, not a literal)")
        raise self.fail(f"{c!r}")

    def obj(self) -> dict:
        out: dict = {}
        for c in self.members("{", "}"):
            if c in "\"'":
                key = self.string()
            else:
                m = _IDENT.match(self.text, self.pos) or re.compile(r"\d+").match(self.text, self.pos)
                if not m:
                    raise self.fail(f"{c!r} where a key was expected")
                key = m.group(0)
                self.pos = m.end()
            if self.peek() != ":":
                raise self.fail(f"key {key!r} without a ':' value (shorthand or a method)")
            self.pos += 1
            out[key] = self.member(f".{key}", "}")
        return out

    def arr(self) -> list:
        out: list = []
        for _ in self.members("[", "]"):
            out.append(self.member(f"[{len(out)}]", "]"))
        return out

    def members(self, open_: str, close: str) -> Iterator[str]:
        """Once per member of the object or array opening here with ``open_``, the character it starts with,
        until ``close`` (consumed; a spread is refused): the caller reads the member itself."""
        self.expect(open_)
        while (c := self.peek()) != close:
            if not c:  # cut short: never read past the end as a key or a string
                raise self.fail(f"the end of the file before its '{close}'")
            if self.text.startswith("...", self.pos):
                raise self.fail("a spread (...)")
            yield c
        self.pos += 1

    def member(self, step: str, close: str) -> object:
        """The value of an object's key or an array's item (``step`` of the key path: ``.key``, ``[2]``), and
        the ',' after it (or the ``close`` that ends the object or array, left for the caller)."""
        self.path.append(step)
        value = self.value()
        self.path.pop()
        c = self.peek()
        if c == ",":
            self.pos += 1
        elif c != close:
            raise self.fail(f"expected ',' or '{close}'")
        return value

    def string(self) -> str:
        t = self.text
        q = t[self.pos]
        self.pos += 1
        out: list[str] = []
        while True:
            if self.pos >= len(t):
                raise self.fail("an unterminated string")
            c = t[self.pos]
            if c == q:
                self.pos += 1
                return "".join(out)
            if q == "`" and t.startswith("${", self.pos):
                raise self.fail("a template literal with ${...}")
            if c == "\n" and q != "`":
                raise self.fail("a line break inside a string")
            if c == "\\":
                self.pos += 1
                e = t[self.pos : self.pos + 1]
                if e == "u":
                    if t.startswith("{", self.pos + 1):
                        end = t.find("}", self.pos)
                        out.append(self.code_point(t[self.pos + 2 : end] if end >= 0 else ""))
                        self.pos = end + 1
                    else:
                        out.append(self.code_point(t[self.pos + 1 : self.pos + 5], 4))
                        self.pos += 5
                    continue
                if e == "x":
                    out.append(self.code_point(t[self.pos + 1 : self.pos + 3], 2))
                    self.pos += 3
                    continue
                if e == "\n":  # a line continuation
                    self.pos += 1
                    continue
                out.append(_ESCAPES.get(e, e))
                self.pos += 1
                continue
            out.append(c)
            self.pos += 1

    def regex(self) -> JSRegex:
        t = self.text
        self.pos += 1
        start, in_class = self.pos, False
        while True:
            if self.pos >= len(t) or t[self.pos] == "\n":
                raise self.fail("an unterminated regular expression")
            c = t[self.pos]
            if c == "\\":
                self.pos += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                break
            self.pos += 1
        source = t[start : self.pos]
        self.pos += 1
        m = re.compile(r"[a-z]*").match(t, self.pos)
        flags = m.group(0) if m else ""
        self.pos += len(flags)
        return JSRegex(source, flags)


def parse_literal(text: str) -> object:
    """A JS value literal (the subset above) as Python values; ``ValueError`` naming the key and line otherwise."""
    p = _Parser(text)
    try:
        value = p.value()
        if p.peek():
            raise p.fail(f"{p.peek()!r} after the value")
    except _Unreadable as exc:
        line = text.count("\n", 0, exc.pos) + 1
        raise ValueError(f"{line}: {p.where()}: {exc.message}") from None
    return value


_EXPORT = re.compile(r"(?:module\s*\.\s*exports\s*=|export\s+default)\s*")


def read_module_literal(text: str, name: str = "the config") -> dict:
    """The object a ``module.exports = {...}`` / ``export default {...}`` file exports, read without running it."""
    hint = "pass --allow-config-js to let Node evaluate it (it runs code from the repository)"
    p = _Parser(text)
    try:
        p.skip()
        strict = re.compile(r"""(["'])use strict\1\s*;?""").match(text, p.pos)
        if strict:
            p.pos = strict.end()
            p.skip()
    except _Unreadable:
        pass
    m = _EXPORT.match(text, p.pos)
    if m is None:
        line = text.count("\n", 0, p.pos) + 1
        raise ConfigError(
            f"{name}:{line}: not a `module.exports = {{...}}` or `export default {{...}}` object literal; {hint}"
        )
    p.pos = m.end()
    try:
        value = p.value()
        if p.peek() == ";":
            p.pos += 1
        if p.peek():
            raise p.fail(f"{p.peek()!r} after the exported object")
    except _Unreadable as exc:
        line = text.count("\n", 0, exc.pos) + 1
        raise ConfigError(
            f"{name}:{line}: cannot read {_rule_key(p.where(), text, exc.pos)} without running it ({exc.message}); {hint}"
        ) from None
    if not isinstance(value, dict):
        raise ConfigError(f"{name}: the exported value is not an object; {hint}")
    return value


def _rule_key(value_path: str, body: str, pos: int) -> str:
    """``forbidden[2] ("no-x").to.path``: the key path, with the rule's name when it was written before."""
    m = re.match(r"(forbidden|allowed|required)\[(\d+)\](.*)", value_path)
    if not m:
        return value_path
    before = body[:pos]
    names = re.findall(r"""name\s*:\s*["']([^"']+)["']""", before)
    named = f' ("{names[-1]}")' if names else ""
    return f"{m.group(1)}[{m.group(2)}]{named}{m.group(3)}"


# -- JS regexes -------------------------------------------------------------------------------------


def js_regex(source: str, flags: str = "") -> str:
    """A JS regex in the ``matches`` builtin's syntax; ``ValueError`` saying what cannot be translated."""
    from rofl.engine.text_builtins import PatternError, regex

    if set(flags) - set("iu"):
        raise ValueError(f"regex flags {flags!r} (only i and u translate)")
    if re.search(r"\(\?<?[=!]", source):
        raise ValueError(f"look-around in {source!r}")
    if re.search(r"\\[1-9k]", source):
        raise ValueError(f"a back-reference in {source!r}")
    out = source.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!")
    out = out.replace("[^]", "[\\s\\S]")
    out = re.sub(r"\\c[A-Za-z]", lambda m: f"\\x{ord(m.group(0)[2].upper()) - 64:02x}", out)
    out = re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda m: f"\\U{int(m.group(1), 16):08x}", out)
    if "i" in flags:
        out = "(?i)" + out
    try:
        re.compile(out)
        regex(out)
    except (re.error, PatternError) as exc:
        raise ValueError(f"{source!r}: {exc}") from None
    return out


def _pattern(value: object) -> str:
    """A ``path``/``pathNot`` value (a string, a regex literal or an array of them) as one JS regex source."""
    if isinstance(value, JSRegex):
        return value.source
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, (str, JSRegex)) for v in value):
        return "|".join(_pattern(v) for v in value)
    raise ValueError(f"{value!r} is not a regex string or an array of them")


def _flags(value: object) -> str:
    return value.flags if isinstance(value, JSRegex) else ""


# -- translation ------------------------------------------------------------------------------------

EDGE_TO_KEYS = {
    "path",
    "pathNot",
    "dependencyTypes",
    "dependencyTypesNot",
    "circular",
    "couldNotResolve",
    "dynamic",
    "preCompilationOnly",
    "moreThanOneDependencyType",
}
MODULE_KEYS = {"path", "pathNot", "orphan", "numberOfDependentsLessThan", "numberOfDependentsMoreThan"}
DEPENDENCY_TYPES = {
    "local",
    "aliased",
    "core",
    "npm",
    "npm-dev",
    "npm-peer",
    "npm-optional",
    "npm-no-pkg",
    "npm-unknown",
    "unknown",
    "undetermined",
    "type-only",
    "import",
    "export",
    "require",
    "dynamic-import",
    "deprecated",
}
RESULT_OPTIONS = {"doNotFollow", "exclude", "includeOnly", "tsPreCompilationDeps", "combinedDependencies"}
NEUTRAL_OPTIONS = {  # options that do not change which violations there are, or name what rofl does anyway
    "moduleSystems",
    "tsConfig",
    "webpackConfig",
    "babelConfig",
    "enhancedResolveOptions",
    "reporterOptions",
    "progress",
    "cache",
    "skipAnalysisNotInRules",
    "prefix",
    "parser",
    "outputType",
    "extraExtensionsToScan",
    "detectJSDocImports",
    "preserveSymlinks",
    "mainFields",
    "builtInModules",
    "externalModuleResolutionStrategy",
    "experimentalStats",
    "baseDir",
    "exoticRequireStrings",
    "knownViolations",
    "focus",
    "reaches",
    "highlight",
    "collapse",
    "maxDepth",
    "metrics",
}


def _rx(text: str) -> str:
    return quote(text)


@dataclass(slots=True)
class _Builder:
    files: list[str]
    lines: list[str] = field(default_factory=list)
    names: dict[str, tuple[str, str]] = field(default_factory=dict)
    untranslated: list[str] = field(default_factory=list)

    def atom(self, name: str) -> str:
        base = "dc_" + (re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_").lower() or "rule")
        atom, n = base, 2
        while atom in self.names:
            atom, n = f"{base}_{n}", n + 1
        return atom


class _Skip(Exception):
    """This rule cannot be translated: the one line says why."""


def _conds(var: str, spec: dict, where: str) -> list[str]:
    """``matches`` literals for a ``path``/``pathNot`` pair on ``var``."""
    out: list[str] = []
    for key, neg in (("path", ""), ("pathNot", "not ")):
        if key in spec:
            try:
                rx = js_regex(_pattern(spec[key]), _flags(spec[key]))
            except ValueError as exc:
                raise _Skip(f"{where}.{key}: {exc}") from None
            out.append(f"{neg}matches({var}, {_rx(rx)})")
    return out


def _has_group_ref(spec: dict) -> bool:
    return any(
        isinstance(spec.get(k), (str, list)) and re.search(r"\$[1-9]", _pattern(spec[k])) for k in ("path", "pathNot")
    )


def translate(config: dict, files: Iterable[str], source: str = "the config") -> Translation:
    """The rofl rules text for ``config`` over a scan of ``files`` (paths relative to the cruise root)."""
    b = _Builder(sorted(files))
    options = config.get("options") or {}
    if not isinstance(options, dict):
        options = {}
    _options(b, options, source)
    for kind in ("forbidden", "required"):
        rules = config.get(kind) or []
        if not isinstance(rules, list):
            b.untranslated.append(f"{source}: {kind} is not an array; nothing of it is translated")
            continue
        for i, r in enumerate(rules):
            label = f"{kind}[{i}]" + (
                f' ("{r["name"]}")' if isinstance(r, dict) and isinstance(r.get("name"), str) else ""
            )
            if not isinstance(r, dict):
                b.untranslated.append(f"{source}: {label} is not an object; not translated")
                continue
            name = str(r["name"]) if isinstance(r.get("name"), str) else "unnamed"
            severity = str(r.get("severity", "warn"))
            if severity == "ignore":
                b.untranslated.append(f"{source}: {label}: severity ignore; left out, as dependency-cruiser does")
                continue
            if severity not in SEVERITIES:
                b.untranslated.append(
                    f"{source}: {label}: severity {severity!r} is not error, warn, info or ignore; not translated"
                )
                continue
            atom = b.atom(name)
            try:
                body = _forbidden(b, atom, r, label) if kind == "forbidden" else _required(b, atom, r, label)
            except _Skip as exc:
                b.untranslated.append(f"{source}: {exc}; the rule is not translated")
                continue
            b.names[atom] = (name, severity)
            comment = str(r["comment"]) if isinstance(r.get("comment"), str) else ""
            b.lines.append(
                f"rule({atom}, {severity}, {quote((comment.strip() + ' ' if comment.strip() else '') + '(dependency-cruiser rule)')})."
            )
            b.lines.extend(body)
    allowed = config.get("allowed")
    if allowed:
        _allowed(b, allowed, config.get("allowedSeverity", "warn"), source)
    unknown = sorted(
        set(config) - {"forbidden", "allowed", "allowedSeverity", "required", "options", "extends", "$schema"}
    )
    for key in unknown:
        b.untranslated.append(f"{source}: {key}: not a key rofl translates; left out")
    if "extends" in config:
        b.untranslated.append(
            f"{source}: extends {config['extends']!r}: the extended config is not read; copy its rules in, or pass --allow-config-js"
        )
    return Translation("\n".join(_prelude(options) + b.lines) + "\n", dict(b.names), tuple(b.untranslated))


def _options(b: _Builder, options: dict, source: str) -> None:
    keep: list[str] = []
    for key in sorted(options):
        if key in NEUTRAL_OPTIONS:
            continue
        if key not in RESULT_OPTIONS:
            b.untranslated.append(f"{source}: options.{key}: not translated (rofl resolves and scans on its own terms)")
    for key, rel in (("exclude", "dc_out"), ("doNotFollow", "dc_unfollowed_path"), ("includeOnly", "dc_in_only")):
        spec = options.get(key)
        if spec is None:
            continue
        if not isinstance(spec, dict):
            spec = {"path": spec}
        extra = set(spec) - {"path", "dependencyTypes"}
        if extra:
            b.untranslated.append(f"{source}: options.{key}.{sorted(extra)[0]}: not translated; only path is")
        if key == "exclude" and "dependencyTypes" in spec:
            b.untranslated.append(f"{source}: options.exclude.dependencyTypes: not translated; only path is")
        try:
            conds = _conds("T", {"path": spec["path"]}, f"options.{key}") if "path" in spec else []
        except _Skip as exc:
            b.untranslated.append(f"{source}: {exc}; the option is not applied")
            continue
        for c in conds:
            keep.append(f"{rel}(T) :- dc_path(T), {c}.")
    if "includeOnly" not in options:
        keep.append("dc_in_only(T) :- dc_path(T).")
    b.lines.extend(keep)


def _prelude(options: dict) -> list[str]:
    """The graph as dependency-cruiser sees it: modules, edges (from, specifier, to, to's path), dependency types."""
    pre = options.get("tsPreCompilationDeps") in (True, "specify")
    combined = options.get("combinedDependencies") is True
    return [
        "-- translated from a dependency-cruiser config by rofl audit (rofl/loading/depcruise_config.py)",
        "dc_dep(A, S, B, B) :- src_resolves[code](A, S, B).",
        "dc_dep(A, S, P, T) :- src_external[code](A, S, P), dc_ext_path(P, T).",
        "dc_dep(A, S, S, S) :- src_unresolved[code](A, S).",
        "dc_ext_path(P, P) :- src_external[code](_, _, P), dc_core(P).",
        "dc_ext_path(P, T) :- src_external[code](_, _, P), not dc_core(P), dc_node_modules(P, T).",
        "dc_path(T) :- dc_dep(_, _, _, T).",
        "dc_path(F) :- src_file[code](F, _).",
        "dc_keep(T) :- dc_in_only(T), not dc_out(T).",
        "dc_module(F) :- src_file[code](F, _), dc_keep(F).",
        (
            "dc_kept_kind(A, S) :- src_import_kind[code](A, S, _)."
            if pre
            else "dc_kept_kind(A, S) :- src_import_kind[code](A, S, K), K != type."
        ),
        "dc_kept_kind(A, S) :- src_unresolved[code](A, S), not src_import_kind[code](A, S, _).",
        "dc_edge(A, S, B, T) :- dc_dep(A, S, B, T), dc_module(A), not dc_unfollowed_path(A), dc_keep(T), dc_kept_kind(A, S).",
        "dc_link(A, B) :- dc_edge(A, _, B, _).",
        "dc_linked(F) :- dc_link(F, _).",
        "dc_linked(F) :- dc_link(_, F).",
        "dc_cyc(A, B) :- dc_link(A, B), cycle_component(dc_link, A, C), cycle_component(dc_link, B, C).",
        "dc_value_kind(A, S) :- src_import_kind[code](A, S, K), K != type.",
        'dc_type(A, S, "type-only") :- src_import_kind[code](A, S, type), not dc_value_kind(A, S).',
        # dependency-cruiser marks preCompilationOnly only with tsPreCompilationDeps "specify"
        *(
            ('dc_pre_only(A, S) :- dc_type(A, S, "type-only").',)
            if options.get("tsPreCompilationDeps") == "specify"
            else ()
        ),
        'dc_type(A, S, "local") :- src_resolves[code](A, S, _), matches(S, "^[.]").',
        'dc_type(A, S, "aliased") :- src_resolves[code](A, S, _), not matches(S, "^[.]").',
        'dc_type(A, S, "core") :- src_external[code](A, S, P), dc_core(P).',
        'dc_type(A, S, "unknown") :- src_unresolved[code](A, S).',
        'dc_type(A, S, "undetermined") :- src_unresolved[code](A, S).',
        'dc_type(A, S, "import") :- src_import_kind[code](A, S, static).',
        'dc_type(A, S, "import") :- src_import_kind[code](A, S, side_effect).',
        'dc_type(A, S, "import") :- src_import_kind[code](A, S, type).',
        'dc_type(A, S, "export") :- src_import_kind[code](A, S, reexport).',
        'dc_type(A, S, "require") :- src_import_kind[code](A, S, require).',
        'dc_type(A, S, "dynamic-import") :- src_import_kind[code](A, S, dynamic).',
        # npm kinds: the package.json closest to the file (every one above it with combinedDependencies)
        (
            "dc_pkg_of(A, D) :- src_in_dir[code](A, D), pkg_dependency(D, _, _)."
            if combined
            else "dc_pkg_of(A, D) :- pkg_file_workspace(A, D)."
        ),
        "dc_in_workspace(A) :- pkg_file_workspace(A, _).",
        *(() if combined else ('dc_pkg_of(A, ".") :- src_file[code](A, _), not dc_in_workspace(A).',)),
        "dc_npm(A, S, P, K) :- src_external[code](A, S, P), not dc_core(P), dc_pkg_of(A, D), pkg_dependency(D, P, K), K != types.",
        "dc_npm_known(A, S) :- dc_npm(A, S, _, _).",
        'dc_type(A, S, "npm") :- dc_npm(A, S, _, prod).',
        'dc_type(A, S, "npm-dev") :- dc_npm(A, S, _, dev).',
        'dc_type(A, S, "npm-peer") :- dc_npm(A, S, _, peer).',
        'dc_type(A, S, "npm-optional") :- dc_npm(A, S, _, optional).',
        'dc_type(A, S, "npm-no-pkg") :- src_external[code](A, S, P), not dc_core(P), not dc_npm_known(A, S).',
        "dc_multi(A, S) :- dc_npm(A, S, P, K1), dc_npm(A, S, P, K2), K1 != K2.",
    ]


def _forbidden(b: _Builder, atom: str, r: dict, label: str) -> list[str]:
    frm = r.get("from") or {}
    to = r.get("to") or {}
    module = r.get("module")
    if not isinstance(frm, dict) or not isinstance(to, dict):
        raise _Skip(f"{label}: from/to are not objects")
    if module is not None:
        if not isinstance(module, dict):
            raise _Skip(f"{label}: module is not an object")
        return _module_rule(b, atom, module, label, frm)
    extra_from = set(frm) - {"path", "pathNot", "orphan"}
    if extra_from:
        raise _Skip(f"{label}: from.{sorted(extra_from)[0]} is not translated")
    if frm.get("orphan") is True:
        if set(to) - {"path", "pathNot"} or to:
            raise _Skip(f"{label}: from.orphan with conditions on to is not translated")
        conds = _conds("F", frm, f"{label}.from")
        return [f"violation[audit]({atom}, F, F) :- dc_module(F), not dc_linked(F){_join(conds)}."]
    if "reachable" in to:
        return _reachable(b, atom, frm, to, label)
    extra_to = set(to) - EDGE_TO_KEYS
    if extra_to:
        raise _Skip(f"{label}: to.{sorted(extra_to)[0]} is not translated")
    if _has_group_ref(frm):
        raise _Skip(f"{label}: a $N reference in from.path")
    out: list[str] = []
    body = ["dc_edge(A, S, B, T)", f"{atom}_from(A)"]
    out.append(f"{atom}_from(A) :- dc_module(A){_join(_conds('A', frm, label + '.from'))}.")
    if _has_group_ref(to):
        out += _group_facts(b, atom, frm, to, label)
        body += [f"{atom}_group(A, G)"]
        if "path" in to:
            body += [f"{atom}_to(G, R)", "matches(T, R)"]
        if "pathNot" in to:
            body += [f"not {atom}_not(G, T)"]
            out.append(f"{atom}_not(G, T) :- {atom}_tonot(G, R), dc_path(T), matches(T, R).")
    else:
        body += _conds("T", to, f"{label}.to")
    for key, neg in (("dependencyTypes", ""), ("dependencyTypesNot", "not ")):
        if key in to:
            types = to[key]
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                raise _Skip(f"{label}: to.{key} is not an array of strings")
            unknown = [t for t in types if t not in DEPENDENCY_TYPES]
            if unknown:
                raise _Skip(f"{label}: to.{key} {unknown[0]!r} is not a dependency type rofl knows")
            if "deprecated" in types and not neg:
                raise _Skip(
                    f"{label}: to.dependencyTypes 'deprecated' needs npm's deprecation data, which rofl does not read"
                )
            rel = f"{atom}_{'types' if not neg else 'typesnot'}"
            out += [f"{rel}(A, S) :- dc_type(A, S, {quote(t)})." for t in types if t != "deprecated"]
            body.append(f"{neg}{rel}(A, S)")
    flags = {
        "circular": "dc_cyc(A, B)",
        "couldNotResolve": "src_unresolved[code](A, S)",
        "dynamic": "src_import_kind[code](A, S, dynamic)",
        "preCompilationOnly": "dc_pre_only(A, S)",
        "moreThanOneDependencyType": "dc_multi(A, S)",
    }
    for key, lit in flags.items():
        if key in to:
            if not isinstance(to[key], bool):
                raise _Skip(f"{label}: to.{key} is not true or false")
            body.append(lit if to[key] else f"not {lit}")
    out.append(f"violation[audit]({atom}, A, B) :- {', '.join(body)}.")
    return out


def _join(conds: list[str]) -> str:
    return "".join(f", {c}" for c in conds)


def _group_facts(b: _Builder, atom: str, frm: dict, to: dict, label: str) -> list[str]:
    """``$N`` in to.path: the from.path captures of each scanned file, and the to regex each value gives."""
    if "path" not in frm:
        raise _Skip(f"{label}: a $N reference in to.path without a from.path to capture it")
    try:
        rx = re.compile(js_regex(_pattern(frm["path"]), _flags(frm["path"])))
    except (ValueError, re.error) as exc:
        raise _Skip(f"{label}.from.path: {exc}") from None
    out: list[str] = []
    seen: dict[tuple, str] = {}
    for f in b.files:
        m = rx.search(f)
        if m is None:
            continue
        groups = tuple(g or "" for g in m.groups())
        if groups not in seen:
            key = "\t".join(groups)
            seen[groups] = key
            for k, rel in (("path", "to"), ("pathNot", "tonot")):
                if k in to:
                    template = _pattern(to[k])
                    filled = re.sub(r"\$([1-9])", _filler(groups), template)
                    try:
                        expanded = js_regex(filled, _flags(to[k]))
                    except ValueError as exc:
                        raise _Skip(f"{label}.to.{k}: {exc}") from None
                    out.append(f"{atom}_{rel}({quote(key)}, {quote(expanded)}).")
        out.append(f"{atom}_group({quote(f)}, {quote(seen[groups])}).")
    return out


def _filler(groups: tuple[str, ...]) -> Callable[[re.Match[str]], str]:
    """``$N`` -> the N-th captured group, escaped (empty when the from regex has fewer groups)."""

    def fill(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return re.escape(groups[n - 1]) if n <= len(groups) else ""

    return fill


def _reachable(b: _Builder, atom: str, frm: dict, to: dict, label: str) -> list[str]:
    extra = (set(frm) - {"path", "pathNot"}) | (set(to) - {"path", "pathNot", "reachable"})
    if extra:
        raise _Skip(f"{label}: {sorted(extra)[0]} beside reachable is not translated")
    if not isinstance(to["reachable"], bool):
        raise _Skip(f"{label}: to.reachable is not true or false")
    out = [f"{atom}_from(A) :- dc_module(A){_join(_conds('A', frm, label + '.from'))}."]
    tc = _conds("B", to, f"{label}.to")
    if to["reachable"] is False:
        out += [
            f"{atom}_reach(A) :- {atom}_from(A).",
            f"{atom}_reach(C) :- {atom}_reach(B), dc_link(B, C).",
            f"violation[audit]({atom}, B, B) :- dc_module(B){_join(tc)}, not {atom}_reach(B).",
        ]
    else:
        out += [
            f"{atom}_reach(A, B) :- {atom}_from(A), dc_link(A, B).",
            f"{atom}_reach(A, C) :- {atom}_reach(A, B), dc_link(B, C).",
            f"violation[audit]({atom}, A, B) :- {atom}_reach(A, B), dc_module(B){_join(tc)}.",
        ]
    return out


def _module_rule(b: _Builder, atom: str, module: dict, label: str, frm: dict) -> list[str]:
    """A ``module`` rule: the module's path, orphan, and its number of dependents (those matching from)."""
    extra = (set(module) - MODULE_KEYS) | {f"from.{k}" for k in set(frm) - {"path", "pathNot"}}
    if extra:
        raise _Skip(f"{label}: module.{sorted(extra)[0]} is not translated")
    out: list[str] = []
    body = ["dc_module(F)", *_conds("F", module, f"{label}.module")]
    if module.get("orphan") is True:
        body.append("not dc_linked(F)")
    counted = "dc_link(X, F)"
    if frm:
        out.append(f"{atom}_dependent(X, F) :- dc_link(X, F){_join(_conds('X', frm, label + '.from'))}.")
        counted = f"{atom}_dependent(X, F)"
    for key, op, var in (("numberOfDependentsLessThan", "<", "Nl"), ("numberOfDependentsMoreThan", ">", "Nm")):
        if key in module:
            n = module[key]
            if type(n) is not int:
                raise _Skip(f"{label}: module.{key} is not an integer")
            body += [f"{var} = count : {{ {counted} }}", f"{var} {op} {n}"]
    out.append(f"violation[audit]({atom}, F, F) :- {', '.join(body)}.")
    return out


def _required(b: _Builder, atom: str, r: dict, label: str) -> list[str]:
    module = r.get("module") or {}
    to = r.get("to") or {}
    if not isinstance(module, dict) or not isinstance(to, dict):
        raise _Skip(f"{label}: module/to are not objects")
    extra = (set(module) - {"path", "pathNot"}) | (set(to) - {"path"})
    if extra:
        raise _Skip(f"{label}: {sorted(extra)[0]} is not translated in a required rule")
    out = [f"{atom}_module(F) :- dc_module(F){_join(_conds('F', module, label + '.module'))}."]
    if _has_group_ref(to):
        out += _group_facts(b, atom, module, to, label)
        out.append(f"{atom}_has(A) :- {atom}_group(A, G), {atom}_to(G, R), dc_edge(A, _, _, T), matches(T, R).")
    else:
        out.append(f"{atom}_has(A) :- dc_edge(A, _, _, T){_join(_conds('T', to, label + '.to'))}.")
    out.append(f"violation[audit]({atom}, F, F) :- {atom}_module(F), not {atom}_has(F).")
    return out


def _allowed(b: _Builder, allowed: object, severity: object, source: str) -> None:
    if severity == "ignore":
        b.untranslated.append(
            f"{source}: allowedSeverity ignore: the allowed rules are left out, as dependency-cruiser does"
        )
        return
    if severity not in SEVERITIES or not isinstance(allowed, list):
        b.untranslated.append(
            f"{source}: allowed / allowedSeverity {severity!r} not readable; the allowed rules are not translated"
        )
        return
    atom = "dc_not_in_allowed"
    lines: list[str] = []
    for i, r in enumerate(allowed):
        label = f"allowed[{i}]"
        if not isinstance(r, dict):
            b.untranslated.append(f"{source}: {label} is not an object; not translated")
            continue
        sub = f"{atom}_{i}"
        try:
            body = _forbidden(b, sub, {k: v for k, v in r.items() if k in ("from", "to")}, label)
        except _Skip as exc:
            b.untranslated.append(f"{source}: {exc}; every dependency it would allow is reported as not-in-allowed")
            continue
        # the allowed rule's "violation" is an allowed edge
        lines += [ln.replace(f"violation[audit]({sub}, A, B)", f"{atom}_ok(A, S, B)") for ln in body]
        if any(f"violation[audit]({sub}, F, F)" in ln for ln in body):
            b.untranslated.append(
                f"{source}: {label}: module conditions (orphan, reachable) in allowed are not translated"
            )
            lines = [ln for ln in lines if "violation[audit]" not in ln]
    b.names[atom] = ("not-in-allowed", str(severity))
    b.lines.append(
        f"rule({atom}, {severity}, {quote('dependency-cruiser not-in-allowed: a dependency no allowed rule allows')})."
    )
    b.lines += lines
    b.lines.append(f"violation[audit]({atom}, A, B) :- dc_edge(A, S, B, _), not {atom}_ok(A, S, B).")


# -- the facts a translation needs from Python --------------------------------------------------------


def package_paths(packages: Iterable[str], builtins: Iterable[str]) -> str:
    """``dc_core(P)`` and ``dc_node_modules(P, "node_modules/P")`` facts for the external packages a scan imports."""
    core = set(builtins)
    lines = []
    for p in sorted(set(packages)):
        bare = p[5:] if p.startswith("node:") else p
        if p in core or bare in core or p.startswith(("node:", "bun:")):
            lines.append(f"dc_core({quote(p)}).")
        else:
            lines.append(f"dc_node_modules({quote(p)}, {quote('node_modules/' + p)}).")
    return "\n".join(lines) + "\n"


def node_builtins() -> set[str]:
    """Node's core modules, as rules/presets.rofl lists them."""
    from .presets import presets_file

    return set(re.findall(r'node_builtin\("([^"]+)"\)', presets_file().read_text(encoding="utf-8")))


# -- dependency-cruiser's known-violations.json as a baseline ----------------------------------------


def is_known_violations(doc: object) -> bool:
    """Is ``doc`` dependency-cruiser's ``--output-type baseline`` (a list of {from, to, rule: {name, severity}})?"""
    return isinstance(doc, list) and all(
        isinstance(e, dict) and isinstance(e.get("rule"), dict) and "from" in e for e in doc
    )


def known_violation_keys(doc: list) -> list[dict]:
    """Baseline entries (rofl's ``Finding.key``: rule, from, to) for each known violation.  A package's
    path ``node_modules/P/...`` is the package name, as rofl's findings name it; a module-level finding
    (``to`` empty) names the module twice; a cycle, which dependency-cruiser reports once by one of its
    edges, stands for every edge of the cycle (rofl reports each edge on a cycle)."""
    out: dict[str, dict] = {}
    for e in doc:
        rule = str(e["rule"].get("name"))
        frm = str(e.get("from", ""))
        to = package_of(str(e.get("to") or frm))
        pairs = [(frm, to)]
        cycle = e.get("cycle")
        if isinstance(cycle, list) and cycle:
            names = [str(c.get("name")) if isinstance(c, dict) else str(c) for c in cycle]
            ring = [frm, *names]
            pairs = [(package_of(a), package_of(b)) for a, b in zip(ring, ring[1:]) if a != b]
        for a, b in pairs:
            key = f"{rule}\t{a}\t{b}"
            out[key] = {"key": key, "audit": "violation", "rule": rule, "from": a, "to": b}
    return [out[k] for k in sorted(out)]


def package_of(path: str) -> str:
    """``node_modules/@s/p/x.js`` -> ``@s/p``; other paths unchanged."""
    m = re.search(r"(?:^|/)node_modules/((?:@[^/]+/)?[^/]+)", path)
    return m.group(1) if m else path


def depcruise_violations(doc: dict) -> set[tuple[str, str, str]]:
    """``(rule, from, to)`` of a ``depcruise --output-type json`` result, keyed as rofl's findings are:
    per dependency (every edge of a cycle, where the summary names each cycle once), per module (named
    twice), and a reachability violation by its two ends, as its summary entry names them."""
    out: set[tuple[str, str, str]] = set()
    reach = {v["rule"]["name"] for v in doc["summary"]["violations"] if v.get("type") == "reachability"}
    for v in doc["summary"]["violations"]:
        if v.get("type") == "reachability":
            out.add((v["rule"]["name"], v["from"], package_of(v["to"])))
    for m in doc["modules"]:
        for r in m.get("rules", []):
            if r["name"] not in reach:
                out.add((r["name"], m["source"], m["source"]))
        for d in m.get("dependencies", []):
            for r in d.get("rules", []):
                out.add((r["name"], m["source"], package_of(d["resolved"])))
    return out
