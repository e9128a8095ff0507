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
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel

    from .cache import Subset


class Source:
    """The command line's source: every load from disk."""

    __slots__ = ("warnings",)

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def kernel(
        self,
        files: tuple = (),
        load_as: tuple = (),
        budget: int | None = None,
        *,
        store: str | None = None,
        facts: str | None = None,
        rules: tuple = (),
        use_cache: bool = True,
        public_key: str | None = None,
        refuse_forged: bool = False,
    ) -> Kernel:
        """A kernel as ``rofl.loading.kernel.build_kernel`` builds it; its load warnings kept in ``warnings``."""
        from .kernel import build_kernel

        return build_kernel(
            files,
            load_as,
            budget,
            store=store,
            facts=facts,
            rules=rules,
            use_cache=use_cache,
            public_key=public_key,
            refuse_forged=refuse_forged,
            warn=self.warnings.append,
        )

    def code_kernel(self, facts: str, rules: tuple, budget: int, keep: Subset | None = None) -> Kernel:
        """A kernel over a scan that loads only what ``keep`` keeps (`rofl report`)."""
        from .kernel import loaded_code_kernel

        kernel, warnings = loaded_code_kernel(facts, rules, budget, keep=keep)
        self.warnings.extend(warnings)
        return kernel

    def manifest(self, facts: Path) -> dict:
        """The manifest of the scan in ``facts``, read from disk."""
        from .factdir import read_manifest

        return read_manifest(facts)

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
