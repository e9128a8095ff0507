"""A question's typed options from click's params: the values of ``ctx.params`` its fields name, frozen.

The command line and the servers build a question's options the same way: click parses the argv
(the servers build it from a JSON call) into ``ctx.params``, and ``from_params`` keeps the keys the
options type has a field for, lists and tuples as tuples (pairs as tuples of two), paths as text.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def picked(cls: type[T], params: Mapping[str, Any], **given: Any) -> T:
    """An instance of the options dataclass ``cls`` from the ``params`` its fields name (``given`` wins)."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values = {key: frozen(value) for key, value in params.items() if key in names}
    values.update(given)
    return cls(**values)


def frozen(value: Any) -> Any:
    """``value`` with every list or tuple a tuple and every path its text."""
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value
