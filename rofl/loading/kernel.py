"""Building a kernel over the command line's inputs (boot, a saved store, program files, --load-as files, a scan):
the fact-folder load with the scanner's authority granted by the loader, the compiled cache, the forgery refusal."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import rofl.rules as shipped_rules
from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import DEFAULT_BUDGET, Kernel
from rofl.scanner.layout import MANIFEST_NAME

from .budgets import CODE_BUDGET as CODE_BUDGET  # re-exported: the commands and servers read it here
from .factdir import SCANNER, UNVERIFIED
from .source import KernelInputs as KernelInputs  # re-exported: what build_kernel takes

if TYPE_CHECKING:
    from rofl.engine.clauses import Clause
    from rofl.scanner.manifest import Manifest

    from .cache import Subset
    from .factdir import LazyFolder
    from .factload import Loading

BOOT = shipped_rules.path("boot.rofl")
CODE_RULES = shipped_rules.path("code.rofl")

_log = logging.getLogger(__name__)  # what loading does, for -v (rofl.logs)


class ForgedFacts(RoflError):
    """Refusing to answer over forged facts (ask and impact with --public-key): exit 1, not a user error."""

    exit_code = 1


def who_name(who: str) -> str:
    from rofl.engine.lexer import is_name

    if not is_name(who):
        raise RoflError(f"--load-as: '{who}' is not an atom; use a lowercase name such as sensor_net")
    return who


def build_kernel(
    inputs: KernelInputs,
    *,
    warn: Callable[[str], None] | None = None,
    manifest: Callable[[], Manifest] | None = None,
) -> Kernel:
    """Boot (or a saved store, or a scanned fact folder with code.rofl and --rules), then each FILE
    (no who), then each --load-as file asserted by its WHO; evaluated once, except over a scan, where
    each question evaluates only the relations it depends on (its goals).  ``use_cache=False`` (audit)
    reads the fact files themselves, never the compiled cache.  With ``public_key`` the scan's signature
    is checked first (a scan that fails it loads as unverified); ``refuse_forged`` (ask and impact
    with --public-key) exits 1 instead of answering over a failed signature or any forged fact.
    ``manifest`` gives the scan's manifest when the caller reads it anyway (read once per command)."""
    files, load_as, budget, store, facts, rules = (
        inputs.files,
        inputs.load_as,
        inputs.budget,
        inputs.store,
        inputs.facts,
        inputs.rules,
    )
    use_cache, public_key, refuse_forged = inputs.use_cache, inputs.public_key, inputs.refuse_forged
    if facts is not None and store:
        raise RoflError("--facts and --store both name a starting point; give one of them")
    if facts is not None and any(who_name(w) == SCANNER for w, _ in load_as):
        raise RoflError(
            f"--load-as {SCANNER}: '{SCANNER}' is the identity the loader gives a scan's verified fact files; load FILE as another WHO"
        )
    if facts is not None:
        # boot, code.rofl and rofl's own rule files only: no program of the user's can read more (or usurp)
        alone = inputs.reads is not None and not (files or load_as or public_key) and all(map(is_shipped, rules))
        kernel, warnings = loaded_code_kernel(
            facts,
            rules,
            budget or CODE_BUDGET,
            use_cache and public_key is None,
            public_key,
            manifest=manifest,
            reads=question_keep(inputs.reads, rules) if alone and inputs.reads is not None else None,
        )
        for line in warnings:  # said before a program file can fail to load
            if warn is not None:
                warn(line)
            else:
                sys.stderr.write(f"warning: {line}\n")
        if refuse_forged and public_key is not None:
            refuse_if_forged(kernel)
    elif public_key is not None:
        raise RoflError("--public-key checks a scan's signature; give --facts DIR too")
    elif store:
        kernel = Kernel.restore(store, budget=budget or DEFAULT_BUDGET)
    else:
        kernel = Kernel(BOOT, budget=budget or DEFAULT_BUDGET)
    sources: list[tuple[Path, str | None]] = [(Path(f), None) for f in files]
    sources += [(Path(f), who_name(w)) for w, f in load_as]
    if facts is None:
        sources += [(Path(r), "user") for r in rules]
    if sources:  # over a scan, the question evaluates only what it needs (its goals)
        kernel.load_sources(sources, evaluate_now=facts is None)
        _log.info("loaded %d program file(s)%s", len(sources), "" if facts is None else " over the scan")
        for path, who in sources:
            _log.debug("%s asserted by %s", path, who or "no one (its own facts)")
    return kernel


