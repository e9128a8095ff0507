"""Building a kernel from command-line inputs (boot, program files, --load-as files, a scan), user-error exits,
and the session that keeps a scanned fact folder loaded between calls (the servers' and the command line's one path)."""

from __future__ import annotations

import contextvars
import functools
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

import rofl.rules as shipped_rules
from rofl.engine import vocabulary as V
from rofl.engine.errors import RoflError
from rofl.engine.kernel import DEFAULT_BUDGET, Kernel
from rofl.engine.parse import parse_literal

if TYPE_CHECKING:
    from .cache import Subset
    from .factdir import LazyFolder
    from .factload import Loading
    from .freshness import SourceWatch
from rofl.scanner.errors import ExtractorFailure
from rofl.scanner.layout import FACTS_FOLDER, MANIFEST_NAME

BOOT = shipped_rules.path("boot.rofl")
CODE_RULES = shipped_rules.path("code.rofl")
CODE_BUDGET = 50_000_000

_log = logging.getLogger(__name__)  # what loading does, for -v (rofl.logs)

FILES = click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
LOAD_AS = click.option(
    "--load-as",
    "load_as",
    nargs=2,
    multiple=True,
    metavar="WHO FILE",
    help="Load FILE with its facts asserted by WHO (repeatable).",
)
BUDGET = click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help=f"Derivation steps allowed (default {DEFAULT_BUDGET:,}; {CODE_BUDGET:,} with --facts).",
)
FACTS = click.option(
    "--facts",
    "facts",
    type=click.Path(file_okay=False),
    default=None,
    help="A folder written by `rofl scan` (loads rules/code.rofl too).",
)
RULES = click.option(
    "--rules",
    "rules",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Rule file over the code facts; its facts are asserted by 'user' (repeatable).",
)
JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
PUBLIC_KEY = click.option(
    "--public-key",
    "public_key",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --facts: check the scan's signature (rofl scan --sign-key) against this PEM public key first.",
)
STORE = click.option(
    "--store",
    "store",
    type=click.Path(dir_okay=False),
    default=None,
    help="Start from a store saved by `rofl save` instead of boot.rofl.",
)


def program_options(fn: Callable) -> Callable:
    """FILE..., --load-as, --budget, --json, --store, --facts and --rules, as every question command takes them."""
    for option in (RULES, FACTS, STORE, JSON, BUDGET, LOAD_AS, FILES):
        fn = option(fn)
    return fn


def warn_partial(kernel: Kernel, command: str) -> bool:
    """Say on stderr when the evaluation behind an answer ran out of budget; return whether it did."""
    current = kernel.current
    if current is not None and current.partial:
        if current.out_of_memory:
            from rofl.engine.costs import MEMORY_ENV, memory_limit

            limit = (memory_limit() or 0) // (1024 * 1024)
            reason = f"the evaluation grew past {limit} MiB; the answer is partial, raise {MEMORY_ENV} (MiB)"
        else:
            reason = "the budget ran out before the evaluation finished; the answer is partial, raise --budget"
        click.echo(f"rofl {command}: {reason}", err=True)
        return True
    return False


# Exit codes every question command uses (documented in each command's --help).
EXIT_ANSWERS, EXIT_NO_ANSWER, EXIT_USER_ERROR, EXIT_PARTIAL = 0, 1, 2, 3
EXIT_CODES_HELP = "Exit codes: 0 answers, 1 no answer, 2 user error, 3 partial (the budget ran out)."


def examples(*lines: str, exit_codes: str = EXIT_CODES_HELP) -> str:
    """A command's --help epilog: its exit codes, then real examples, one per line, kept as written."""
    text = "\b\n" + exit_codes + "\n\n" if exit_codes else ""
    return text + "\b\nExamples:\n" + "\n".join("  " + line for line in lines)


def fail(message: str, code: int = EXIT_USER_ERROR) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(code)


