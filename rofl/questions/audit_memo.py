"""The last residue audit's answer, reused when nothing the audit reads has changed since (early cutoff).

A one-file edit changes that file's fact file, but most edits (a function body, a comment) change no row
the audit's rules read: ``src_file[code](F, _)`` reads the path, not the content digest beside it, and
the imports are where they were.  ``.rofl-audit.answer`` keeps the answer of the last audit over the
residue (``rofl.questions.audit.audit_reused``) with what it was computed from:

* ``key``: everything but the pure fact files' rows: this code (rofl's version and the modules' stamps),
  the residue kernel's base facts with who asserted each (the rules stored as data, the residue's whole
  fact files, the presets' and package facts; a rule file's text is its rules and facts there, and where
  they are written appears in an error only, never in an answer kept), the options the judging reads
  and the baseline's entries;
* the pure relations the audit reads with the row positions its rules may read
  (``rofl.loading.audit_store.read_columns``);
* for each pure file's digest, the digest of its rows of those relations cut to those positions, and
  the digest of all of them, sorted: the pure rows the kernel gets, as a set.

An audit whose key and relations are the memo's reads the rows of the pure files it has no digest for
(the files that changed: at most ``MAX_CHANGED``, else it evaluates), and when the sorted digests are the
memo's, answers with the memo's answer without loading or evaluating the pure rows: equal inputs give
the equal answer.  Anything else evaluates, and keeps its answer for the next audit.  The file is
tagged under this user's secret (``rofl.loading.cachemac``); one that does not verify is ignored.
"""

from __future__ import annotations

import logging
import marshal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.scanner.hashing import hash_key

from .findings import Finding, RuleInfo

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel
    from rofl.loading.audit_store import Residue
    from rofl.loading.pure_rows import KeptRows

    from .audit import AuditAnswer, Judging

NAME = ".rofl-audit.answer"
MAGIC = b"rofl-audit-answer 1\n"
FORMAT = 1
MAX_BYTES = 1 << 31
MAX_CHANGED = 256  # pure files with no digest in the memo read and compared; past that, evaluate
_log = logging.getLogger(__name__)  # what the memo decided, for -v (rofl.logs)
_FINDING = tuple(f.name for f in fields(Finding))
_RULE = tuple(f.name for f in fields(RuleInfo))

Columns = tuple[tuple[str, tuple[int, ...] | None], ...]  # (relation, the row positions read; None: all), sorted


@dataclass(frozen=True, slots=True)
class Kept:
    """What the memo file holds for one key and columns: each pure file's row digest, all of them as one, the answer."""

    files: dict[str, str]  # pure file digest -> the digest of its rows read
    combined: str  # ``_combined`` of every wanted file's row digest
    answer: tuple  # ``_encode`` of the answer


@dataclass(frozen=True, slots=True)
class Probe:
    """One audit's inputs but the pure rows, and the memo found for them: ``answer()`` looks, ``keep()`` writes."""

    root: Path
    secret: bytes
    key: str
    columns: Columns
    found: Residue
    memo: Kept | None  # the memo file's when its key and columns are these

    @classmethod
    def of(cls, kernel: Kernel, found: Residue, relations: Iterable[str], judging: Judging) -> Probe | None:
        """The probe of the audit ``kernel`` (the residue kernel with everything but the pure rows) will
        answer, reading ``relations`` of the pure files; None without a private secret or when an input
        does not reduce to bytes (then the audit evaluates and keeps nothing)."""
        from rofl.loading import cachemac
        from rofl.loading.audit_store import read_columns

        secret = cachemac.secret()
        if secret is None:
            return None
        key = _key(kernel, judging)
        if key is None:
            return None
        columns = tuple(sorted(read_columns(kernel, relations).items()))
        memo = _read(found.root, secret, key, columns)
        return cls(found.root, secret, key, columns, found, memo)

    def answer(self) -> AuditAnswer | None:
        """The memo's answer when the pure rows read are the memo's (None: evaluate)."""
        if self.memo is None:
            return None
        files = self.memo.files
        digests = [row[1] for row in self.found.pure]
        changed = {digest: path for path, digest, *_ in self.found.pure if digest not in files}
        if len(changed) > MAX_CHANGED:
            return None
        fresh = _parsed_digests(self.found, changed, self.columns)
        if fresh is None:
            return None
        if _combined(files.get(d) or fresh[d] for d in digests) != self.memo.combined:
            _log.info("%s: %d fact file(s) changed rows the audit reads: evaluated again", self.root, len(changed))
            return None
        _log.info(
            "%s: the last audit's answer holds (%d fact file(s) changed no row it reads)", self.root, len(changed)
        )
        return _decode(self.memo.answer)

    def keep(self, answer: AuditAnswer, rows: KeptRows) -> None:
        """Write ``answer`` as the memo of these inputs, the pure rows being ``rows``' (a partial answer, or
        one with adapter rounds, is not kept)."""
        if answer.partial or answer.wants is not None:
            return
        known = self.memo.files if self.memo is not None else {}
        files = _row_digests(rows, self.columns, known)
        payload = (FORMAT, self.key, self.columns, files, _combined(files[r[1]] for r in self.found.pure))
        try:
            encoded = marshal.dumps((*payload, _encode(answer)))
        except ValueError:  # a term marshal cannot write: nothing kept
            return
        from rofl.loading import cachemac

        try:
            cachemac.write_tagged(self.root / NAME, MAGIC, self.secret, encoded)
        except OSError:
            pass  # a read-only fact folder: evaluated again next time