def loaded_code_kernel(
    facts: str,
    rules: tuple,
    budget: int,
    use_cache: bool = True,
    public_key: str | None = None,
    keep: Subset | None = None,
    manifest: Callable[[], Manifest] | None = None,
    reads: Callable[[str], bool] | None = None,
) -> tuple[Kernel, tuple[str, ...]]:
    """A kernel over a scanned fact folder and the warnings of its load (not printed): from its compiled cache
    when nothing it depends on changed (and ``use_cache``) and the cache carries this user's tag
    (rofl.loading.cachemac).  The loader, not any file, grants the scanner its authority over [code].
    With ``keep``, only the base relations it keeps are loaded (`rofl report`: what its rules read),
    from a cache of those alone when there is one.  ``manifest`` gives the scan's manifest when the caller
    holds it (a load from the cache reads none).  ``reads``: the relations a load from the compiled cache
    adopts (its other segments are not read); a load from the fact files loads, and caches, every one."""
    from rofl import __version__

    from . import cache
    from .factdir import stat_key

    root = Path(facts)
    if not (root / MANIFEST_NAME).is_file():
        raise RoflError(f"{root}: no {MANIFEST_NAME} here; run `rofl scan SRC --out {root}` first")
    folder_key = stat_key(root)
    parts = [__version__.encode(), cache.engine_fingerprint(), folder_key.encode(), BOOT.read_bytes()]
    parts.append(CODE_RULES.read_bytes())
    from rofl.engine.base.safe_write import MAX_PROGRAM_BYTES, read_regular

    # The rule files load last, over the scan: the compiled cache holds the scan alone, shared by every
    # command and rule file (`rofl summary`'s rules, a user's --rules), and they load over it each time.
    # A subset (``keep``) drops what its question does not read after its rule files load: it caches them.
    rules_cached = keep is not None
    for r in rules:
        try:
            text = read_regular(r, MAX_PROGRAM_BYTES)  # a FIFO is refused
        except FileNotFoundError:
            raise RoflError(f"{r}: no such rule file; check the --rules path") from None
        except OSError as exc:
            raise RoflError(f"{r}: cannot read ({exc.strerror}); pass a readable UTF-8 .rofl file as --rules") from None
        if rules_cached:
            parts.append(str(r).encode() + b"\0" + text)
    from rofl.scanner.hashing import hash_key

    key = hash_key(b"\0\0".join(parts))
    from . import cachemac

    mac_key = cachemac.secret() if use_cache else None  # no private per-user secret: no cache at all
    subset = None if mac_key is None or keep is None else cache.read(root, keep.key(key), mac_key, name=keep.name)
    if subset is not None or mac_key is None:
        hit = subset
    else:  # the tag is checked on the bytes parsed
        hit = cache.read(root, key, mac_key, keep.keeps if keep is not None else reads)
    if hit is not None:
        kernel = Kernel(None, budget=budget)
        kernel.store, warnings = hit
        _log.info("%s: loaded from its compiled cache (%s)", root, keep.name if subset and keep else cache.CACHE_NAME)
    else:
        why = "caching is off" if mac_key is None else "no valid compiled cache"
        kernel, warnings = _cold_load(
            root, folder_key, rules if rules_cached else (), budget, public_key, keep, why, manifest
        )
        if mac_key is not None and keep is None:
            cache.write(root, key, kernel.store, warnings, mac_key)
    if keep is not None and mac_key is not None and subset is None:
        cache.write(root, keep.key(key), kernel.store, warnings, mac_key, name=keep.name)
    if rules and not rules_cached:
        kernel.load_sources([(Path(r), "user") for r in rules], evaluate_now=False)
    declare_vocabulary(kernel)
    return kernel, tuple(warnings)