def user_errors(fn: Callable) -> Callable:
    """Turn a RoflError (bad syntax, missing file, refused load) into one line on stderr and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RoflError as exc:
            fail(str(exc))
        except ExtractorFailure as exc:  # a rescan inside impact or audit --reextract met our own bug
            fail(f"rofl: {exc}", ExtractorFailure.EXIT_STATUS)
        except RecursionError:
            fail("rofl: the program nests too deeply to evaluate; reduce term or proof depth")
        except MemoryError:
            fail("rofl: out of memory; lower --budget or ask a narrower question")

    return wrapper


def who_name(who: str) -> str:
    from rofl.engine.lexer import is_name

    if not is_name(who):
        raise RoflError(f"--load-as: '{who}' is not an atom; use a lowercase name such as sensor_net")
    return who


def build_kernel(
    files: tuple,
    load_as: tuple,
    budget: int | None,
    store: str | None = None,
    facts: str | None = None,
    rules: tuple = (),
    use_cache: bool = True,
    public_key: str | None = None,
    refuse_forged: bool = False,
) -> Kernel:
    """Boot (or a saved store, or a scanned fact folder with code.rofl and --rules), then each FILE
    (no who), then each --load-as file asserted by its WHO; evaluated once, except over a scan, where
    each question evaluates only the relations it depends on (its goals).  ``use_cache=False`` (audit)
    reads the fact files themselves, never the compiled cache.  With ``public_key`` the scan's signature
    is checked first (a scan that fails it loads as unverified); ``refuse_forged`` (ask and impact
    with --public-key) exits 1 instead of answering over a failed signature or any forged fact."""
    if facts is not None and store:
        raise RoflError("--facts and --store both name a starting point; give one of them")
    if facts is not None and any(who_name(w) == SCANNER for w, _ in load_as):
        raise RoflError(
            f"--load-as {SCANNER}: '{SCANNER}' is the identity the loader gives a scan's verified fact files; load FILE as another WHO"
        )
    kept = _CALL.get()
    if kept is not None and facts is not None and not files and not load_as and use_cache and public_key is None:
        kernel = kept.kernel(facts, rules, budget or CODE_BUDGET)  # a server's loaded store, when it holds this folder
        if kernel is not None:
            return kernel
    if facts is not None:
        kernel = code_kernel(facts, rules, budget or CODE_BUDGET, use_cache and public_key is None, public_key)
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


def code_kernel(
    facts: str,
    rules: tuple,
    budget: int,
    use_cache: bool = True,
    public_key: str | None = None,
    keep: Subset | None = None,
) -> Kernel:
    """A kernel over a scanned fact folder, from its compiled cache when nothing it depends on changed
    (and ``use_cache``) and the cache carries this user's tag (rofl.cachemac).  The loader, not any file, grants the scanner its authority over [code].
    With ``keep``, only the base relations it keeps are loaded (`rofl report`: what its rules read),
    from a cache of those alone when there is one.
    Its warnings go to stderr."""
    kernel, warnings = loaded_code_kernel(facts, rules, budget, use_cache, public_key, keep)
    for line in warnings:
        click.echo(f"warning: {line}", err=True)
    return kernel


def loaded_code_kernel(
    facts: str,
    rules: tuple,
    budget: int,
    use_cache: bool = True,
    public_key: str | None = None,
    keep: Subset | None = None,
) -> tuple[Kernel, tuple[str, ...]]:
    """``code_kernel`` and the warnings of its load (not printed)."""
    from . import __version__, cache
    from .factdir import stat_key

    root = Path(facts)
    if not (root / MANIFEST_NAME).is_file():
        raise RoflError(f"{root}: no {MANIFEST_NAME} here; run `rofl scan SRC --out {root}` first")
    folder_key = stat_key(root)
    parts = [__version__.encode(), cache.engine_fingerprint(), folder_key.encode(), BOOT.read_bytes()]
    parts.append(CODE_RULES.read_bytes())
    from rofl.engine.safe_write import MAX_PROGRAM_BYTES, read_regular

    for r in rules:
        try:
            parts.append(str(r).encode() + b"\0" + read_regular(r, MAX_PROGRAM_BYTES))  # a FIFO is refused
        except FileNotFoundError:
            raise RoflError(f"{r}: no such rule file; check the --rules path") from None
        except OSError as exc:
            raise RoflError(f"{r}: cannot read ({exc.strerror}); pass a readable UTF-8 .rofl file as --rules") from None
    from rofl.scanner.hashing import hash_key

    key = hash_key(b"\0\0".join(parts))
    from . import cachemac

    mac_key = cachemac.secret() if use_cache else None  # no private per-user secret: no cache at all
    subset = None if mac_key is None or keep is None else cache.read(root, keep.key(key), mac_key, name=keep.name)
    if subset is not None or mac_key is None:
        hit = subset
    else:  # the tag is checked on the bytes parsed
        hit = cache.read(root, key, mac_key, keep.keeps if keep is not None else None)
    if hit is not None:
        kernel = Kernel(None, budget=budget)
        kernel.store, warnings = hit
        _log.info("%s: loaded from its compiled cache (%s)", root, keep.name if subset and keep else cache.CACHE_NAME)
    else:
        why = "caching is off" if mac_key is None else "no valid compiled cache"
        kernel, warnings = _cold_load(root, folder_key, rules, budget, public_key, keep, why)
        if mac_key is not None and keep is None:
            cache.write(root, key, kernel.store, warnings, mac_key)
    if keep is not None and mac_key is not None and subset is None:
        cache.write(root, keep.key(key), kernel.store, warnings, mac_key, name=keep.name)
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


def _cold_load(
    root: Path, folder_key: str, rules: tuple, budget: int, public_key: str | None, keep: Subset | None, why: str
) -> tuple[Kernel, tuple[str, ...]]:
    """A kernel over the fact files themselves: each read, checked against the manifest's digest, parsed
    and asserted in turn (``rofl.factload``: one file's text alive at a time, the relations ``keep``
    does not keep left out as each file is parsed), then the loader's own facts and the rule files."""
    from .factdir import checked_root, list_folder, read_manifest
    from .factload import Loading

    manifest = read_manifest(checked_root(root))
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
        failures.append(damaged_warning(folder.root, {"src": folder.src}, path, f"does not load: {why}", listed))
        if listed:
            damaged.append(Path(path).relative_to(folder.root).as_posix())

    sources = ((p, UNVERIFIED if unsigned else SCANNER if w is None else w, t) for p, w, t in folder.sources(report))
    count = load_each(kernel, sources, loading, failed)
    _log.info("%s: %d fact file(s) parsed and loaded (%s)", folder.root, count, why)
    missing, warnings = folder.closing(report)
    return [*missing, *damaged], (*warnings, *failures)


