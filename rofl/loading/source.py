"""Where a question loads from: the command line's fact folders on disk, or a server's session (passed, never looked up).

A question takes a ``Source`` as an argument and asks it for what it needs: a kernel over a scan (or over
program files, a saved store), the scan's manifest, a value kept while the scan holds (the graph index's
view), whether a watcher saw the sources unchanged.  ``Source()`` is the command line's: everything read from
disk, each time.  A server passes its own subclass (``rofl.servers.session.SessionSource``) that lends a loaded
kernel and keeps parsed values between calls; nothing steers a question from above.

What loading has to say (a damaged fact file, a failed signature) is collected in ``warnings``, in order,
and the caller shows it: the command line on stderr, a server as the execution's warnings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel
    from rofl.scanner.manifest import Manifest

    from .cache import Subset


# runs a world's adapter rounds: (kernel, --allow, --rounds, the program and rule files) -> the finished run or None
RoundsRunner = Callable[["Kernel", tuple, "int | None", tuple], Any]


@dataclass(frozen=True, slots=True)
class KernelInputs:
    """What a kernel is built from, as the command line names it: program ``files`` (no who), ``load_as``
    pairs (who, file), a ``budget``, a saved ``store`` or a scanned ``facts`` folder with its ``rules``
    files; ``use_cache=False`` (audit) reads the fact files themselves, ``public_key`` checks the scan's
    signature first and ``refuse_forged`` exits 1 over a failed signature or a forged fact."""

    files: tuple = ()
    load_as: tuple = ()
    budget: int | None = None
    store: str | None = None
    facts: str | None = None
    rules: tuple = ()
    use_cache: bool = True
    public_key: str | None = None
    refuse_forged: bool = False
    reads: frozenset[str] | None = None  # the relations a question asks (stored names): a scan alone, from its
    # compiled cache, then loads only the scanner relations they depend on (``rofl.loading.kernel.question_keep``)

    @property
    def only_a_scan(self) -> bool:
        """Whether only a scan (and rule files) is asked for, read through the verified cache: what a kernel
        someone already loaded can serve."""
        return (
            self.facts is not None
            and not self.store
            and not self.files
            and not self.load_as
            and self.use_cache
            and self.public_key is None
        )


class Source:
    """The command line's source: every load from disk."""

    __slots__ = ("_manifests", "_rounds", "warnings")

    def __init__(self, rounds: RoundsRunner | None = None) -> None:
        self.warnings: list[str] = []
        self._rounds = rounds
        self._manifests: dict[Path, tuple[tuple[int, int, int], Manifest]] = {}  # folder -> (stat, manifest)

    def kernel(self, inputs: KernelInputs) -> Kernel:
        """A kernel as ``rofl.loading.kernel.build_kernel`` builds it; its load warnings kept in ``warnings``.
        When only a scan (and rule files) is asked for, a kernel already loaded (``lent``) serves instead."""
        from .kernel import build_kernel

        if inputs.only_a_scan:
            assert inputs.facts is not None
            lent = self.lent(inputs.facts, inputs.rules, inputs.budget)
            if lent is not None:
                return lent
        facts = inputs.facts
        return build_kernel(
            inputs,
            warn=self.warnings.append,
            manifest=None if facts is None else lambda: self.manifest(Path(facts)),
        )

    def adapter_rounds(self, kernel: Kernel, allow: tuple, rounds: int | None, files: tuple) -> Any:
        """The adapter rounds of a world that has want rules (None when it has none), run by the runner the
        caller gave this source (``rofl.rounds.rounds_of``: the command line's and the servers'); a world
        with want rules and no runner is refused in one line."""
        from rofl.engine.base.errors import RoflError
        from rofl.engine.reflect import has_wants

        if not has_wants(kernel):
            return None
        if self._rounds is None:
            raise RoflError("rofl: this world has want rules, and this caller runs no adapter rounds")
        return self._rounds(kernel, allow, rounds, files)

    def lent(self, facts: str, rules: tuple, budget: int | None) -> Kernel | None:
        """A kernel over the scan in ``facts`` someone already loaded (a server's session); the command line has none."""
        return None

    def code_kernel(self, facts: str, rules: tuple, budget: int, keep: Subset | None = None) -> Kernel:
        """A kernel over a scan that loads only what ``keep`` keeps (`rofl report`)."""
        from .kernel import loaded_code_kernel

        kernel, warnings = loaded_code_kernel(
            facts, rules, budget, keep=keep, manifest=lambda: self.manifest(Path(facts))
        )
        self.warnings.extend(warnings)
        return kernel

    def manifest(self, facts: Path) -> Manifest:
        """The manifest of the scan in ``facts``, read from disk once per version of the file (a rescan
        that replaces it is read again; one that finds nothing to do is not)."""
        from rofl.scanner.layout import MANIFEST_NAME

        from .factdir import read_manifest

        version = stamp(facts / MANIFEST_NAME, follow_symlinks=False)  # None: read_manifest says why
        kept = self._manifests.get(facts)
        if kept is not None and kept[0] == version:
            return kept[1]
        manifest = read_manifest(facts)
        if version is not None:
            self._manifests[facts] = (version, manifest)
        return manifest

    def kept(self, facts: Path, name: str, build: Callable[[], Any]) -> Any:
        """A value built from the scan in ``facts`` (``name`` says which): built each time here; a server keeps
        it while the scan holds."""
        return build()

    def serves(self, facts: Path) -> bool:
        """Whether a session holding ``facts`` answers (its manifest is parsed once, its values kept)."""
        return False

    def sources_unchanged(self, facts: Path) -> bool:
        """True only when a watcher saw none of the scanned sources of ``facts`` change since the last scan (a
        rescan would find nothing to do); the command line has no watcher."""
        return False


def stamp(path: Path, follow_symlinks: bool = True) -> tuple[int, int, int] | None:
    """A file's (or folder's) version for a cache of what was read from it: (inode, size, mtime in ns), which a
    replace (a rescan's atomic rename) or a rewrite changes; None when it cannot be stat'ed."""
    import os

    try:
        st = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
