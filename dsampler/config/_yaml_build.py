"""Composed YAML nodes -> plain values in one walk: the fast way through a large file.

It only accelerates: anything else (a duplicate or non-scalar key, an unknown tag, a
scalar its constructor refuses, nesting past the limit) raises :class:`Unusual`, and the
caller builds the document with PyYAML's constructor, which reports the problem. It never
sees an alias: the caller refuses those first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

_TAG: Final = "tag:yaml.org,2002:"
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