def stamp() -> bytes:
    """What an answer's meaning depends on besides its inputs: rofl's version and the code that loads,
    evaluates and judges (each module's name, size and modification time)."""
    import rofl.loading
    import rofl.questions
    from rofl import __version__
    from rofl.loading.cache import engine_fingerprint, folder_fingerprint

    return b"\0".join(
        [
            __version__.encode(),
            str(FORMAT).encode(),
            engine_fingerprint(),
            folder_fingerprint(Path(rofl.questions.__file__).parent),
            folder_fingerprint(Path(rofl.loading.__file__).parent),
        ]
    )


def _key(kernel: Kernel, judging: Judging) -> str | None:
    """The digest of every input but the pure rows (the module docstring's ``key``); None when a fact or an
    option does not reduce to bytes."""
    from rofl.engine.terms import canonical_rows

    parts = [stamp()]
    base = kernel.store.base
    try:
        for rel in sorted(base):
            facts = base[rel]
            rows = canonical_rows(facts)
            parts.append(repr((rel, [(row, facts[row].who, facts[row].tick) for row in rows])).encode())
        options = (
            judging.files,
            judging.load_as,
            judging.rules,
            judging.facts,
            judging.src,
            judging.reextract,
            judging.baseline,
            tuple(sorted(judging.depcruise_names.items())),
            kernel.budget,
        )
        parts.append(repr(options).encode())
    except (ValueError, TypeError, RecursionError):
        return None
    return hash_key(b"\0".join(hash_key(part).encode() for part in parts))


def _read(root: Path, secret: bytes, key: str, columns: Columns) -> Kept | None:
    """The memo when it verifies and was kept for ``key`` and ``columns``."""
    from rofl.loading import cachemac

    data = cachemac.read_tagged(root / NAME, MAGIC, secret, MAX_BYTES)
    if not (isinstance(data, tuple) and len(data) == 6 and data[0] == FORMAT and data[1] == key):
        return None
    if data[2] != columns or not isinstance(data[3], dict) or not isinstance(data[5], tuple):
        return None
    return Kept(data[3], str(data[4]), data[5])


def _cut(rows: tuple, positions: tuple[int, ...] | None) -> tuple:
    """The rows of one file cut to ``positions``, as a set in canonical order."""
    from rofl.engine.terms import canonical_rows

    if positions is None:
        return rows
    width = max(positions) + 1
    cut = {tuple(row[i] for i in positions) if len(row) >= width else row for row in rows}
    return tuple(canonical_rows(cut))


def _file_digest(by_rel: Mapping[str, tuple], columns: Columns) -> str:
    return hash_key(repr([(rel, _cut(by_rel[rel], cols)) for rel, cols in columns if rel in by_rel]).encode())


def _row_digests(rows: KeptRows, columns: Columns, known: Mapping[str, str]) -> dict[str, str]:
    """The digest of each wanted pure file's rows read (``known``'s where it has the file)."""
    wanted = [d for d in rows.digests if d not in known]
    out = {d: known[d] for d in rows.digests if d in known}
    if wanted:
        decoded = {rel: rows._decoded(rel) for rel, _ in columns}
        for digest in wanted:
            by_rel = {rel: found[digest] for rel, found in decoded.items() if digest in found}
            out[digest] = _file_digest(by_rel, columns)
    return out


def _parsed_digests(found: Residue, changed: Mapping[str, str], columns: Columns) -> dict[str, str] | None:
    """The row digests of the pure files ``changed`` (digest -> path), each read, checked against its digest
    and parsed; None when one no longer reads as it was listed."""
    from rofl.loading import graph_index
    from rofl.loading.pure_rows import NotPure, rows_of

    listed = {row[0]: graph_index.Listed(*row[:4]) for row in found.pure if row[1] in changed.keys()}
    memo: dict = {}
    out = {}
    for digest, path in changed.items():
        text = graph_index.checked_text(found.root / path, listed[path])
        if text is None:
            return None
        try:
            out[digest] = _file_digest(dict(rows_of(text, memo)), columns)
        except NotPure:
            return None
    return out


def _combined(digests: Iterable[str]) -> str:
    """One digest of the files' row digests as a multiset (sorted: the order the files are listed in is no input)."""
    return hash_key("\n".join(sorted(digests)).encode())


def _encode(answer: AuditAnswer) -> tuple:
    def finding(f: Finding) -> tuple:
        return tuple(getattr(f, name) for name in _FINDING)

    return (
        dict(answer.audits),
        answer.clean,
        tuple(map(finding, answer.findings)),
        answer.fixed,
        answer.known,
        tuple(map(finding, answer.known_findings)),
        tuple(tuple(getattr(r, name) for name in _RULE) for r in answer.rules_run),
    )


def _decode(data: Any) -> AuditAnswer | None:
    from .audit import AuditAnswer

    try:
        audits, clean, findings, fixed, known, known_findings, rules_run = data
        return AuditAnswer(
            audits=audits,
            clean=clean,
            findings=tuple(Finding(*f) for f in findings),
            fixed=fixed,
            known=known,
            partial=False,
            wants=None,
            known_findings=tuple(Finding(*f) for f in known_findings),
            rules_run=tuple(RuleInfo(*r) for r in rules_run),
        )
    except (ValueError, TypeError):
        return None
