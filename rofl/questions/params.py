"""A question's typed options from click's params: the values of ``ctx.params`` its fields name, frozen;
and the options family of the questions that load programs (``ProgramOptions``, ``RoundsOptions``).

The command line and the servers build a question's options the same way: click parses the argv
(the servers build it from a JSON call) into ``ctx.params``, and ``from_params`` keeps the keys the
options type has a field for, lists and tuples as tuples (pairs as tuples of two), paths as text.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from rofl.engine.kernel import Kernel

    from ..loading.source import Source
    from .rounds import AdapterRun

T = TypeVar("T")
P = TypeVar("P", bound="ProgramOptions")


def picked(cls: type[T], params: Mapping[str, Any], **given: Any) -> T:
    """An instance of the options dataclass ``cls`` from the ``params`` its fields name (``given`` wins)."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values = {key: frozen(value) for key, value in params.items() if key in names}
    values.update(given)
    return cls(**values)


def params_of(options: Any) -> dict[str, Any]:
    """The options dataclass ``options`` as params (its field names to its values), for ``picked``."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def frozen(value: Any) -> Any:
    """``value`` with every list or tuple a tuple and every path its text."""
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class ProgramOptions:
    """What a question that loads programs is given (the click parameters of the commands that take them):
    program FILES, ``--load-as NAME FILE`` pairs, the budget, a saved store, a scan's fact folder, rule files."""

    files: tuple[str, ...] = ()
    load_as: tuple[tuple[str, str], ...] = ()
    budget: int | None = None
    store: str | None = None
    facts: str | None = None
    rules: tuple[str, ...] = ()

    @classmethod
    def from_params(cls: type[P], params: Mapping[str, Any]) -> P:
        """The options of click's ``params`` (a question with checks to make overrides this)."""
        return picked(cls, params)

    def load(self, source: Source, **how: Any) -> Kernel:
        """The kernel of these programs through ``source`` (``how``: ``KernelInputs``'s other fields)."""
        from ..loading.source import KernelInputs

        return source.kernel(
            KernelInputs(
                self.files, self.load_as, self.budget, store=self.store, facts=self.facts, rules=self.rules, **how
            )
        )


@dataclasses.dataclass(frozen=True, slots=True)
class RoundsOptions(ProgramOptions):
    """A question that also runs adapter rounds: ``--allow`` (the capabilities it may call) and ``--rounds``."""

    allow: tuple[str, ...] = ()
    rounds: int | None = None

    def adapter_rounds(self, kernel: Kernel, source: Source) -> AdapterRun | None:
        """The adapter rounds over the loaded ``kernel``, run by ``source`` (``Source.adapter_rounds``); a refusal
        names the FILE:LINE of the programs and rule files it is written at."""
        return source.adapter_rounds(kernel, self.allow, self.rounds, (*self.files, *self.rules))