def declare_vocabulary(kernel: Kernel) -> None:
    """Tell the kernel every relation of the scanner's vocabulary (``scanner.schema.RELATIONS``): one
    no file of this scan has rows of (``src_parse_error`` of a clean repository) answers "no", not "no
    relation"."""
    from rofl.scanner.schema import FACTS_PERSPECTIVE, RELATIONS

    kernel.declare((r.name, FACTS_PERSPECTIVE, r.arity) for r in RELATIONS)
    kernel.declare(LOADER_VOCABULARY)


# What the loader asserts over a scan (loader_facts), known even when it asserted none of it: asking
# for them never falls into the unknown-relation path (whose did-you-mean walks every base row).
LOADER_VOCABULARY = (("missing_fact_file", "audit", 1),)


def question_keep(asked: frozenset[str], shipped: tuple = ()) -> Callable[[str], bool] | None:
    """Which relations a question over a scan needs (``asked``: the stored names of the relations it asks),
    loaded with boot.rofl, code.rofl and the ``shipped`` rule files (rofl's own, e.g. summary.rofl): every
    relation that is no scanner relation, and each scanner relation their rules lead from ``asked`` to
    (through the rules deriving what they read, and the relation a ``cycle_component`` literal names).  None
    (every relation) when they lead to fact metadata, which reads every fact."""
    graph = _rule_graph(tuple(Path(p) for p in (BOOT, CODE_RULES, *shipped)))
    needed = cone(graph, asked)
    if needed is None:
        return None
    from rofl.scanner.schema import RELATIONS

    dropped = frozenset(r.name for r in RELATIONS) - needed
    return lambda rel: rel not in dropped


def is_shipped(path: str | Path) -> bool:
    """Whether ``path`` is one of rofl's own rule files (as ``rofl.rules.path`` names them)."""
    return Path(path).resolve().parent == BOOT.resolve().parent


def cone(graph: dict[str, frozenset[str]], asked: Iterable[str]) -> frozenset[str] | None:
    """``asked`` and every relation the rules of ``graph`` (``reads_graph``) lead from it to; None when they
    lead to fact metadata (``asserted_by``, ``in_perspective``, ``derived_by``, ``edb``, ``hole``: every
    fact) or to a relation a variable names."""
    from rofl.engine import vocabulary as V

    metadata = (V.VIRTUAL_RELATIONS - {V.CYCLE_COMPONENT}) | {V.EDB, V.HOLE, ""}
    seen: set[str] = set()
    todo = list(asked)
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        if rel in metadata:
            return None
        seen.add(rel)
        todo.extend(graph.get(rel, ()))
    return frozenset(seen)


def reads_graph(clauses: Iterable[Clause]) -> dict[str, frozenset[str]]:
    """Each relation the rules among ``clauses`` conclude (stored names, as ``qualify`` gives them) to the
    relations their bodies read; a ``cycle_component`` literal reads the relation it names whole ("" when a
    variable names it)."""
    graph: dict[str, set[str]] = {}
    for clause in clauses:
        if clause.body:
            graph.setdefault(clause.head.rel, set()).update(body_reads(clause))
    return {rel: frozenset(reads) for rel, reads in graph.items()}


def body_reads(clause: Clause) -> set[str]:
    """The relations one rule's body reads (``reads_graph``'s edges)."""
    from rofl.engine.clauses import body_literals
    from rofl.engine.cycles import named_relation
    from rofl.engine.vocabulary import CYCLE_COMPONENT

    return {
        (named_relation(lit) or "") if lit.rel == CYCLE_COMPONENT else lit.rel for lit, _ in body_literals(clause.body)
    }


def _rule_graph(paths: tuple[Path, ...]) -> dict[str, frozenset[str]]:
    """``reads_graph`` of the rules of the rule files ``paths``."""
    return _parsed_graph(tuple((path, path.stat().st_mtime_ns) for path in paths))


