"""Configuration files -> plain mappings, refusing what could hurt the process.

YAML is read with a safe loader that builds no objects and refuses anchors and aliases
(the "billion laughs" expansion); duplicate keys are errors in YAML and JSON alike (the
later one silently winning would hide a typo); files above :data:`MAX_FILE_BYTES` and
deeply nested documents are refused before or while they are read.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Final

from dsampler.config.model import SamplingConfig
from dsampler.config.parse import parse_config
from dsampler.errors import ConfigError, show, typed

__all__ = [
    "MAX_FILE_BYTES",
    "dump_yaml",
    "load_config",
    "load_document",
    "parse_config_bytes",
    "parse_document",
    "read_bytes",
    "read_config_file",
]

MAX_FILE_BYTES: Final = 1 << 20  # 1 MiB: a sampling config is a few KB; 2,000 operations ~100 KB
MAX_DEPTH: Final = 32


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The raw bytes of a configuration file, at most :data:`MAX_FILE_BYTES`.

    Raises:
        ConfigError: unreadable or too large; the field is the file path.
    """
    name = os.fspath(path)
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):  # a FIFO would block open() forever
            raise ConfigError(name, "not a regular file")
        with open(name, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(name, f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(name, f"file is larger than {MAX_FILE_BYTES} bytes; a sampling config is a few KB")
    return data


def read_config_file(path: str | os.PathLike[str]) -> tuple[SamplingConfig, bytes]:
    """Read, decode and validate a configuration file; also return its raw bytes.

    Raises:
        ConfigError: every problem found; file-level ones name the path.
    """
    name = os.fspath(path)
    data = read_bytes(name)
    return parse_config_bytes(data, name), data


def parse_config_bytes(data: bytes, name: str) -> SamplingConfig:
    """A configuration from a file's bytes (JSON by a ``.json`` name, else YAML)."""
    return parse_config(parse_document(data, name, json_only=name.lower().endswith(".json")))


def load_config(source: str | os.PathLike[str] | Mapping[str, Any]) -> SamplingConfig:
    """A validated :class:`SamplingConfig` from a YAML/JSON file path or a mapping.

    Raises:
        ConfigError: every problem found, each naming its field (or the file).
    """
    if isinstance(source, Mapping):
        return parse_config(source)
    return read_config_file(source)[0]


def load_document(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """Read and decode one configuration file (YAML, or JSON by its ``.json`` suffix).

    Raises:
        ConfigError: unreadable, too large, empty, not UTF-8, malformed, or not a mapping;
            the field is the file path.
    """
    name = os.fspath(path)
    return parse_document(read_bytes(name), name, json_only=Path(name).suffix.lower() == ".json")


def parse_document(data: bytes, name: str = "<config>", *, json_only: bool = False) -> Mapping[str, Any]:
    """Decode the bytes of a configuration document (see :func:`load_document`)."""
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(name, f"document is larger than {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(name, f"not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise ConfigError(name, "the file is empty")
    try:
        document = _json(text) if json_only else _yaml(text)
    except RecursionError:
        raise ConfigError(name, "document is nested too deeply") from None
    except ConfigError as exc:
        raise ConfigError(name, exc.problem) from None
    if not isinstance(document, Mapping):
        raise ConfigError(name, f"expected a mapping at the top level, got {typed(document)}")
    _check_depth(document, name, 0)
    return document


def _check_depth(value: object, name: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ConfigError(name, f"document is nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        for item in value.values():
            _check_depth(item, name, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, name, depth + 1)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ConfigError("", f"key {show(key)} appears twice")
        out[key] = value
    return out


def _json(text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ConfigError("", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError("", f"invalid JSON: {show(str(exc), 120)}") from None


def _yaml(text: str) -> Any:
    try:
        import yaml
    except ImportError:
        if text.lstrip().startswith("{"):
            return _json(text)
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
