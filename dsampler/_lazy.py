"""Lazy public names: a package's ``__init__`` maps each name to the module that owns it,
imported on first use, so ``import dsampler`` costs almost nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def attach(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps a public name to
    the module (relative to ``package`` when it starts with a dot) that defines it."""

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # the next lookup is a plain module attribute
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(importlib.import_module(package).__dict__) | set(names))

    return __getattr__, __dir__
