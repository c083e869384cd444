"""YAML that dsampler's reader reads back as the document written: for tests that write files."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import yaml

from dsampler.config._yaml import _safe_loader


def dump_yaml(document: Mapping[str, Any]) -> str:
    """YAML that dsampler's reader reads back as ``document``: strings that YAML 1.2 would
    take for numbers or booleans (``"0o7"``, ``"1e3"``) are quoted."""
    return str(yaml.dump(document, Dumper=_dumper(), sort_keys=False, allow_unicode=True))


@functools.cache
def _dumper() -> Any:
    """A SafeDumper that quotes the strings dsampler's loader would read as something else."""

    class Dumper(yaml.SafeDumper):
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, Any]]]] = _safe_loader(
            yaml
        ).yaml_implicit_resolvers

    return Dumper
