"""An owner's overlay: the fields it owns of a configuration, written over the base.

An :class:`Overlay` is what the adaptive controller and a remote endpoint hold in a
:class:`~dsampler.config._store.ConfigStore`; :func:`merge` writes overlay fields over a
base the way the store does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields as dataclass_fields
from typing import Any, Final, Protocol

from dsampler.config._model import FIELD_CHECKS, SamplingConfig
from dsampler.errors import ConfigError

_NONE: Final[Mapping[str, Any]] = {}
_CONTENT: Final = tuple(f.name for f in dataclass_fields(SamplingConfig) if f.name != "version")


class OverlayStore(Protocol):
    """What an overlay writes through: a :class:`~dsampler.config._store.ConfigStore`."""

    @property
    def config(self) -> SamplingConfig:
        """The configuration in force."""
        ...

    def write(self, overlay: Overlay, fields: Mapping[str, Any]) -> bool: ...


def merge(base: SamplingConfig, fields: Mapping[str, Any]) -> SamplingConfig:
    """``base`` with overlay ``fields`` written over it. Operations past the base's
    ``max_operations`` are left out, in order (they are decided at the default rate):
    an owner's list never makes the user's configuration invalid."""
    operations = fields.get("operations")
    if operations is not None and len(operations) > base.max_operations:
        fields = {**fields, "operations": dict(list(operations.items())[: base.max_operations])}
    return base.evolve(**fields)


def same_content(a: SamplingConfig, b: SamplingConfig) -> bool:
    """``a`` and ``b`` say the same, whatever their versions."""
    return all((x := getattr(a, name)) is (y := getattr(b, name)) or x == y for name in _CONTENT)


def differences(a: SamplingConfig, b: SamplingConfig) -> dict[str, Any]:
    """The fields ``b`` says otherwise than ``a`` (the version aside), with ``b``'s values."""
    return {name: y for name in _CONTENT if (x := getattr(a, name)) is not (y := getattr(b, name)) and x != y}


def check_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """An overlay's fields, each checked as the model checks it (the same objects when
    already valid, so unchanged operations keep their identity)."""
    checked = {}
    for name, value in fields.items():
        check = FIELD_CHECKS.get(name)
        if check is None or name == "version":
            raise ConfigError(name, "unknown field of SamplingConfig")
        checked[name] = check(value)
    return checked


class Overlay:
    """One owner's fields (``{"rate": 0.02}``), merged over its store's base while it
    holds its ``name``.

    Made by :meth:`ConfigStore.overlay`, it takes the name at its first :meth:`set` if
    nobody holds it or its holder is retired. Retired (:meth:`retire`, or replaced),
    its writes are ignored, so an owner replaced while its thread was busy cannot undo
    its successor; a retired holder's fields stay in force until another overlay takes
    its name. ``tap`` is whatever the owner needs compiled into every snapshot while it
    holds the name (the adaptive controller's count of offered load); the store only
    carries it to ``compile``.

    Raises:
        ConfigError: a field is invalid.
    """

    __slots__ = ("fields", "name", "retired", "store", "tap")

    def __init__(self, name: str, fields: Mapping[str, Any] = _NONE, *, tap: object = None) -> None:
        self.name = name
        self.fields: Mapping[str, Any] = check_fields(fields)
        self.tap = tap
        self.store: OverlayStore | None = None  # set when a store first takes it
        self.retired = False

    @property
    def config(self) -> SamplingConfig | None:
        """The configuration in force in its store (None before a store takes it)."""
        return None if self.store is None else self.store.config

    def set(self, fields: Mapping[str, Any]) -> bool:
        """Own exactly ``fields`` (validated field values) from now on; True when that
        published a new version (none when the configuration in force would not
        change, or when this overlay is retired or has no store).

        Raises:
            ConfigError: a field is invalid, or the merge is; nothing changes.
        """
        checked = check_fields(fields)
        store = self.store
        return False if store is None else store.write(self, checked)

    def retire(self) -> None:
        """Write nothing from now on; the fields stay in force until another overlay
        takes the name (or, named after a section, the section goes)."""
        self.retired = True
