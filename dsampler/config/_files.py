"""Configuration files -> plain mappings, refusing what could hurt the process: files
above :data:`MAX_FILE_BYTES`, deep nesting, YAML anchors and aliases, and duplicate keys
(the later one silently winning would hide a typo). A refused field's line is found on
the error path only, along the paths of the fields the problems name.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Mapping
from typing import Any, Final

from dsampler._validate import read_int, show, typed
from dsampler.config._model import SamplingConfig
from dsampler.config._parse import parse_config
from dsampler.config._shape import render_step
from dsampler.config._yaml import MAX_DEPTH, compose_yaml, parse_yaml_node
from dsampler.errors import ConfigError

MAX_FILE_BYTES: Final = 1 << 20  # 1 MiB: a sampling config is a few KB; 2,000 operations ~100 KB


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The raw bytes of a configuration file, at most :data:`MAX_FILE_BYTES`.

    Raises:
        ConfigError: unreadable or too large; the field is the file path.
    """
    name = os.fspath(path)
    try:
        # Opened without blocking (a FIFO would block open() forever), then checked on
        # the descriptor itself: no window between a check and the open.
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            handle = open(fd, "rb", closefd=True) if regular else None  # noqa: SIM115 - closed below
        except BaseException:
            os.close(fd)
            raise
        if handle is None:
            os.close(fd)
            raise ConfigError(name, "not a regular file")
        with handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(name, f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(name, f"file is larger than {MAX_FILE_BYTES} bytes; a sampling config is a few KB")
    return data


def locate(name: str, problem: ConfigError) -> str:
    """``FILE: field: problem``, naming the file once: file-level problems carry the
    file as their field, and a problem text that starts with the file again loses it."""
    text = problem.problem
    while text.startswith(f"{name}: "):
        text = text[len(name) + 2 :]
    if problem.field and problem.field != name:
        return f"{name}: {problem.field}: {text}"
    return f"{name}: {text}"


def describe(name: str, exc: ConfigError) -> str:
    """Every problem of ``exc`` as ``FILE: field: problem``, the file named once each."""
    return "; ".join(locate(name, problem) for problem in exc.errors)


_CUT: Final = re.compile(r"[.\[]")


def with_lines(exc: ConfigError, root: Any) -> ConfigError:
    """``exc`` with ``(line N)`` after each problem whose field (or the nearest field
    above it) stands in the composed document ``root`` (None: ``exc`` as it is)."""
    if root is None:
        return exc
    lines = field_lines(root, (problem.field for problem in exc.errors))
    out = []
    for problem in exc.errors:
        above = [problem.field[: m.start()] for m in _CUT.finditer(problem.field)]  # as field_lines
        field = next((f for f in (problem.field, *reversed(above)) if f and f in lines), "")
        suffix = f" (line {lines[field]})" if field else ""
        out.append(ConfigError(problem.field, problem.problem + suffix))
    return ConfigError.of(out)


def field_lines(root: Any, fields: Iterable[str]) -> dict[str, int]:
    """Line (1-based) of each of ``fields`` and of the fields above them that stand in
    the composed document ``root``, by the path the parser names them with. The walk
    descends only into the paths above ``fields``, in document order."""
    import yaml

    wanted: set[str] = set()
    above: set[str] = set()  # the paths to descend into: proper beginnings of the fields
    for field in fields:
        wanted.add(field)
        above.update(field[: m.start()] for m in _CUT.finditer(field))
    wanted |= above
    mapping, sequence, scalar = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode
    lines: dict[str, int] = {}
    stack: list[tuple[Any, str, int, str | int]] = [(root, "", 0, "")]
    while stack:
        node, path, depth, top = stack.pop()
        if isinstance(node, mapping):
            children = [(key.value, key, value) for key, value in node.value if isinstance(key, scalar)]
        elif isinstance(node, sequence):
            children = [(i, item, item) for i, item in enumerate(node.value)]
        else:
            continue
        for part, marked, child in children:
            here = render_step(path, depth, top, part)
            if here in wanted:
                lines[here] = marked.start_mark.line + 1
                if here in above:
                    stack.append((child, here, depth + 1, part if depth == 0 else top))
    return lines


def parse_config_bytes(data: bytes, name: str) -> SamplingConfig:
    """A configuration from a file's bytes (JSON by a ``.json`` name, else YAML), each
    problem with the line of the file its value stands on."""
    document, composed = _read_document(data, name, json_only=name.lower().endswith(".json"))
    try:
        return parse_config(document)
    except ConfigError as exc:
        if composed is None:  # JSON: composed once, for the lines alone
            composed = compose_yaml(data.decode("utf-8-sig"))
        raise with_lines(exc, composed) from None


def load_config(source: str | os.PathLike[str] | Mapping[str, Any]) -> SamplingConfig:
    """A validated :class:`SamplingConfig` from a YAML/JSON file path or a mapping.

    Raises:
        ConfigError: every problem found, each naming its field (or the file).
    """
    if isinstance(source, Mapping):
        return parse_config(source)
    return parse_config_bytes(read_bytes(source), os.fspath(source))


def load_document(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """Read and decode one configuration file (YAML, or JSON by its ``.json`` suffix).

    Raises:
        ConfigError: unreadable, too large, empty, not UTF-8, malformed, or not a mapping;
            the field is the file path.
    """
    name = os.fspath(path)
    return parse_document(read_bytes(name), name, json_only=name.lower().endswith(".json"))


def parse_document(data: bytes, name: str = "<config>", *, json_only: bool = False) -> Mapping[str, Any]:
    """Decode the bytes of a configuration document (see :func:`load_document`)."""
    return _read_document(data, name, json_only)[0]


def _read_document(data: bytes, name: str, json_only: bool) -> tuple[Mapping[str, Any], Any]:
    """:func:`parse_document`, and the composed YAML document (None for JSON, or without PyYAML)."""
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(name, f"document is larger than {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(name, f"not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise ConfigError(name, "the file is empty")
    try:
        document, composed = (parse_json(text), None) if json_only else parse_yaml_node(text, parse_json)
    except RecursionError:
        raise ConfigError(name, "document is nested too deeply") from None
    except ConfigError as exc:
        raise ConfigError(name, exc.problem) from None
    if not isinstance(document, Mapping):
        raise ConfigError(name, f"expected a mapping at the top level, got {typed(document)}")
    if composed is None:  # the YAML reader refuses deep nesting as it composes
        _check_depth(document, name, 0)
    return document, composed


def _check_depth(value: object, name: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ConfigError(name, f"document is nested deeper than {MAX_DEPTH} levels")
    for item in value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ():
        _check_depth(item, name, depth + 1)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # in C; a key twice shows in the length, and is then named
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ConfigError("", f"key {show(key)} appears twice")
            seen.add(key)
    return out


def parse_json(text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_int=read_int)
    except json.JSONDecodeError as exc:
        raise ConfigError("", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError("", f"invalid JSON: {show(str(exc), 120)}") from None
