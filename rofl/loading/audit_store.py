"""What `rofl audit` reuses of a scan: each fact file judged by digest (only plain [code] facts, or not), the rest's kernel.

An audit judges the facts' asserters, the rules and the rules' conclusions.  A fact file the scanner
wrote that holds only ground ``rel[code](...)`` facts of its vocabulary (``scanner.schema``), asserted
by ``scanner`` with the loader's ``authority(code, scanner)``, can give no finding by itself: boot's
audits find nothing in it, and only a rule that reads [code] (a ``forbid`` rule, a preset) can turn it
into one.  So the audit keeps, beside the fact files, a judgement of each fact file by its digest
(content-keyed; ``.rofl-audit.records``: ``MAGIC``, an HMAC tag under this user's secret as
``rofl.loading.cachemac`` makes it, a newline, a ``marshal`` payload): whether it is such a "pure"
file, and which [code] relations it asserts.  A rescan that rewrites one fact file changes one
judgement: only that file is read and judged again.

``residue(root)`` answers only over a scan that passes the checks the persisted graph index makes
(``rofl.loading.graph_index.checked_listing``): every fact file the manifest lists is there with its digest
(carried in its name; the records keep each file's stat when its bytes were checked, and a file
whose stat moved is read and checked again), no other ``.rofl`` file, the scanner's preamble.
Anything else (a forged or edited file, a missing one, a hand-written one) gives None and the
caller loads every fact file as it always did, so each forged fact is still reported.
``residue_kernel`` loads the files that are not pure (the preamble, anything else) through the
loader's own path, then the loader's facts and the rule files: the kernel a full load makes, without
the pure files' [code] facts.  ``needs(kernel, residue)`` says what of the pure files that kernel's audits
read: the [code] relations the live rules concluding into [audit] read, directly or through the rules
deriving what they read (a rule is dead when a premise that does not depend on the pure files has no
row); boot's ``forged`` rule reads none, since over a pure file it needs a missing
``authority(code, scanner)``, and a live rule over the facts' metadata reads every fact (None: the caller
loads every fact file).  ``load_pure`` adds the pure files' facts of those relations (from their rows kept
by digest, ``rofl.loading.pure_rows``): then the kernel's audits are the full kernel's.  The same residue
and rows build a whole scan's kernel for any question (``rofl.loading.kernel``'s ``_residue_load``).
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base import safe_write
from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel
from rofl.scanner.hashing import hash_bytes, hash_key

if TYPE_CHECKING:
    from rofl.loading.pure_rows import KeptRows
    from rofl.scanner.manifest import Manifest

RECORDS_NAME = ".rofl-audit.records"
MAGIC = b"rofl-audit-records 1\n"
FORMAT = 5  # 5: the residue lists the pure files
MAX_RECORDS_BYTES = 1 << 30
CODE = "code"
SCANNER = "scanner"

IMPURE: tuple[str, ...] = ("",)  # the record of a fact file that is not pure (no relation is named "")


@dataclass(frozen=True, slots=True)
class Residue:
    """A verified scan as the audit needs it: the fact files loaded whole (not pure), the [code]
    relations the pure ones assert, and the source root the manifest names."""

    root: Path
    whole: tuple[tuple[str, str, bool, bool], ...]  # the fact files loaded whole: rofl.loading.graph_index.Listed rows
    code: frozenset[str]
    src: str  # the scan's source root, as the manifest names it
    updated: int  # fact files read and classified again (0: every record was current)
    pure: tuple[
        tuple[str, str, bool, bool, tuple[str, ...]], ...
    ] = ()  # the pure files: Listed rows and their relations


def residue(root: Path, manifest_of: Callable[[], Manifest] | None = None) -> Residue | None:
    """The residue of the scan in ``root``, its records brought up to date; None when the folder does not
    verify (``rofl.loading.graph_index``'s checks) or there is no private secret: the caller loads every fact file.
    The manifest is read (``manifest_of``, the command's own reading, when given) only when it changed since
    the records were made."""
    from rofl.loading import cachemac, graph_index
    from rofl.scanner.layout import MANIFEST_NAME
    from rofl.scanner.manifest import ManifestError, from_bytes

    secret = cachemac.secret()
    raw = graph_index.manifest_bytes(root)
    if secret is None or raw is None:
        return None
    manifest_hash = hash_bytes(raw)
    stamp = fingerprint()
    old = _read(root, secret, stamp)
    same = old is not None and old.manifest == manifest_hash
    if same and old is not None and graph_index.unchanged(root, old.listing):
        return old.residue  # nothing changed since the last audit
    if same and old is not None:
        listed = [graph_index.Listed(*row[:4]) for row in old.listing]
        src = old.residue.src
    else:
        try:
            manifest = manifest_of() if manifest_of is not None else from_bytes(raw, str(root / MANIFEST_NAME))
        except ManifestError:
            return None
        found = graph_index.typed_listing(manifest)
        if found is None:
            return None
        listed, src = found, manifest.src
    checked = graph_index.checked_listing(root, listed, old.listing if old is not None else (), _classified)
    if checked is None:
        return None
    listing, fresh = checked
    kinds = dict(old.kinds) if old is not None else {}
    kinds.update(dict(fresh.values()))
    whole: list[tuple[str, str, bool, bool]] = []
    pure: list[tuple[str, str, bool, bool, tuple[str, ...]]] = []
    kept: dict[str, tuple[str, ...]] = {}
    for row in listing:
        digest = row[1]
        kind = kinds.get(digest)
        if kind is None:  # a file whose stat was recorded by a records file that lost its judgement
            return None
        kept[digest] = kind
        if kind == IMPURE:
            whole.append(tuple(row[:4]))
        else:
            pure.append((*row[:4], kind))
    code = frozenset().union(*{kind for kind in kept.values() if kind != IMPURE})
    made = Residue(root, tuple(sorted(whole)), code, src, len(fresh), tuple(pure))
    _write(root, secret, stamp, Records(manifest_hash, tuple(listing), kept, made))
    return made


def _classified(path: str, item: Any) -> tuple[str, ...] | None:
    """``classify`` of a listed fact file whose bytes pass the loader's checks (None: they do not)."""
    from rofl.loading import graph_index

    text = graph_index.checked_text(path, item)
    return classify(text) if text is not None else None


def fingerprint() -> str:
    """What a record's meaning depends on besides the file: rofl's version, this classifier and the
    scanner's vocabulary it accepts."""
    from rofl import __version__

    return hash_key("\0".join([__version__, str(FORMAT), _pure_text()]).encode())


_KEYWORDS = ("not", "is", "mod", "want", "bridge")  # names the parser does not take as atoms


@cache
def _pure_pattern() -> re.Pattern[str]:
    return re.compile(_pure_text())


@cache
def _pure_text() -> str:
    """A whole pure fact file: lines that are empty, a ``--`` comment, or one fact of the scanner's
    vocabulary in [code] with its arity, written as the scanner writes it (strings without a backslash
    or control character, integers, atoms).  Stricter than the parser: what it refuses loads whole."""
    from rofl.scanner.schema import RELATIONS

    arg = r'(?:"[^"\\\x00-\x1f\x7f]*"|-?[0-9]+|(?!(?:' + "|".join(_KEYWORDS) + r")(?![A-Za-z0-9_]))[a-z][A-Za-z0-9_]*)"
    by_arity: dict[int, list[str]] = {}
    for r in RELATIONS:
        by_arity.setdefault(len(r.columns), []).append(re.escape(r.name))
    facts = [
        rf"(?:{'|'.join(sorted(names))})\[code\]\({arg}(?:, {arg}){{{n - 1}}}\)\."
        for n, names in sorted(by_arity.items())
    ]
    line = "(?:--[^\n]*|" + "|".join(facts) + ")?"
    return rf"(?:{line}\n)*{line}"


_RELATION = re.compile(r"^([a-z][A-Za-z0-9_]*)\[code\]\(", re.M)


def classify(text: str) -> tuple[str, ...]:
    """One fact file's text judged: the [code] relations it asserts when it is pure (``_pure_pattern``
    takes the whole text), else ``IMPURE``."""
    if _pure_pattern().fullmatch(text) is None:
        return IMPURE
    return tuple(sorted(set(_RELATION.findall(text))))


def residue_kernel(found: Residue, rules: tuple, budget: int, keeps: Callable[[str], bool] | None = None) -> Kernel:
    """The kernel a full load of the scan makes (``rofl.loading.kernel.loaded_code_kernel``), without the
    pure files' [code] facts: boot, code.rofl, each whole fact file, the loader's facts and the rule
    files (with ``keeps``, the relations it refuses left out as ``rofl.loading.factload.Loading`` leaves
    them out: the caller drops them once every fact is in).  Raises ``Unsure`` when a whole file does
    not load as it did when classified."""
    from rofl.loading import graph_index
    from rofl.loading.factload import Loading, load_each
    from rofl.loading.kernel import BOOT, CODE_RULES, declare_vocabulary, loader_facts
    from rofl.scanner.layout import MANIFEST_NAME

    kernel = Kernel(BOOT, budget=budget)
    kernel.load_sources([(CODE_RULES, None)], evaluate_now=False)

    def sources() -> Iterator[tuple[Path, str, str]]:
        for row in found.whole:  # each checked again as read: the loader asserts it as the scanner (the preamble too)
            path = found.root / row[0]
            text = graph_index.checked_text(path, graph_index.Listed(*row))
            if text is None:
                raise Unsure(f"{path}: changed since it was checked")
            yield path, SCANNER, text

    def failed(path: Path, exc: RoflError) -> None:
        raise Unsure(f"{path}: {exc}")

    load_each(kernel, sources(), Loading(keeps), failed)
    loader = (found.root / MANIFEST_NAME, None, loader_facts([], None))
    kernel.load_sources([loader, *[(Path(r), "user") for r in rules]], evaluate_now=False)
    declare_vocabulary(kernel)
    return kernel


class Unsure(Exception):
    """The residue does not answer for the full load: the caller loads every fact file."""


# The relations the kernel computes from every fact's metadata (or lists every base relation in):
# a rule that reads one reads the pure files' facts too.
def _fact_reflection() -> frozenset[str]:
    from rofl.engine import vocabulary as V

    return V.VIRTUAL_RELATIONS | {V.EDB, V.HOLE}


@dataclass(frozen=True, slots=True)
class Needs:
    """What the live audit rules of a residue kernel read of the pure files: their [code] relations (those
    facts must be loaded for the full audit) and the display names of the audits those rules conclude."""

    relations: frozenset[str]
    audits: frozenset[str]


NOTHING = Needs(frozenset(), frozenset())


def needs(kernel: Kernel, found: Residue) -> Needs | None:
    """What the audits of ``kernel`` (``residue_kernel`` and what was loaded over it since) read of the pure
    files: the [code] relations the live rules concluding into [audit] read (directly or through the rules
    deriving what they read), which ``load_pure`` then adds, so that the kernel's audits are the full
    kernel's.  ``NOTHING`` when no live audit rule reads them (boot's ``forged`` rule excepted while
    ``authority(code, scanner)`` holds: over a pure file it needs a fact whose asserter has no authority,
    and there is none).  A rule is dead when a positive premise that does not depend on the pure files has
    no row in this kernel (then it has none in the full one either).  None when a live audit rule reads the
    facts' metadata (every fact): the caller loads every fact file."""
    from rofl.engine.clauses import NOW, Literal, body_literals
    from rofl.engine.namespace import display_name
    from rofl.engine.rulebook import decode

    rules = [clause for _, clause in decode(kernel.store)[0]]
    reflection = _fact_reflection()
    codey: set[tuple[str, str | None]] = {(rel, CODE) for rel in found.code}
    wild: set[str] = set(found.code)  # relations with rows in [code] (read by a literal of any perspective)

    def reads(lit: Literal) -> bool:
        if lit.rel in reflection:
            return True
        if type(lit.persp) is not str:
            return lit.rel in wild
        return (lit.rel, lit.persp) in codey or (lit.rel, None) in codey

    changed = True
    while changed:  # every relation whose rows may differ with the pure files' facts
        changed = False
        for clause in rules:
            head = clause.head
            key = (head.rel, head.persp if type(head.persp) is str else None)
            if key not in codey and any(reads(lit) for lit, _ in body_literals(clause.body)):
                codey.add(key)
                wild.add(head.rel)
                changed = True
    granted = _scanner_granted(kernel)
    suspects = []  # the audit rules that read the pure files, with the premises that may show them dead
    for clause in rules:
        head = clause.head
        if type(head.persp) is str and head.persp != "audit":
            continue
        if not any(reads(lit) for lit, _ in body_literals(clause.body)):
            continue
        if granted and (head, clause.body) == _BOOT_FORGED:
            continue
        premises = [
            item
            for item in clause.body
            if type(item) is Literal and item.temporal == NOW and type(item.persp) is str and not reads(item)
        ]
        suspects.append((clause, premises))
    if not suspects:
        return NOTHING
    live = [clause for clause, premises in suspects if not premises]
    asked = [(clause, premises) for clause, premises in suspects if premises]
    if asked:
        result = kernel.evaluate(goals={item.rel for _, premises in asked for item in premises})
        if result.partial:
            return None
        base = kernel.store.base

        def empty(item: Literal) -> bool:
            rows = base.get(item.rel, {})
            return not result.rows(item.rel, item.persp) and not any(row[0] == item.persp for row in rows)

        live += [clause for clause, premises in asked if not any(empty(item) for item in premises)]
    if not live:
        return NOTHING
    from rofl.loading.kernel import body_reads, cone, reads_graph

    read = cone(reads_graph(rules), set().union(*(body_reads(clause) for clause in live)))
    if read is None:
        return None  # a live audit rule reads the facts' metadata (every fact)
    return Needs(frozenset(read & found.code), frozenset(display_name(clause.head.rel) for clause in live))


def read_columns(kernel: Kernel, relations: Iterable[str]) -> dict[str, tuple[int, ...] | None]:
    """For each of ``relations`` (pure [code] relations), the positions of its stored rows ``(persp, *args)``
    that ``kernel``'s rules may read, None for all of them.  A position is left out when every premise
    naming the relation (in any perspective) is positive, in the present, outside an aggregate, of one
    arity, and holds there a variable its rule names nowhere else: ``src_file[code](F, _)`` reads the
    path, not the digest.  The facts derived from two sets of rows are the same when the rows cut to
    these positions are.  ``LOCATED``'s relations, which the findings read row by row, are read whole."""
    from collections import Counter

    from rofl.engine.clauses import NOW, Literal, body_literals
    from rofl.engine.rulebook import decode

    wanted = set(relations)
    kept: dict[str, set[int]] = {rel: {0} for rel in wanted}
    arity: dict[str, int] = {}
    whole = wanted & LOCATED
    for _, clause in decode(kernel.store)[0]:
        if clause.head.rel in wanted:
            whole.add(clause.head.rel)
        counts: Counter[str] | None = None
        for item in clause.body:
            if type(item) is not Literal:
                whole.update(lit.rel for lit, _ in body_literals((item,)) if lit.rel in wanted)
                continue
            rel = item.rel
            if rel not in wanted or rel in whole:
                continue
            if item.temporal != NOW or arity.setdefault(rel, len(item.args)) != len(item.args):
                whole.add(rel)
                continue
            if counts is None:
                counts = Counter(_variables(clause))
            for j, arg in enumerate(item.args):
                if not (_is_variable(arg) and counts[arg[1]] == 1):
                    kept[rel].add(j + 1)
    return {
        rel: None if rel in whole or rel not in arity or len(kept[rel]) == arity[rel] + 1 else tuple(sorted(kept[rel]))
        for rel in sorted(wanted)
    }


# the [code] relations the findings read row by row (rofl.questions.findings.import_lines)
LOCATED = frozenset({"src_resolves", "src_external", "src_workspace_import", "src_import_line"})


def _is_variable(term: Any) -> bool:
    return type(term) is tuple and len(term) == 2 and term[0] == "$var" and type(term[1]) is str


def _variables(value: Any) -> Iterator[str]:
    """The name of every variable occurrence in a clause (its head, premises, builtins and aggregates)."""
    if _is_variable(value):
        yield value[1]
    elif type(value) is tuple:
        for part in value:
            yield from _variables(part)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from _variables(getattr(value, name))


def pure_rows(found: Residue) -> KeptRows:
    """The rows of every pure file, decoded relation by relation when asked (``rofl.loading.pure_rows``: a file
    missing there is read, checked against its digest and parsed).  Raises ``Unsure`` when a file changed
    since it was checked or does not read as pure."""
    from rofl.loading import cachemac, graph_index
    from rofl.loading import pure_rows as kept

    listed = {row[0]: graph_index.Listed(*row[:4]) for row in found.pure}

    def text(path: str, _digest: str) -> str | None:
        return graph_index.checked_text(found.root / path, listed[path])

    try:
        return kept.rows_by_digest(found.root, [row[:2] for row in found.pure], text, cachemac.secret())
    except kept.NotPure as exc:
        raise Unsure(str(exc)) from None


def load_pure(
    kernel: Kernel,
    found: Residue,
    relations: frozenset[str] | None = None,
    keeps: Callable[[str], bool] | None = None,
    rows: KeptRows | None = None,
    who: str | None = SCANNER,
) -> int:
    """Assert the pure files' facts of ``relations`` (None: every relation) as the loader asserts them (by
    ``who``, the scanner, in [code]), from ``rows`` (``pure_rows``, read when not given); a relation ``keeps``
    refuses gets its first row only, as ``rofl.loading.factload.Loading`` declares it before it is dropped.
    The number of facts new.  Raises ``Unsure`` as ``pure_rows`` does."""
    from itertools import chain

    from rofl.loading.pure_rows import NotPure

    kept = rows if rows is not None else pure_rows(found)
    added = 0
    try:
        for rel in kept.relations() if relations is None else sorted(relations):
            parts = kept.parts(rel)
            if not parts:
                continue
            every = chain.from_iterable(parts)
            added += kernel.assert_rows(rel, CODE, every if keeps is None or keeps(rel) else [next(every)], who)
    except NotPure as exc:
        raise Unsure(str(exc)) from None
    return added


def audited_who(kernel: Kernel) -> str | None:
    """Who an audit over the residue asserts the pure files' facts by: nobody (no ``asserted_by`` row) while
    authority(code, scanner) holds, else the scanner.  A pure file is the scanner's own output, checked
    against its digest, so with that authority boot's ``forged`` audit can never name its facts, and it is
    the one audit rule reading fact metadata that the residue audit runs (``needs``: any other takes the
    full load); without the rows, that rule visits only the residue's facts instead of every fact."""
    return None if _scanner_granted(kernel) else SCANNER


def _scanner_granted(kernel: Kernel) -> bool:
    """Whether authority(code, scanner) holds: then no fact of a pure file is forged."""
    return ("main", (CODE,), (SCANNER,)) in kernel.store.base.get("authority", {})


def _forged_rule() -> tuple:
    """Boot's ``forged[audit](F) :- asserted_by(F, Who), in_perspective(F, P), not authority(P, Who).``
    as the kernel decodes it: (head, body)."""
    from rofl.engine.clauses import Literal, Negated

    f, who, p = ("$var", "F"), ("$var", "Who"), ("$var", "P")
    head = Literal("audit$forged", "audit", (f,), "now")
    body = (
        Literal("asserted_by", "main", (f, who), "now"),
        Literal("in_perspective", "main", (f, p), "now"),
        Negated(Literal("authority", "main", (p, who), "now")),
    )
    return head, body


_BOOT_FORGED = _forged_rule()


@dataclass(frozen=True, slots=True)
class Records:
    """What ``.rofl-audit.records`` holds: the manifest's hash and the listing (with each file's stat
    when its bytes were checked) it was checked against, each fact file's judgement by digest, and
    the residue it made."""

    manifest: str
    listing: tuple[tuple, ...]
    kinds: dict[str, tuple[str, ...]]  # digest -> the [code] relations of a pure file, or IMPURE
    residue: Residue


def _read(root: Path, secret: bytes, stamp: str) -> Records | None:
    """The records of ``root`` written under ``stamp`` and tagged with ``secret``; None when there are none."""
    from rofl.loading import cachemac

    try:
        data = safe_write.read_nofollow(str(root / RECORDS_NAME), MAX_RECORDS_BYTES)
    except OSError:
        return None
    if data is None or not data.startswith(MAGIC):
        return None
    tag, sep, payload = data[len(MAGIC) :].partition(b"\n")
    if not sep or not cachemac.verify(secret, payload, tag):
        return None
    try:
        form, written, manifest, listing, kinds, whole, code, src, pure = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if form != FORMAT or written != stamp:
        return None
    return Records(manifest, listing, kinds, Residue(root, whole, frozenset(code), src, 0, pure))


def _write(root: Path, secret: bytes, stamp: str, records: Records) -> None:
    from rofl.loading import cachemac

    r = records.residue
    head = (FORMAT, stamp, records.manifest, records.listing, records.kinds)
    payload = marshal.dumps((*head, r.whole, tuple(sorted(r.code)), r.src, r.pure))
    try:
        safe_write.write_atomic(str(root / RECORDS_NAME), (MAGIC, cachemac.tag(secret, payload), b"\n", payload))
    except OSError:
        pass  # a read-only fact folder: checked again next time
