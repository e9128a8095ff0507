"""Baselines: the findings a project accepts for now (`rofl audit --baseline FILE`, `--write-baseline FILE`).

A baseline is a JSON file ``{"format": 1, "findings": [entry, ...]}``, one entry per finding keyed by
``Finding.key`` (a rule and its two ends, or an audit row; never a line number, which moves), sorted by
key and written atomically (``engine.safe_write``), so it diffs well and a crash leaves the old one.
Comparing the current findings with a baseline splits them into new (reported) and known (ignored),
and lists the baseline's entries that no longer hold as fixed; writing a baseline while comparing with
one keeps only the known entries, so a baseline only ever shrinks.

dependency-cruiser's ``known-violations.json`` (``depcruise --output-type baseline``: a list of
``{from, to, rule: {name, severity}}``) is read as a baseline too, its entries keyed as the findings
of a translated config are (``rofl.loading.depcruise_config.known_violation_keys``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rofl.engine.base.errors import RoflError

from .findings import Finding

FORMAT = 1
MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Comparison:
    new: tuple[Finding, ...]
    known: tuple[Finding, ...]
    fixed: tuple[dict, ...]  # baseline entries no current finding has


def entry(finding: Finding) -> dict:
    """A finding as a baseline entry: its key and what a reader needs to recognise it."""
    out = {"key": finding.key, "audit": finding.audit}
    for name, value in (
        ("rule", finding.rule),
        ("from", finding.source),
        ("to", finding.target),
        ("fact", finding.fact),
        ("file", finding.file),
        ("message", finding.message if finding.rule is None else None),
    ):
        if value is not None:
            out[name] = value
    return out


def read(path: str | Path) -> list[dict]:
    """The entries of a baseline file; a missing, unreadable or malformed one is a user error."""
    import errno

    from rofl.engine.base.safe_write import read_regular

    p = Path(path)
    try:
        data = read_regular(p, MAX_BYTES)  # a FIFO or /dev/zero is refused, never read
    except FileNotFoundError:
        raise RoflError(f"{p}: no such baseline; write one with `rofl audit --write-baseline {p}`") from None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise RoflError(
                f"{p}: the baseline is over {MAX_BYTES} bytes; write it again with --write-baseline"
            ) from None
        raise RoflError(
            f"{p}: cannot read the baseline ({exc.strerror}); give the JSON file `rofl audit --write-baseline` wrote"
        ) from None
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RoflError(f"{p}: the baseline is not UTF-8 text; write it again with --write-baseline") from None
    except json.JSONDecodeError as exc:
        raise RoflError(
            f"{p}:{exc.lineno}: the baseline is not valid JSON ({exc.msg}); write it again with --write-baseline"
        ) from None
    from ..loading.depcruise_config import is_known_violations, known_violation_keys

    if is_known_violations(doc):  # dependency-cruiser's `depcruise --output-type baseline`
        return known_violation_keys(doc)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("findings"), list):
        raise RoflError(
            f'{p}: not a rofl baseline (expected {{"format": {FORMAT}, "findings": [...]}}); write it with --write-baseline'
        )
    entries = doc["findings"]
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("key"), str):
            raise RoflError(f'{p}: entry {i + 1} has no "key" string; write the baseline again with --write-baseline')
        problem = _unwritable(e)
        if problem is not None:
            raise RoflError(
                f"{p}: entry {i + 1} (key {e['key']!r}) {problem}, which `rofl audit --write-baseline` never writes;"
                " write the baseline again with --write-baseline"
            )
    return entries


UNLOCATED = ("stale", "reextract")  # the audits whose findings have no fact, only a file and a message


def _unwritable(e: dict) -> str | None:
    """Why ``e`` is no entry ``entry`` could have written (None when it is one): a named rule's finding
    has its rule, ends and fact; a stale or re-extraction finding its file and message; any other its fact.
    Its key must be the one those fields give (``Finding.key``)."""
    audit = e.get("audit")
    if not isinstance(audit, str) or not audit:
        return 'has no "audit" string'
    if "rule" in e:
        if not all(isinstance(e.get(name), str) for name in ("rule", "fact")):
            return 'has a "rule" but no "fact" string'
        expected = f"{e['rule']}\t{e.get('from')}\t{e.get('to')}"
    elif audit in UNLOCATED:
        if not isinstance(e.get("file"), str) or not isinstance(e.get("message"), str):
            return f'is a {audit} finding without its "file" and "message" strings'
        expected = f"{audit}\t{e['file']}\t{e['message']}"
    elif not isinstance(e.get("fact"), str):
        return f'is a {audit} finding with no "fact"'
    else:
        expected = e["fact"]
    return None if e["key"] == expected else f"has a key that is not its finding's ({expected!r})"


def compare(findings: list[Finding], entries: list[dict]) -> Comparison:
    """Split ``findings`` into new and known against a baseline's entries; the entries left over are fixed."""
    keys = {e["key"] for e in entries}
    current = {f.key for f in findings}
    new = tuple(f for f in findings if f.key not in keys)
    known = tuple(f for f in findings if f.key in keys)
    fixed = tuple(sorted((e for e in entries if e["key"] not in current), key=lambda e: e["key"]))
    return Comparison(new, known, fixed)


def render(findings: list[Finding] | tuple[Finding, ...]) -> bytes:
    """The baseline file's bytes: entries unique by key, sorted by key, stable across runs."""
    by_key = {f.key: entry(f) for f in findings}
    doc = {"format": FORMAT, "findings": [by_key[k] for k in sorted(by_key)]}
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write(path: str | Path, findings: list[Finding] | tuple[Finding, ...]) -> int:
    """Write a baseline atomically; the number of entries written."""
    from rofl.engine.base.safe_write import UnsafePath, write_atomic

    p = Path(path)
    if not p.parent.is_dir():
        raise RoflError(f"{p}: folder {p.parent} does not exist; create it or name another baseline file")
    data = render(findings)
    count = len({f.key for f in findings})
    try:
        write_atomic(str(p), data)
    except UnsafePath as exc:
        raise RoflError(f"{p}: refusing to write the baseline: {exc}") from None
    except OSError as exc:
        raise RoflError(f"{p}: cannot write the baseline: {exc.strerror}") from None
    return count