SCANNER = "scanner"
UNVERIFIED = "unverified"
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
    from rofl.engine.errors import UnknownRelation

    for question in FORGERY_FINDINGS:
        try:
            answers = kernel.query(question)
        except UnknownRelation:
            continue
        if answers.rows:
            fail(
                f"rofl: refusing to answer over forged facts: {question.split('(')[0]} has {len(answers.rows)} row(s); run `rofl audit` to see them",
                1,
            )


def incomplete_fact_files(kernel: Kernel) -> list[str]:
    """The listed fact files the loader found missing (its missing_fact_file[audit] facts): an answer
    over this scan is incomplete while there is one.  Empty for a kernel that loaded no scan."""
    from rofl.engine.errors import UnknownRelation

    try:  # declared by declare_vocabulary for a scan's kernel; any other kernel may not know it
        rows = kernel.query("missing_fact_file[audit](F)").rows
    except UnknownRelation:
        return []
    return sorted(str(row[0]) for row in rows)


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


def ground_fact(text: str):
    """Parse FACT arguments of why/whynot/excise: a ground literal."""
    from rofl.engine.terms import is_ground

    lit = parse_literal(text, "<fact>")
    if not (isinstance(lit.persp, str) and all(is_ground(a) for a in lit.args)):
        raise RoflError(f"<fact>: '{text}' has variables; give a ground fact such as path(a, c)")
    return lit


