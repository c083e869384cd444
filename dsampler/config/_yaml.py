"""YAML for configuration files: a safe reader, and a writer that reads back the same.

The reader builds no objects, refuses anchors and aliases (the "billion laughs"
expansion) and duplicate keys, and resolves booleans and numbers by YAML 1.2's core
schema. PyYAML is optional (the ``yaml`` extra); without it JSON still works.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Mapping
from typing import Any, ClassVar

from dsampler._validate import show
from dsampler.errors import ConfigError

__all__ = ["dump_yaml", "parse_yaml"]


def parse_yaml(text: str, parse_json: Callable[[str], Any]) -> Any:
    """One YAML document -> plain values; ``parse_json`` reads JSON documents when
    PyYAML is not installed (JSON is YAML)."""
    try:
        import yaml
    except ImportError:
        if text.lstrip().startswith("{"):
            return parse_json(text)
        raise ConfigError(
            "", "reading YAML needs PyYAML: pip install 'dsampler[yaml]', or use JSON"
        ) from None
    loader = None
    try:
        loader = _safe_loader(yaml)(text)  # PyYAML's reader already rejects control characters
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise ConfigError("", f"invalid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    except (ValueError, OverflowError) as exc:  # a scalar its resolvers took for a date or number
        raise ConfigError("", f"invalid YAML value: {show(str(exc), 120)}") from None
    finally:
        if loader is not None:
            loader.dispose()


@functools.cache
def _safe_loader(yaml: Any) -> Any:
    """PyYAML's SafeLoader without aliases, with duplicate keys refused, and with YAML
    1.2's core schema for booleans and numbers (built once): only true/false are
    booleans (``country: no`` stays "no"), ``1e-3`` is a number (YAML 1.1 wanted a dot),
    ``010`` is ten (not octal eight) and ``12:30`` is a string (not 750). The
    pure-Python loader, because the C one composes nodes where no hook can see."""

    replaced = {f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float")}

    class Loader(yaml.SafeLoader):  # type: ignore[misc]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, Any]]]] = {
            first: [(tag, rx) for tag, rx in resolvers if tag not in replaced]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.YAMLError(
                    f"anchors and aliases are not allowed (line {event.start_mark.line + 1})"
                )
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, Hashable) and key in seen:
                    raise yaml.YAMLError(
                        f"key {show(key)} appears twice (line {key_node.start_mark.line + 1})"
                    )
                if isinstance(key, Hashable):
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:int",
        re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
        list("-+0123456789"),
    )
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    )
    Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    return Loader


def _construct_int(loader: Any, node: Any) -> int:
    """YAML 1.2 integers: decimal (leading zeros allowed), ``0o`` octal, ``0x`` hex."""
    text = loader.construct_scalar(node)
    if text[:2] in ("0o", "0x"):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)


def dump_yaml(document: Mapping[str, Any]) -> str:
    """YAML that dsampler's reader reads back as ``document``: strings that YAML 1.2 would
    take for numbers or booleans (``"0o7"``, ``"1e3"``) are quoted. Needs PyYAML.

    Raises:
        ConfigError: PyYAML is not installed.
    """
    try:
        import yaml
    except ImportError:
        raise ConfigError("", "writing YAML needs PyYAML: pip install 'dsampler[yaml]'") from None
    return str(yaml.dump(document, Dumper=_dumper(yaml), sort_keys=False, allow_unicode=True))


@functools.cache
def _dumper(yaml: Any) -> Any:
    """A SafeDumper that resolves plain scalars the way our loader does, so it quotes
    exactly the strings that would otherwise come back as something else."""

    class Dumper(yaml.SafeDumper):  # type: ignore[misc]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, Any]]]] = _safe_loader(
            yaml
        ).yaml_implicit_resolvers

    return Dumper