@functools.cache
def _parsed_graph(versions: tuple[tuple[Path, int], ...]) -> dict[str, frozenset[str]]:
    """``_rule_graph`` of the rule files as they are at these versions (their mtimes), parsed once."""
    from rofl.engine.namespace import qualify
    from rofl.engine.parse import parse_program

    clauses = [qualify(c) for path, _ in versions for c in parse_program(path.read_text(encoding="utf-8"), str(path))]
    return reads_graph(clauses)


def _cold_load(
    root: Path,
    folder_key: str,
    rules: tuple,
    budget: int,
    public_key: str | None,
    keep: Subset | None,
    why: str,
    manifest_of: Callable[[], Manifest] | None = None,
) -> tuple[Kernel, tuple[str, ...]]:
    """A kernel over the fact files themselves: each read, checked against the manifest's digest, parsed
    and asserted in turn (``rofl.loading.factload``: one file's text alive at a time, the relations ``keep``
    does not keep left out as each file is parsed), then the loader's own facts and the rule files."""
    from .factdir import checked_root, list_folder, read_manifest
    from .factload import Loading

    checked = checked_root(root)
    if public_key is None:  # before the manifest is read or the folder listed: the residue checks both its way
        made = _residue_load(checked, rules, budget, keep, why, manifest_of)
        if made is not None:
            return made, ()
    manifest = manifest_of() if manifest_of is not None else read_manifest(checked)
    folder = list_folder(root, folder_key, manifest)
    unsigned = None
    if public_key is not None:
        from .signing import verify_folder

        verdict = verify_folder(root, manifest, public_key)
        unsigned = None if verdict.ok else verdict.reason
    del manifest  # what the load still needs of it is in ``folder``
    kernel = Kernel(BOOT, budget=budget)
    kernel.load_sources([(CODE_RULES, None)], evaluate_now=False)
    loading = Loading(keep.keeps if keep is not None else None)
    missing, warnings = _load_fact_files(kernel, folder, loading, unsigned, why)
    loader = (root / MANIFEST_NAME, None, loader_facts(missing, unsigned))
    kernel.load_sources([loader, *[(Path(r), "user") for r in rules]], evaluate_now=False)
    loading.drop_left_out(kernel)  # the relations this command does not read (declared, as loaded whole)
    if unsigned:
        warnings += (f"signature check failed: {unsigned}; every fact file loads as '{UNVERIFIED}'",)
    if missing:
        warnings += (
            f"{len(missing)} fact file{'s' if len(missing) != 1 else ''} listed in the manifest "
            f"{'are' if len(missing) != 1 else 'is'} missing or damaged: every answer over this scan is incomplete;"
            f" run `{folder.repair()}`",
        )
    return kernel, warnings


def _residue_load(
    root: Path, rules: tuple, budget: int, keep: Subset | None, why: str, manifest_of: Callable[[], Manifest] | None
) -> Kernel | None:
    """The kernel ``_cold_load`` makes, from the scan's residue (``rofl.loading.audit_store``: a folder whose
    every listed file is there with its digest and no other) and the pure files' rows kept by digest
    (``rofl.loading.pure_rows``): only the files that are not pure and those no rows are kept of yet are
    read and parsed.  None when the residue does not answer for the folder: the caller reads every file."""
    from . import audit_store

    found = audit_store.residue(root, manifest_of)
    if found is None:
        return None
    keeps = keep.keeps if keep is not None else None
    try:
        kernel = audit_store.residue_kernel(found, rules, budget, keeps)
        audit_store.load_pure(kernel, found, None, keeps)
    except (RoflError, audit_store.Unsure):
        return None
    if keeps is not None:
        kernel.drop_relations(keeps)
    _log.info("%s: loaded from its residue and the pure files' rows (%s)", root, why)
    return kernel


