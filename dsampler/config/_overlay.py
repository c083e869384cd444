"""An owner's overlay (the adaptive controller's, a remote endpoint's): the fields it
owns of a configuration, written over the store's base by :func:`merge`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol

from dsampler.config._model import FIELD_CHECKS, SamplingConfig, check_values

_NONE: Final[Mapping[str, Any]] = {}
#: The checks of the fields an overlay may own: every field of SamplingConfig but the version.
_CHECKS: Final = {name: check for name, check in FIELD_CHECKS.items() if name != "version"}


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


def differences(a: SamplingConfig, b: SamplingConfig) -> dict[str, Any]:
    """The fields ``b`` says otherwise than ``a`` (the version aside), with ``b``'s values."""
    return {name: y for name in _CHECKS if (x := getattr(a, name)) is not (y := getattr(b, name)) and x != y}


class Overlay:
    """One owner's fields (``{"rate": 0.02}``), merged over its store's base while it
    holds its ``name`` (taken at its first :meth:`set` if nobody holds it or its holder
    is retired). A retired overlay writes nothing, so an owner replaced while busy cannot
    undo its successor. ``tap`` is carried to the store's ``compile`` while it holds the name.

    Raises:
        ConfigError: a field is invalid.
    """

    __slots__ = ("fields", "name", "retired", "store", "tap")

    def __init__(self, name: str, fields: Mapping[str, Any] = _NONE, *, tap: object = None) -> None:
        self.name = name
        self.fields: Mapping[str, Any] = check_values(fields, _CHECKS)
        self.tap = tap
        self.store: OverlayStore | None = None  # set when a store first takes it
        self.retired = False

    @property
    def config(self) -> SamplingConfig | None:
        """The configuration in force in its store (None before a store takes it)."""
        return None if self.store is None else self.store.config

    def set(self, fields: Mapping[str, Any]) -> bool:
        """Own exactly ``fields`` from now on; True when that published a new version
        (not when retired, without a store, or nothing in force changes).

        Raises:
            ConfigError: a field is invalid, or the merge is; nothing changes.
        """
        checked = check_values(fields, _CHECKS)
        store = self.store
        return False if store is None else store.write(self, checked)

    def retire(self) -> None:
        """Write nothing from now on; the fields stay in force until another overlay
        takes the name (or, named after a section, the section goes)."""
        self.retired = True