def emit_json(data: object) -> None:
    """Print ``data`` with the one JSON encoding of every command (terms through ``rofl.jsonout.term``);
    a call a session serves keeps it as its answer instead (the server encodes it the same way)."""
    call = _CALL.get()
    if call is not None:
        call.answers.append(data)
        return
    from .jsonout import dumps

    click.echo(dumps(data))


# -- a session: one fact folder kept loaded between calls (the servers hold one) ---------------------


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What a loaded kernel's store holds before any call: every relation's rows, the hole counters and
    the tick; and each relation's change counter as the last restore left it."""

    rows: dict[str, frozenset]
    counters: dict[str, int]
    tick: int
    versions: dict[str, int]  # updated by each restore

    @staticmethod
    def of(kernel: Kernel) -> _Snapshot:
        store = kernel.store
        rows = {rel: frozenset(facts) for rel, facts in store.base.items()}
        return _Snapshot(rows, dict(store.counters), store.tick, dict(store.versions))

    def restore(self, kernel: Kernel, keep: frozenset[str] = frozenset()) -> bool:
        """Retract every row a call added to a relation it changed (compared with the rows held before,
        whatever order evaluation left them in), except in the relations ``keep`` names, which a later
        restore looks at again; False when the call did more than add (removed a fact, ran a tick):
        then the kernel is dropped."""
        store = kernel.store
        if store.tick != self.tick:
            return False
        changed = [rel for rel in {*store.base, *self.rows} if store.versions.get(rel, 0) != self.versions.get(rel, 0)]
        for rel in changed:
            now = store.base.get(rel, {})
            before = self.rows.get(rel, frozenset())
            if len(now) < len(before) or any(row not in now for row in before):
                return False
            if rel not in keep:
                for row in [row for row in now if row not in before]:
                    kernel.retract(rel, row[0], row[1:])
        store.counters.clear()
        store.counters.update(self.counters)
        self.versions.update({rel: n for rel, n in store.versions.items() if rel not in keep})
        return True

    def added(self, kernel: Kernel, rels: frozenset[str]) -> bool:
        """Whether the store holds rows of ``rels`` it did not hold when loaded."""
        return any(len(kernel.store.base.get(rel, {})) != len(self.rows.get(rel, ())) for rel in rels)


# the rows the kernel adds by itself when a call first asserts into a relation or perspective: a
# kernel lent again to the same command keeps them (removing and adding them again would make every
# question re-derive boot's strata); lent to another command, it is restored exactly
DECLARATIONS = frozenset({V.EDB, V.AUTHORITY})


@dataclass(frozen=True, slots=True)
class Lease:
    """A loaded kernel lent to one call, with what it held and the scan it was loaded from."""

    key: tuple
    kernel: Kernel
    warnings: tuple[str, ...]
    signature: tuple
    snapshot: _Snapshot


