"""YAML for configuration files, read safely: no objects built, no anchors or aliases, no
duplicate keys, YAML 1.2's core schema. PyYAML is optional; without it JSON still works.

A composed document is built into plain values in one walk, the fast way through a large
file (:func:`build_plain`); PyYAML's constructor builds, and refuses, what it does not take.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Final

from dsampler._validate import LongInteger, read_int, show
from dsampler.errors import ConfigError

MAX_DEPTH: Final = 32
_TAG: Final = "tag:yaml.org,2002:"


def parse_yaml_node(text: str, parse_json: Callable[[str], Any]) -> tuple[Any, Any]:
    """One YAML document -> plain values, and the composed document (None without PyYAML,
    when ``parse_json`` reads a JSON document: JSON is YAML)."""
    try:
        import yaml
    except ImportError:
        if text.lstrip().startswith("{"):
            return parse_json(text), None
        raise ConfigError(
            "", "reading YAML needs PyYAML (dsampler's yaml extra, or pip install pyyaml); or use JSON"
        ) from None
    loader = None
    try:
        loader = _safe_loader(yaml)(text)  # PyYAML's reader already rejects control characters
        node = loader.get_single_node()
        return (None if node is None else _construct(loader, node, text)), node
    except yaml.reader.ReaderError as exc:  # its own text is two lines, the second "in <unicode string>"
        line, column = text.count("\n", 0, exc.position) + 1, exc.position - text.rfind("\n", 0, exc.position)
        problem = f"unacceptable character #x{exc.character:04x}: {exc.reason}"
        raise ConfigError("", f"invalid YAML at line {line} column {column}: {problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise ConfigError("", f"invalid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    except (ValueError, OverflowError) as exc:  # a scalar its resolvers took for a date or number
        raise ConfigError("", f"invalid YAML value: {show(str(exc), 120)}") from None
    finally:
        if loader is not None:
            loader.dispose()


def _construct(loader: Any, node: Any, text: str) -> Any:
    """The values of a composed document, built by :func:`build_plain` or, for what it
    leaves, PyYAML's constructor. Aliases need an ``&`` in the text, so only then are
    they looked for before the fast walk."""
    checked = "&" in text
    if checked:
        _check_nodes(node, text)
    try:
        return build_plain(loader, node, MAX_DEPTH)
    except Unusual:
        if not checked:
            _check_nodes(node, text)
        return loader.construct_document(node)


def _check_nodes(root: Any, text: str) -> None:
    """Refuse aliases (a node met twice) and deep nesting in a composed document, in
    time linear in its size."""
    import yaml

    seen: set[int] = set()
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            raise yaml.YAMLError(f"anchors and aliases are not allowed (line {_alias_line(yaml, text)})")
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise yaml.YAMLError(f"document is nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, yaml.MappingNode):
            stack.extend((part, depth + 1) for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)


def _alias_line(yaml: Any, text: str) -> int:
    """Line of the first alias (error path only: the composed node does not keep it)."""
    for event in yaml.parse(text, Loader=_safe_loader(yaml)):
        if isinstance(event, yaml.AliasEvent):
            return int(event.start_mark.line) + 1
    return 0  # pragma: no cover - only called once an alias was composed


def compose_yaml(text: str) -> Any:
    """The composed document of ``text`` (YAML or JSON), for error messages only: None
    when PyYAML is missing or the document does not compose."""
    try:
        import yaml

        return yaml.compose(text, Loader=_safe_loader(yaml))
    except Exception:  # only a nicer message is at stake
        return None


@functools.cache
def _safe_loader(yaml: Any) -> Any:
    """PyYAML's safe loader (its C parser when built with libyaml) with duplicate keys
    refused and YAML 1.2's core schema: only true/false are booleans (``country: no``
    stays "no"), ``1e-3`` is a number, ``010`` is ten and ``12:30`` is a string."""

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    replaced = {_TAG + t for t in ("bool", "int", "float")}

    class Loader(base):  # type: ignore[misc,valid-type]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, Any]]]] = {
            first: [(tag, rx) for tag, rx in resolvers if tag not in replaced]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }

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

    _add_core_schema(Loader)
    _add_checked_scalars(Loader)
    _add_fast_resolve(yaml, Loader)
    return Loader


def _add_core_schema(loader: Any) -> None:
    """YAML 1.2's core schema for booleans, integers and floats on ``loader``."""
    loader.add_implicit_resolver(
        _TAG + "bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    loader.add_implicit_resolver(
        _TAG + "int",
        re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
        list("-+0123456789"),
    )
    loader.add_implicit_resolver(
        _TAG + "float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    )
    loader.add_constructor(_TAG + "int", _construct_int)


def _add_fast_resolve(yaml: Any, loader: Any) -> None:
    """A cheaper ``resolve`` with the same answers as PyYAML's (the first implicit
    resolver of the scalar's first character that matches, else the default tag)."""
    if loader.yaml_path_resolvers or None in loader.yaml_implicit_resolvers:  # pragma: no cover
        return  # a PyYAML whose safe loader resolves by path or by any character: its own way
    table = {first: tuple(resolvers) for first, resolvers in loader.yaml_implicit_resolvers.items()}
    scalar, mapping = yaml.ScalarNode, yaml.MappingNode
    scalar_tag, mapping_tag, sequence_tag = (
        loader.DEFAULT_SCALAR_TAG,
        loader.DEFAULT_MAPPING_TAG,
        loader.DEFAULT_SEQUENCE_TAG,
    )

    def resolve(self: Any, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is scalar:
            if implicit[0]:
                for tag, regexp in table.get(value[:1], ()):
                    if regexp.match(value):
                        return tag
            return scalar_tag
        return mapping_tag if kind is mapping else sequence_tag

    loader.resolve = resolve


#: Tagged scalars PyYAML's constructors fail on with a foreign exception (``!!bool
#: maybe``: KeyError): what they expected, for the error that replaces it.
_EXPECTED: Final = {"bool": "true or false", "float": "a number", "timestamp": "a date or time"}


def _add_checked_scalars(loader: Any) -> None:
    """Constructors of ``_EXPECTED``'s tags that refuse a bad scalar as invalid YAML."""
    for name, expected in _EXPECTED.items():
        tag = _TAG + name
        loader.add_constructor(tag, _checked(loader.yaml_constructors[tag], name, expected))


def _checked(construct: Callable[[Any, Any], Any], name: str, expected: str) -> Callable[[Any, Any], Any]:
    def checked(loader: Any, node: Any) -> Any:
        try:
            return construct(loader, node)
        except (KeyError, IndexError, AttributeError, TypeError):
            import yaml

            problem = f"expected {expected} for !!{name}, got {show(node.value)}"
            raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark) from None

    return checked


def _construct_int(loader: Any, node: Any) -> int | LongInteger:
    """YAML 1.2 integers: decimal (past ``int()``'s digits a ``LongInteger``), ``0o`` octal, ``0x`` hex."""
    text = loader.construct_scalar(node)
    if text[:2] in ("0o", "0x"):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return read_int(text)


_STR: Final = _TAG + "str"
_MAP: Final = _TAG + "map"
_SEQ: Final = _TAG + "seq"
#: The scalar tags besides strings whose constructors are plain functions of a node.
_SCALAR_TAGS: Final = tuple(_TAG + name for name in ("int", "float", "bool", "null", "timestamp"))


class Unusual(Exception):  # noqa: N818 - not an error: a signal to take the general way
    """The document needs PyYAML's own constructor (its errors, or its rarer tags)."""


def build_plain(loader: Any, root: Any, max_depth: int) -> Any:
    """``root`` (composed by ``loader``, without aliases) as plain values, as the
    loader's constructor would build it.

    Raises:
        Unusual: the document needs the loader's own constructor.
    """
    return _Walk(loader, max_depth).node(root, 0)


class _Walk:
    """One document's walk; ``node`` is recursive, at most ``max_depth`` deep."""

    __slots__ = ("loader", "mapping_node", "max_depth", "scalar_node", "scalars", "sequence_node")

    def __init__(self, loader: Any, max_depth: int) -> None:
        import yaml

        self.loader = loader
        self.scalar_node, self.mapping_node, self.sequence_node = (
            yaml.ScalarNode,
            yaml.MappingNode,
            yaml.SequenceNode,
        )
        self.scalars: dict[str, Callable[[Any, Any], Any]] = {
            tag: loader.yaml_constructors[tag] for tag in _SCALAR_TAGS
        }
        self.max_depth = max_depth

    def scalar(self, node: Any) -> Any:
        if node.tag == _STR:
            return node.value
        construct = self.scalars.get(node.tag)
        if construct is None:
            raise Unusual
        try:
            return construct(self.loader, node)
        except Exception:  # its own error is reported by the general way
            raise Unusual from None

    def node(self, node: Any, depth: int) -> Any:
        kind = node.__class__
        if kind is self.scalar_node:
            return self.scalar(node)
        if node.value and depth >= self.max_depth:  # its items would be too deep
            raise Unusual
        if kind is self.mapping_node and node.tag == _MAP:
            return self.mapping(node.value, depth + 1)
        if kind is self.sequence_node and node.tag == _SEQ:
            scalar_node, scalar = self.scalar_node, self.scalar
            return [
                (item.value if item.tag == _STR else scalar(item))
                if item.__class__ is scalar_node
                else self.node(item, depth + 1)
                for item in node.value
            ]
        raise Unusual

    def mapping(self, pairs: list[tuple[Any, Any]], depth: int) -> dict[Any, Any]:
        scalar_node, scalar = self.scalar_node, self.scalar
        out = {}
        for key, value in pairs:
            if key.__class__ is not scalar_node:
                raise Unusual
            out[key.value if key.tag == _STR else scalar(key)] = (
                (value.value if value.tag == _STR else scalar(value))
                if value.__class__ is scalar_node
                else self.node(value, depth)
            )
        if len(out) != len(pairs):  # a key twice: the general way names it
            raise Unusual
        return out