def _load_fact_files(
    kernel: Kernel, folder: LazyFolder, loading: Loading, unsigned: str | None, why: str = ""
) -> tuple[list[str], tuple[str, ...]]:
    """Load each fact file on its own, so that one that does not parse (or that the kernel rejects) is
    rolled back alone: (the listed ones missing or skipped, relative to the folder; the folder's
    warnings and one line per file skipped, naming the command that re-extracts it).  The preamble
    comes with no identity from the folder; it is the scanner's file, and what it says about authority
    is only a claim (the grant is the loader's).  A scan that fails its signature check (``unsigned``)
    loads as unverified, every file of it."""
    from .factdir import Reading, damaged_warning
    from .factload import load_each

    report = Reading([], set(), [])
    damaged: list[str] = []
    failures: list[str] = []
    foreign = set(folder.foreign)

    def failed(path: Path, exc: RoflError) -> None:
        listed = str(path) not in foreign
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        failures.append(damaged_warning(folder.root, folder.src, path, f"does not load: {why}", listed))
        if listed:
            damaged.append(Path(path).relative_to(folder.root).as_posix())

    sources = ((p, UNVERIFIED if unsigned else SCANNER if w is None else w, t) for p, w, t in folder.sources(report))
    count = load_each(kernel, sources, loading, failed)
    _log.info("%s: %d fact file(s) parsed and loaded (%s)", folder.root, count, why)
    missing, warnings = folder.closing(report)
    return [*missing, *damaged], (*warnings, *failures)


# the findings that mean a fact does not come from the scanner (ask and impact refuse them with --public-key)
FORGERY_FINDINGS = (
    "unsigned[audit](R)",
    "forged[audit](F)",
    "usurp[audit](R, P, W)",
    "claimed[audit](P, W, B)",
    "rule_in_facts[audit](R, W)",
    "missing_fact_file[audit](F)",
)


def refuse_if_forged(kernel: Kernel) -> None:
    """Exit 1 (one line on stderr) when any forgery finding holds over the loaded scan."""
    from rofl.engine.base.errors import UnknownRelation

    audits = kernel.names_in("audit")  # only what the audits depend on is evaluated
    for question in FORGERY_FINDINGS:
        try:
            answers = kernel.query(question, goals=audits)
        except UnknownRelation:
            continue
        if answers.rows:
            raise ForgedFacts(
                f"rofl: refusing to answer over forged facts: {question.split('(')[0]} has {len(answers.rows)} row(s); run `rofl audit` to see them"
            )


def incomplete_fact_files(kernel: Kernel) -> list[str]:
    """The listed fact files the loader found missing (its missing_fact_file[audit] facts, read from the
    store: no evaluation): an answer over this scan is incomplete while there is one.  Empty for a kernel
    that loaded no scan."""
    return sorted(str(row[1]) for row in kernel.rows("missing_fact_file", "audit") if len(row) == 2)


def code_rows(kernel: Kernel, rel: str, arity: int, files: Collection[str] | None = None) -> list[tuple]:
    """The base rows of a scanner relation in [code], without the perspective (read from the store: no
    evaluation needed); with ``files``, only the rows whose first argument is one of them."""
    from rofl.engine.namespace import stored_name

    width = arity + 1
    facts = kernel.store.base.get(stored_name(rel, "code"), {})
    if files is None:
        return [row[1:] for row in facts if len(row) == width and row[0] == "code"]
    return [row[1:] for row in facts if len(row) == width and row[1] in files and row[0] == "code"]


def loader_facts(missing: list[str], unsigned: str | None = None) -> str:
    """What the loader itself asserts over a scan: the scanner's authority over [code] (never taken
    from a file), one missing_fact_file[audit] finding per listed fact file that is gone, and an
    unsigned[audit] finding when the signature check failed."""
    from rofl.engine.terms import format_term

    lines = [f"authority(code, {SCANNER})."]
    if unsigned:
        lines.append(f"unsigned[audit]({format_term(unsigned)}).")
    lines += [f"missing_fact_file[audit]({format_term(path)})." for path in missing]
    return "\n".join(lines) + "\n"


def has_scan(facts: Path) -> bool:
    """Whether ``facts`` holds a scan: its manifest is there."""
    return (facts / MANIFEST_NAME).is_file()