class Session:
    """One fact folder (and the sources scanned into it) kept loaded between calls.

    While a call runs inside ``session.call()``, the commands' own ``build_kernel`` over this folder
    returns a kernel loaded once (per rule files and budget) instead of loading the store again; what
    the call asserts is retracted when it ends.  A kernel is reloaded when the scan changes (the
    manifest or a rule file changes on disk).  At most ``pool`` kernels per key exist; more callers
    wait for one.  ``scan_lock`` lets one scan of the folder run at a time in this process (the
    scanner's own lock file keeps other processes out).
    """

    MAX_KEYS = 4  # different (rules, budget) combinations kept loaded; the least recent is dropped

    def __init__(self, facts: str | Path, src: str | Path | None = None, pool: int = 2) -> None:
        self.facts = Path(facts).resolve()
        self.src = Path(src).resolve() if src is not None else None
        self.pool = pool
        self.scan_lock = threading.Lock()
        self._idle: dict[tuple, list[tuple[str | None, Lease]]] = {}  # (the command it is kept for, kernel)
        self._alive: dict[tuple, int] = {}
        self._cond = threading.Condition()
        self._manifest: tuple[tuple, dict] | None = None  # (signature, parsed manifest)
        self._kept: dict[str, tuple[tuple, object]] = {}  # name -> (signature, value): Session.kept
        self.sources: SourceWatch | None = None

    def watch_sources(self) -> None:
        """Count changes of the scanned sources from now on (``rofl.freshness``): while none arrives
        after a scan, questions skip the rescan the command line does first."""
        from .freshness import SourceWatch

        if self.src is not None and self.sources is None:
            self.sources = SourceWatch(self.src, self.facts).start()

    def scanned(self) -> bool:
        """Whether the folder holds a scan yet (a server may start before the first one)."""
        return has_scan(self.facts)

    def fresh(self) -> bool:
        return self.sources is not None and self.sources.fresh()

    def close(self) -> None:
        if self.sources is not None:
            self.sources.close()

    def manifest(self) -> dict:
        """The scan's manifest, parsed once per version of the file (callers must not change it)."""
        from .factdir import read_manifest

        signature = self.signature(())
        kept = self._manifest
        if kept is not None and kept[0] == signature and signature[0] is not None:
            return kept[1]
        manifest = read_manifest(self.facts)
        self._manifest = (signature, manifest)
        return manifest

    def signature(self, rules: tuple) -> tuple:
        """The stat of the manifest, of the fact folders and of each rule file: a new scan (an atomic
        replace) changes it, and so does a fact file deleted or written back (a rescan that re-extracts
        missing fact files need not rewrite the manifest)."""
        out: list[tuple[int, int, int] | None] = []
        for path in (self.facts / MANIFEST_NAME, self.facts / FACTS_FOLDER, *[Path(r) for r in rules]):
            try:
                st = path.stat()
                out.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    def holds(self, facts: str | Path) -> bool:
        return Path(facts).resolve() == self.facts

    def kept(self, name: str, build: Callable[[], object | None]) -> object | None:
        """A value built from this folder (``name`` says which), kept while the scan's signature holds,
        as a loaded kernel is (``rofl.graph_index``'s view: impact by demand answers from memory)."""
        signature = self.signature(())
        with self._cond:
            found = self._kept.get(name)
        if found is not None and found[0] == signature:
            return found[1]
        value = build()
        if value is not None:
            with self._cond:
                self._kept[name] = (signature, value)
        return value

    def lease(self, rules: tuple, budget: int, command: str | None = None) -> Lease:
        """A loaded kernel for ``rules`` and ``budget`` over the current scan, lent until ``release``:
        one kept for ``command`` if there is one, else one restored exactly."""
        key = (tuple(str(r) for r in rules), budget)
        signature = self.signature(rules)
        kept_for: str | None = None
        with self._cond:
            while True:
                idle = self._idle.setdefault(key, [])
                stale = [entry for entry in idle if entry[1].signature != signature]
                for entry in stale:
                    idle.remove(entry)
                    self._alive[key] -= 1
                if idle:
                    entry = next((e for e in idle if e[0] == command), None) or next(
                        (e for e in idle if e[0] is None), idle[-1]
                    )
                    idle.remove(entry)
                    found: Lease | None = entry[1]
                    kept_for = entry[0]
                    break
                if self._alive.get(key, 0) < self.pool:
                    self._alive[key] = self._alive.get(key, 0) + 1
                    found = None
                    break
                self._cond.wait()
            self._forget_old_keys(key)
        if found is None:
            try:
                kernel, warnings = loaded_code_kernel(str(self.facts), rules, budget)
            except BaseException:
                with self._cond:
                    self._alive[key] -= 1
                    self._cond.notify_all()
                raise
            found = Lease(key, kernel, warnings, signature, _Snapshot.of(kernel))
        elif kept_for not in (None, command) and not found.snapshot.restore(found.kernel):
            with self._cond:  # cannot happen (it only holds declarations); load another rather than lend it
                self._alive[key] -= 1
            return self.lease(rules, budget, command)
        return found

    def release(self, lease: Lease, command: str | None = None) -> None:
        """Take back a lent kernel: restored to what it held (but the declarations ``command``'s calls
        add), or dropped when it cannot be."""
        keep = DECLARATIONS if command is not None else frozenset()
        kept = lease.snapshot.restore(lease.kernel, keep) and lease.signature == self.signature(lease.key[0])
        kept_for = command if kept and command is not None and lease.snapshot.added(lease.kernel, keep) else None
        with self._cond:
            if kept:
                self._idle.setdefault(lease.key, []).append((kept_for, lease))
            else:
                self._alive[lease.key] -= 1
            self._cond.notify_all()

    def _forget_old_keys(self, newest: tuple) -> None:
        """Drop the idle kernels of the least recently leased keys beyond ``MAX_KEYS`` (under the lock)."""
        self._idle[newest] = self._idle.pop(newest)  # most recent last
        for key in list(self._idle)[: max(0, len(self._idle) - self.MAX_KEYS)]:
            self._alive[key] -= len(self._idle[key])
            del self._idle[key]

    @contextmanager
    def call(self, command: str | None = None) -> Iterator[Call]:
        """The scope of one run of ``command``: its ``build_kernel`` over this folder leases from the session."""
        call = Call(self, command)
        token = _CALL.set(call)
        try:
            yield call
        finally:
            _CALL.reset(token)
            for lease in call.leases:
                self.release(lease, command)


