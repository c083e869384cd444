"""The YAML reader's one walk builds what PyYAML's constructor builds, and leaves
everything else to it (tests/property/test_config.py holds the two equal on random
documents)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any

import pytest
import yaml

from dsampler.config._yaml import MAX_DEPTH, Unusual, _safe_loader, build_plain


def _walk(text: str) -> Any:
    loader = _safe_loader(yaml)(text)
    try:
        return build_plain(loader, loader.get_single_node(), MAX_DEPTH)
    finally:
        loader.dispose()


def _pyyaml(text: str) -> Any:
    loader = _safe_loader(yaml)(text)
    try:
        return loader.construct_document(loader.get_single_node())
    finally:
        loader.dispose()


DOCUMENT = """\
rate: 0.05
max_operations: 010
hex: 0x1F
octal: 0o17
big: -.inf
none: ~
empty:
flag: true
word: no
time: 12:30
day: 2026-12-01
at: 2026-12-01T09:00:00Z
quoted: "0.5"
tagged: !!str 7
floated: !!float 1_000.5
1: int key
2.5: float key
null: null key
operations:
  GET /a: 0.5
  POST /b: {rate: 0.2, lower_bound_per_second: 1}
rules:
  - match: {span_name: [x, {prefix: "y/"}], span_kind: [server]}
    action: {sample: 1.0}
  - [nested, [lists, [of, lists]]]
"""


def test_a_configuration_builds_as_pyyaml_builds_it() -> None:
    """Every scalar form, nesting and key kind of a configuration file: the same values
    and types as PyYAML's constructor."""
    built = _walk(DOCUMENT)
    assert built == _pyyaml(DOCUMENT)
    assert [type(built[k]) for k in ("rate", "max_operations", "flag", "word", "none", "floated")] == [
        float,
        int,
        bool,
        str,
        type(None),
        float,
    ]
    assert (built["max_operations"], built["hex"], built["octal"], built["floated"]) == (10, 31, 15, 1000.5)
    assert built["day"] == date(2026, 12, 1)
    assert built["at"] == datetime(2026, 12, 1, 9, tzinfo=timezone.utc)
    assert (built[1], built[2.5], built[None]) == ("int key", "float key", "null key")


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a key twice
        "{1: a, 1.0: b}",  # equal keys of two types
        "{true: a, 1: b}",
        "? [a, b]\n: 1\n",  # a key that is not a scalar
        "? {a: 1}\n: 1\n",
        "<<: {a: 1}\n",  # a merge key
        "=: 1\n",  # a value key
        "a: !!set {x, y}\n",  # tags it does not build
        "a: !!omap [{x: 1}]\n",
        "a: !!binary aGk=\n",
        "a: !custom x\n",
        "a: !!str [x]\n",  # a tag on the wrong kind of node
        "a: !!bool maybe\n",  # a scalar its constructor refuses
        "a: !!int x\n",
        "a: 2026-02-30\n",
    ],
)
def test_what_it_does_not_build_is_left_to_pyyaml(text: str) -> None:
    """Duplicate and non-scalar keys, rarer tags and refused scalars raise Unusual: PyYAML's
    constructor then builds them, or reports the problem as it always has."""
    with pytest.raises(Unusual):
        _walk(text)


def test_nesting_past_the_limit_is_left_to_pyyaml() -> None:
    """Items deeper than the limit raise Unusual (the node walk then names the problem);
    the limit itself is read."""
    assert _walk("[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH) is not None
    assert _walk("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None  # empty at the limit: nothing deeper
    with pytest.raises(Unusual):
        _walk("[" * (MAX_DEPTH + 1) + "1" + "]" * (MAX_DEPTH + 1))
    with pytest.raises(Unusual):
        _walk("a: " + "{a: " * MAX_DEPTH + "1" + "}" * MAX_DEPTH)
