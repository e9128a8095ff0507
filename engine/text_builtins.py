"""The text builtins `matches(Text, Regex)` and `glob(Text, Pattern)`: patterns compiled once into a linear-time matcher.

Neither builtin runs Python's backtracking ``re`` engine on a text: a pattern is parsed by ``re``'s own
parser (so its syntax and error messages are Python's) and compiled into a Thompson automaton that is
run as a lazily built DFA.  The work per match is linear in the text whatever the pattern, so
``(a+)+$`` against ``'aaaa…!'`` costs as much as ``a+$`` (Python's ``re`` takes exponential time).
What the automaton cannot express without backtracking (back-references, look-around, atomic groups,
possessive quantifiers, word boundaries, multi-line anchors) is refused with a message, as is a pattern
whose automaton would exceed ``MAX_STATES`` (a pattern longer than ``MAX_PATTERN``, or counted
repetitions such as ``a{1000}{1000}``).

``matches`` has ``re.search`` semantics: "anchored as written", ``^`` and ``$`` anchor, nothing else
does.  ``glob`` is gitignore's pattern language over ``/``-separated paths (``*``, ``?``, ``[...]``,
``**``, a leading or middle ``/`` anchoring at the root, a trailing ``/`` for folders only), and a
pattern that matches a folder matches everything under it, as in a ``.gitignore``.

When Google's RE2 (``google-re2``, import name ``re2``, also linear-time) is installed, a pattern whose
meaning RE2 shares exactly is also translated, from ``re``'s parse tree, into RE2 syntax, and RE2 runs
the matches (in C); the automaton stays the reference and runs what RE2 would read differently: case
folding, the classes ``\\d``, ``\\w``, ``\\s`` (Unicode classes in Python), a ``$`` that is not at the pattern's end, a
text with a lone surrogate (RE2 reads UTF-8).  Without RE2 the automaton runs everything: ``engine``
needs the standard library only.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any

from .base.errors import RoflError


@functools.cache
def _re2() -> Any:
    """Google's RE2 module (PyPI google-re2: linear-time matching in C), or None when it is not installed;
    imported with the first pattern, so a program that matches nothing never loads it (2.6 MB)."""
    try:
        return importlib.import_module("re2")
    except ImportError:  # pragma: no cover - depends on the installation
        return None


try:  # re's own parser and constants (Python >= 3.11 names, then 3.10's)
    C: Any = importlib.import_module("re._constants")
    P: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - Python 3.10
    C = importlib.import_module("sre_constants")
    P = importlib.import_module("sre_parse")

MAX_PATTERN = 1000  # characters of one pattern
MAX_STATES = 20_000  # automaton states of one pattern
MAX_DFA = 50_000  # cached DFA transitions per pattern; beyond it the cache starts again (still linear)
CACHED_PATTERNS = 512
# RE2's budget for one MatcherSet's program and its DFA cache (8 MB by default: about 3,000 globs)
SET_MEMORY = 64 << 20


class PatternError(RoflError):
    """A regex or glob the text builtins refuse: invalid, or outside what runs in linear time."""


# -- character predicates ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CharSet:
    """The characters one automaton step accepts: literal code points, ranges and categories, maybe negated."""

    chars: frozenset[int] = frozenset()
    ranges: tuple[tuple[int, int], ...] = ()
    categories: tuple[str, ...] = ()
    negate: bool = False
    any_but_newline: bool = False  # ``.`` without DOTALL
    any: bool = False
    fold: bool = False  # IGNORECASE

    def accepts(self, ch: str) -> bool:
        if self.any:
            return True
        if self.any_but_newline:
            return ch != "\n"
        hit = self._hit(ch)
        if not hit and self.fold:
            hit = self._hit(ch.lower()) or self._hit(ch.upper())
        return hit != self.negate

    def _hit(self, ch: str) -> bool:
        code = ord(ch)
        if code in self.chars:
            return True
        if any(lo <= code <= hi for lo, hi in self.ranges):
            return True
        return any(_CATEGORY[c](ch) for c in self.categories)


_CATEGORY = {
    "CATEGORY_DIGIT": str.isdecimal,
    "CATEGORY_NOT_DIGIT": lambda ch: not ch.isdecimal(),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda ch: not ch.isspace(),
    "CATEGORY_WORD": lambda ch: ch.isalnum() or ch == "_",
    "CATEGORY_NOT_WORD": lambda ch: not (ch.isalnum() or ch == "_"),
}

NOTHING = CharSet()  # the set of a state that consumes no character

# -- the automaton ---------------------------------------------------------------------------------

STEP, SPLIT, BEGIN, END, ACCEPT = "step", "split", "begin", "end", "accept"


@dataclass(slots=True)
class Builder:
    """Thompson construction: states are indexes; ``kinds``/``sets``/``outs`` describe each."""

    source: str
    flags: int
    kinds: list[str] = field(default_factory=list)
    sets: list[CharSet] = field(default_factory=list)
    outs: list[list[int]] = field(default_factory=list)

    def state(self, kind: str, charset: CharSet | None = None) -> int:
        if len(self.kinds) >= MAX_STATES:
            raise PatternError(f"pattern {self.source!r} is too large (over {MAX_STATES} automaton states)")
        self.kinds.append(kind)
        self.sets.append(charset if charset is not None else NOTHING)
        self.outs.append([])
        return len(self.kinds) - 1

    def refuse(self, what: str) -> PatternError:
        return PatternError(f"pattern {self.source!r}: {what} cannot run in linear time; rewrite it without")

    # a fragment is (start state, [states whose out list is to be patched to what follows])
    def sequence(self, items) -> tuple[int, list[int]]:
        start = self.state(SPLIT)  # an epsilon entry, so an empty sequence is a fragment too
        ends = [start]
        for op, av in items:
            s, e = self.item(op, av)
            self.patch(ends, s)
            ends = e
        return start, ends

    def patch(self, ends: list[int], target: int) -> None:
        for e in ends:
            self.outs[e].append(target)

    def charset(self, op, av) -> CharSet:
        fold = bool(self.flags & C.SRE_FLAG_IGNORECASE)
        if op is C.LITERAL:
            return CharSet(chars=frozenset((av,)), fold=fold)
        if op is C.NOT_LITERAL:
            return CharSet(chars=frozenset((av,)), negate=True, fold=fold)
        if op is C.ANY:
            return CharSet(any=True) if self.flags & C.SRE_FLAG_DOTALL else CharSet(any_but_newline=True)
        chars: set[int] = set()
        ranges: list[tuple[int, int]] = []
        cats: list[str] = []
        negate = False
        for sub, val in av if op is C.IN else [(op, av)]:
            if sub is C.NEGATE:
                negate = True
            elif sub is C.LITERAL:
                chars.add(val)
            elif sub is C.RANGE:
                ranges.append(val)
            elif sub is C.CATEGORY:
                cats.append(str(val))
            else:
                raise self.refuse(f"class item {sub}")
        return CharSet(frozenset(chars), tuple(ranges), tuple(cats), negate, fold=fold)

    def item(self, op, av) -> tuple[int, list[int]]:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY):
            s = self.state(STEP, self.charset(op, av))
            return s, [s]
        if op is C.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if (add_flags | del_flags) & ~(C.SRE_FLAG_IGNORECASE | C.SRE_FLAG_DOTALL):
                raise self.refuse("an inline flag other than (?i) and (?s)")
            if add_flags or del_flags:
                saved, self.flags = self.flags, (self.flags | add_flags) & ~del_flags
                try:
                    return self.sequence(sub)
                finally:
                    self.flags = saved
            return self.sequence(sub)
        if op is C.BRANCH:
            start = self.state(SPLIT)
            ends: list[int] = []
            for alt in av[1]:
                s, e = self.sequence(alt)
                self.outs[start].append(s)
                ends += e
            return start, ends
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):  # greedy or lazy: the same set of matches
            low, high, sub = av
            start = self.state(SPLIT)
            ends = [start]
            for _ in range(low):
                s, e = self.sequence(sub)
                self.patch(ends, s)
                ends = e
            if high is C.MAXREPEAT:
                loop = self.state(SPLIT)
                self.patch(ends, loop)
                s, e = self.sequence(sub)
                self.outs[loop].append(s)
                self.patch(e, loop)
                return start, [loop]
            optional: list[int] = []
            for _ in range(high - low):
                gate = self.state(SPLIT)
                self.patch(ends, gate)
                optional.append(gate)
                s, e = self.sequence(sub)
                self.outs[gate].append(s)
                ends = e
            return start, ends + optional
        if op is C.AT:
            if av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
                if av is C.AT_BEGINNING and self.flags & C.SRE_FLAG_MULTILINE:
                    raise self.refuse("a multi-line ^")
                s = self.state(BEGIN)
                return s, [s]
            if av in (C.AT_END, C.AT_END_STRING):
                if av is C.AT_END and self.flags & C.SRE_FLAG_MULTILINE:
                    raise self.refuse("a multi-line $")
                s = self.state(END)
                self.sets[s] = CharSet(any=av is C.AT_END)  # any: $ also holds before a final newline
                return s, [s]
            raise self.refuse("a word boundary (\\b, \\B)")
        names = {
            C.GROUPREF: "a back-reference",
            C.GROUPREF_EXISTS: "a conditional group",
            C.ASSERT: "a look-ahead or look-behind",
            C.ASSERT_NOT: "a negative look-around",
        }
        raise self.refuse(names.get(op, f"{str(op).lower()}"))


@dataclass(slots=True)
class Automaton:
    """A compiled pattern: the Thompson automaton and its lazily built DFA (the one mutable cache)."""

    kinds: tuple[str, ...]
    sets: tuple[CharSet, ...]
    outs: tuple[tuple[int, ...], ...]
    start: int
    dfa: dict = field(default_factory=dict)  # (state set, char, at end, before a final newline) -> (next, accepts)
    closures: dict = field(default_factory=dict)  # (state set, at begin, at end, newline end) -> closure

    def closure(self, states: frozenset[int], begin: bool, end: bool, before_final_newline: bool) -> frozenset[int]:
        key = (states, begin, end, before_final_newline)
        hit = self.closures.get(key)
        if hit is not None:
            return hit
        seen: set[int] = set()
        stack = list(states)
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            kind = self.kinds[s]
            if kind == STEP or kind == ACCEPT:
                continue  # a step waits for a character
            if kind == BEGIN and not begin:
                continue
            if kind == END:
                charset = self.sets[s]
                if not (end or (before_final_newline and charset.any)):
                    continue
            stack.extend(self.outs[s])
        out = frozenset(seen)
        if len(self.closures) > MAX_DFA:
            self.closures.clear()
        self.closures[key] = out
        return out

    def search(self, text: str) -> bool:
        """Does some substring of ``text`` match (``re.search``)?  Linear in ``len(text)``."""
        n = len(text)
        final_nl = n > 0 and text[-1] == "\n"
        start = frozenset((self.start,))
        current = self.closure(start, True, n == 0, final_nl and n == 1)
        if self._accepting(current):
            return True
        dfa = self.dfa
        for i, ch in enumerate(text):
            key = (current, ch, i + 1 == n, final_nl and i + 2 == n)
            step = dfa.get(key)
            if step is None:
                moved = frozenset(
                    o for s in current if self.kinds[s] == STEP and self.sets[s].accepts(ch) for o in self.outs[s]
                )
                nxt = self.closure(moved | start, False, key[2], key[3])  # | start: a match may begin anywhere
                if len(dfa) > MAX_DFA:
                    dfa.clear()
                step = dfa[key] = (nxt, self._accepting(nxt))
            if step[1]:
                return True
            current = step[0]
        return False

    def _accepting(self, states: frozenset[int]) -> bool:
        return any(self.kinds[s] == ACCEPT for s in states)


@dataclass(frozen=True, slots=True)
class Matcher:
    """A compiled pattern: the automaton, and the same pattern compiled by RE2 when RE2 reads it alike."""

    automaton: Automaton
    fast: Any = None  # an re2 pattern object, or None
    required: tuple[str, ...] = ()  # texts every match contains: a text lacking one is no match, said at once
    fast_source: str | None = None  # the RE2 source ``fast`` was compiled from (``MatcherSet`` joins them)

    def search(self, text: str) -> bool:
        """Does some substring of ``text`` match (``re.search``)?  Linear in ``len(text)``."""
        for part in self.required:
            if part not in text:
                return False
        fast = self.fast
        if fast is not None:
            try:
                # RE2 reads UTF-8; given bytes, its wrapper skips mapping byte offsets back to characters
                # (a yes or no needs no offsets: half the cost of a short text's search)
                data = text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (an undecodable file name): the automaton reads it
                return self.automaton.search(text)
            return fast.search(data) is not None
        return self.automaton.search(text)

    def found(self, text: str, data: bytes | None) -> bool:
        """``search`` with ``text``'s UTF-8 bytes given (None when it has none: a lone surrogate), for one
        text tried against many patterns (``engine.pattern_index``) encoded once."""
        for part in self.required:
            if part not in text:
                return False
        fast = self.fast
        if fast is not None and data is not None:
            return fast.search(data) is not None
        return self.automaton.search(text)


class MatcherSet:
    """Many compiled patterns tried on one text at once: ``which(text)`` lists those whose ``search``
    holds.  The patterns RE2 reads alike run as one RE2 set (one pass over the text, in C); the others
    one by one.  RE2 answers a set's pass that ran out of memory as "nothing matched", so the set also
    holds the empty pattern, which every completed pass matches: a pass without it is tried again
    pattern by pattern."""

    __slots__ = ("matchers", "_set", "_ids", "_alone")

    def __init__(self, matchers: tuple[Matcher, ...]) -> None:
        self.matchers = matchers
        self._set: Any = None
        self._ids: list[int] = []  # set index -> matcher index (index 0: the empty pattern)
        self._alone = list(range(len(matchers)))  # the matchers tried one by one
        joined = [i for i, m in enumerate(matchers) if m.fast_source is not None]
        re2 = _re2()
        if re2 is None or len(joined) < 2:
            return
        options = _re2_options(re2)
        options.max_mem = SET_MEMORY
        found = re2.Set.SearchSet(options)
        try:
            found.Add("")
            ids = [-1]
            for i in joined:
                found.Add(matchers[i].fast_source)
                ids.append(i)
            found.Compile()
        except re2.error:  # too large for one set: each alone
            return
        self._set, self._ids = found, ids
        self._alone = [i for i in self._alone if matchers[i].fast_source is None]

    def which(self, text: str) -> list[int]:
        """The indexes (ascending) of the matchers whose ``search(text)`` holds."""
        matchers = self.matchers
        try:
            data: bytes | None = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the automata read it
            data = None
        hits: list[int] = []
        alone = self._alone
        if self._set is not None:
            found = self._set.Match(data) if data is not None else None
            if found:
                ids = self._ids
                hits = [ids[k] for k in found if k]
            else:  # no completed pass: every pattern alone
                alone = list(range(len(matchers)))
        for i in alone:
            if matchers[i].found(text, data):
                hits.append(i)
        hits.sort()
        return hits


class _Untranslatable(Exception):
    """A pattern RE2 would read differently from ``re``: the automaton runs it."""


def _re2_char(code: int) -> str:
    if 0xD800 <= code <= 0xDFFF:
        raise _Untranslatable()  # RE2 reads UTF-8, where a lone surrogate cannot be written
    ch = chr(code)
    return ch if ch.isascii() and (ch.isalnum() or ch == "_") else f"\\x{{{code:x}}}"


def _re2_items(items, flags: int, tail: bool) -> str:
    """RE2 syntax for a parsed sequence; ``tail``: nothing follows it in the pattern."""
    items = list(items)
    return "".join(_re2_item(op, av, flags, tail and i == len(items) - 1) for i, (op, av) in enumerate(items))


def _re2_item(op, av, flags: int, tail: bool) -> str:
    if op is C.LITERAL:
        return _re2_char(av)
    if op is C.NOT_LITERAL:
        return "[^" + _re2_char(av) + "]"
    if op is C.ANY:
        return "(?s:.)" if flags & C.SRE_FLAG_DOTALL else "."
    if op is C.IN:
        negate = ""
        parts = []
        for sub, val in av:
            if sub is C.NEGATE:
                negate = "^"
            elif sub is C.LITERAL:
                parts.append(_re2_char(val))
            elif sub is C.RANGE:
                parts.append(_re2_char(val[0]) + "-" + _re2_char(val[1]))
            else:
                raise _Untranslatable()  # a category: Unicode in re, ASCII in RE2
        return "[" + negate + "".join(parts) + "]"
    if op is C.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if (add_flags | del_flags) & ~C.SRE_FLAG_DOTALL:
            raise _Untranslatable()
        return "(?:" + _re2_items(sub, (flags | add_flags) & ~del_flags, tail) + ")"
    if op is C.BRANCH:
        return "(?:" + "|".join(_re2_items(alt, flags, tail) for alt in av[1]) + ")"
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):  # greedy or lazy: the same set of matches
        low, high, sub = av
        bound = f"{{{low},}}" if high is C.MAXREPEAT else f"{{{low},{high}}}"
        return "(?:" + _re2_items(sub, flags, False) + ")" + bound
    if op is C.AT:
        if av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
            return "\\A"
        if av is C.AT_END_STRING:
            return "\\z"
        if av is C.AT_END and tail:  # $: the end, or before a final newline; at the end, eating it is alike
            return "(?:\\n?\\z)"
    raise _Untranslatable()


def _re2_options(re2: Any) -> Any:
    options = re2.Options()
    options.log_errors = False  # a refused pattern falls back to the automaton, silently
    options.never_capture = True
    return options


def _re2_compile(parsed, flags: int) -> tuple[Any, str | None]:
    """The RE2 form of a parsed pattern and its RE2 source, or (None, None) when RE2 is missing or would
    read it differently."""
    re2 = _re2()
    if re2 is None or flags & (C.SRE_FLAG_IGNORECASE | C.SRE_FLAG_LOCALE | C.SRE_FLAG_MULTILINE):
        return None, None
    try:
        source = _re2_items(parsed, flags, True)
    except (_Untranslatable, RecursionError):
        return None, None
    try:
        return re2.compile(source, _re2_options(re2)), source
    except re2.error:  # e.g. a repetition count over RE2's 1000
        return None, None


def _compile(source: str, what: str) -> Matcher:
    if len(source) > MAX_PATTERN:
        raise PatternError(f"{what} is {len(source)} characters long; the limit is {MAX_PATTERN}")
    try:
        parsed = P.parse(source)
    except (C.error, ValueError, OverflowError, RecursionError) as exc:
        raise PatternError(f"{what} {source!r} is not a valid regular expression: {exc}") from None
    flags = parsed.state.flags
    if flags & C.SRE_FLAG_MULTILINE:
        raise PatternError(f"{what} {source!r}: (?m) is not supported; paths have no lines")
    b = Builder(source, flags)
    try:
        start, ends = b.sequence(parsed)
    except RecursionError:
        raise PatternError(f"{what} {source!r} nests too deeply") from None
    accept = b.state(ACCEPT)
    b.patch(ends, accept)
    automaton = Automaton(tuple(b.kinds), tuple(b.sets), tuple(tuple(o) for o in b.outs), start)
    fast, fast_source = _re2_compile(parsed, flags)
    return Matcher(automaton, fast, _required_literals(parsed, flags), fast_source)


def _required_literals(parsed: Any, flags: int) -> tuple[str, ...]:
    """The runs of literal characters in the pattern's top-level sequence (each stands in every match as
    itself), longest first; none under a case-insensitive flag, where a literal matches more than itself."""
    if flags & C.SRE_FLAG_IGNORECASE:
        return ()
    runs: list[str] = []
    run: list[str] = []
    for op, arg in parsed:
        if op is C.LITERAL:
            run.append(chr(arg))
        else:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    return tuple(sorted({r for r in runs if r}, key=lambda r: (-len(r), r)))


@functools.lru_cache(maxsize=CACHED_PATTERNS)
def regex(source: str) -> Matcher:
    """The compiled form of a regex (cached per pattern); PatternError when refused."""
    return _compile(source, "regex")


@functools.lru_cache(maxsize=CACHED_PATTERNS)
def glob_automaton(pattern: str) -> Matcher:
    """The compiled form of a gitignore-style glob (cached per pattern); PatternError when refused."""
    return _compile(glob_regex(pattern), f"glob {pattern!r} as the regex")


# -- glob to regex -----------------------------------------------------------------------------------


def glob_regex(pattern: str) -> str:
    """The regex (search semantics, anchored) equal to a gitignore-style pattern over a path.

    A pattern with a ``/`` at its start or middle is anchored at the root; one without matches at any
    depth.  ``**`` as a whole segment is any number of folders; elsewhere ``*`` and ``**`` stop at ``/``.
    The matched path may go on below what the pattern names (a folder matches what it holds), and a
    trailing ``/`` requires that: the pattern names a folder.
    """
    if not pattern or pattern in ("/", "!"):
        raise PatternError(f"glob {pattern!r} matches nothing; write a path pattern such as 'src/**/*.ts'")
    if pattern.startswith("!"):
        raise PatternError(f"glob {pattern!r}: negation is written `not glob(Text, {pattern[1:]!r})`")
    folder_only = pattern.endswith("/")
    body = pattern.rstrip("/") if folder_only else pattern
    anchored = "/" in body
    body = body.lstrip("/")
    segments: list[str] = []
    for seg in body.split("/"):
        if not (seg == "**" and segments and segments[-1] == "**"):  # a/**/**/b is a/**/b
            segments.append(seg)
    out: list[str] = []
    need_sep = False  # the next segment starts with a '/'
    for i, seg in enumerate(segments):
        if seg == "**":
            if i == len(segments) - 1:
                out.append("/.*" if out else ".*")  # a trailing /** : everything inside
            else:
                out.append("(?:/.*)?/" if out else "(?:.*/)?")  # any number of folders, none included
            need_sep = False
            continue
        out.append(("/" if need_sep else "") + _segment(seg, pattern))
        need_sep = True
    regex_body = "".join(out)
    lead = "^" if anchored else "^(?:.*/)?"
    tail = "/" if folder_only else "(?:/|$)"
    return lead + regex_body + tail


def _segment(seg: str, pattern: str) -> str:
    """One path segment of a glob as a regex (``*`` and ``?`` never cross ``/``)."""
    import re

    out: list[str] = []
    i = 0
    while i < len(seg):
        ch = seg[i]
        if ch == "\\" and i + 1 < len(seg):
            out.append(re.escape(seg[i + 1]))
            i += 2
            continue
        if ch == "*":
            while i < len(seg) and seg[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = seg.find("]", i + 2 if i + 1 < len(seg) and seg[i + 1] in "!^" else i + 2)
            if end < 0:
                raise PatternError(f"glob {pattern!r}: '[' without a closing ']'; write \\[ for a literal bracket")
            inner = seg[i + 1 : end]
            negate = inner[:1] in ("!", "^")
            inner = inner[1:] if negate else inner
            inner = inner.replace("\\", "\\\\").replace("[", "\\[")
            out.append(f"[{'^/' if negate else ''}{inner}]")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


# -- the builtins ---------------------------------------------------------------------------------


def matches(text, pattern) -> bool:
    """``matches(Text, Regex)``: Text is a string with a substring matching Regex (``re.search``)."""
    if type(text) is not str or type(pattern) is not str:
        return False
    return regex(pattern).search(text)


def glob(text, pattern) -> bool:
    """``glob(Text, Pattern)``: Text is a path the gitignore-style Pattern matches."""
    if type(text) is not str or type(pattern) is not str:
        return False
    return glob_automaton(pattern).search(text)


def check(op: str, pattern) -> None:
    """Refuse a constant pattern at parse time (PatternError), so a bad one names its line."""
    if type(pattern) is str:
        (regex if op == "matches" else glob_automaton)(pattern)


# The builtins written as calls, ``name(Left, Right)``; ``not name(...)`` is the negated row ``not name``.
CALLS = ("matches", "glob")
NEGATED = {f"not {name}": name for name in CALLS}


def not_matches(text, pattern) -> bool:
    return type(text) is str and type(pattern) is str and not matches(text, pattern)


def not_glob(text, pattern) -> bool:
    return type(text) is str and type(pattern) is str and not glob(text, pattern)


def call_text(op: str, left: str, right: str) -> str:
    """How a call builtin is written back: ``matches(T, R)`` or ``not glob(T, P)``."""
    return f"{op}({left}, {right})"