class Call:
    """The kernels one call leased from its session (given back when the call ends)."""

    def __init__(self, session: Session, command: str | None = None) -> None:
        self.session = session
        self.command = command
        self.leases: list[Lease] = []
        self.answers: list[object] = []  # what the command's emit_json would have printed, in order

    def kernel(self, facts: str, rules: tuple, budget: int) -> Kernel | None:
        """The session's loaded kernel when ``facts`` is its folder (its load warnings repeated on stderr)."""
        if not self.session.holds(facts):
            return None
        lease = self.session.lease(rules, budget, self.command)
        self.leases.append(lease)
        for line in lease.warnings:
            click.echo(f"warning: {line}", err=True)
        return lease.kernel


def has_scan(facts: Path) -> bool:
    """Whether ``facts`` holds a scan: its manifest is there."""
    return (facts / MANIFEST_NAME).is_file()


def manifest_of(facts: Path) -> dict:
    """The manifest of the scan in ``facts``: a serving session's parsed copy, or read from disk."""
    call = _CALL.get()
    if call is not None and call.session.holds(facts):
        return call.session.manifest()
    from .factdir import read_manifest

    return read_manifest(facts)


def serving(facts: Path) -> Session | None:
    """The session serving the running call when it holds ``facts``, else None (the command line)."""
    call = _CALL.get()
    return call.session if call is not None and call.session.holds(facts) else None


def sources_unchanged(facts: Path) -> bool:
    """True only when a serving session watches the sources of ``facts`` and none changed since its last
    scan: a rescan would find nothing to do."""
    call = _CALL.get()
    return call is not None and call.session.holds(facts) and call.session.fresh()


# the call running in this context, when a session serves it (None on the command line)
_CALL: contextvars.ContextVar[Call | None] = contextvars.ContextVar("rofl_call", default=None)
