"""Properties of the configuration parser: hostile documents give a ConfigError (or a
config) quickly, a broken field is named by its path, serialize round-trips through
mappings, JSON and YAML, and durations add up."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from dsampler import ConfigError
from dsampler.config._files import parse_document
from dsampler.config._model import OperationStrategy, SamplingConfig
from dsampler.config._parse import parse_config, serialize
from dsampler.config._rule import AttributeMatch, Drop, Match, Pattern, Rule, Sample
from dsampler.config._shape import parse_duration
from dsampler.config._yaml import MAX_DEPTH, Unusual, _check_nodes, _safe_loader, build_plain
from tests.property.config_strategies import (
    BAD,
    LONG_TEXT,
    TEN_MB_TEXT,
    UNITS,
    configs,
    duration_parts,
    hostile_documents,
    near_valid_documents,
)
from tests.yaml_dump import dump_yaml

MAX_MESSAGE = 2000  # characters: an error message is read by a person
HOSTILE = settings(
    deadline=timedelta(seconds=2),
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
ROUND_TRIP = settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])

#: 1 MB keys cost the unknown-key suggestion ~50 ms each; 10 MB keys cost about a second
#: (see test_long_unknown_key_is_reported_quickly), so only the strict test below uses them.
MB_KEYS = ["k" * 1_000_000, "🔑" * 250_000, "a" * 1025]


def _parse(doc: Any) -> SamplingConfig | ConfigError:
    """parse_config's result or its ConfigError; any other exception propagates."""
    try:
        return parse_config(doc)
    except ConfigError as exc:
        return exc


def _strict(value: object) -> object:
    """A comparable form of a serialized document in which 1, 1.0 and True, and 0.0 and
    -0.0, all differ (dataclass equality treats them as equal)."""
    if isinstance(value, dict):
        return ("dict", tuple((_strict(k), _strict(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_strict(v) for v in value))
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


# -- hostile documents -------------------------------------------------------------------


@HOSTILE
@given(hostile_documents(MB_KEYS))
def test_hostile_document_gives_config_or_config_error(doc: Any) -> None:
    """Any document parses to a SamplingConfig or raises ConfigError, never anything else."""
    result = _parse(doc)
    if isinstance(result, ConfigError):
        assert result.errors
        assert result.errors[0] is result
        assert all(e.problem for e in result.errors)
    else:
        assert isinstance(result, SamplingConfig)


@settings(HOSTILE, report_multiple_bugs=False)
@given(hostile_documents([*MB_KEYS, *TEN_MB_TEXT]))
@example({"": 1})
@example({"rules": [{"action": "drop", "match": {"attributes": {TEN_MB_TEXT[0]: 1}}}]})
@example({"rules": ["drop"] * 100})
def test_hostile_document_errors_are_named_and_short(doc: Any) -> None:
    """Every error of any document names a field and a problem, in a short message."""
    result = _parse(doc)
    if isinstance(result, ConfigError):
        assert all(e.field and e.problem for e in result.errors)
        assert len(str(result)) < MAX_MESSAGE


@pytest.mark.parametrize(
    "value",
    [*LONG_TEXT, 10**400, -(10**400), math.nan, math.inf, -math.inf, [[[[]]]], {"a": {"b": {}}}],
    ids=lambda v: type(v).__name__,
)
@pytest.mark.parametrize(
    "field",
    ["rate", "hash", "parent_based", "max_operations", "traces_per_second", "operations", "rules"],
)
def test_odd_value_at_top_level_key_is_named(field: str, value: object) -> None:
    """A huge, non-finite or nested value at a known key is a short ConfigError naming that key."""
    with pytest.raises(ConfigError) as info:
        parse_config({field: value})
    assert info.value.field.startswith(field)
    assert len(str(info.value)) < MAX_MESSAGE


def test_empty_unknown_key_is_named() -> None:
    """An unknown empty key is reported with a non-empty field."""
    with pytest.raises(ConfigError) as info:
        parse_config({"": 1})
    assert info.value.field


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param(
            {"rules": [{"action": "drop", "match": {"attributes": {TEN_MB_TEXT[0]: 1}}}]},
            id="10MB-attribute-key",
        ),
        pytest.param(
            {"operations": {"\x00" * 1024: "fast"}},
            id="1024-char-operation-name",
        ),
        pytest.param({TEN_MB_TEXT[0]: 1}, id="10MB-unknown-key"),
        pytest.param({"operations": {TEN_MB_TEXT[0]: 0.5}}, id="10MB-operation-name"),
    ],
)
def test_error_about_long_key_is_short(doc: dict[str, Any]) -> None:
    """An error about a long key quotes a short part of it, not all of it."""
    with pytest.raises(ConfigError) as info:
        parse_config(doc)
    assert len(str(info.value)) < MAX_MESSAGE


def test_many_problems_make_a_short_message() -> None:
    """A document with thousands of bad rules gives a message of bounded size."""
    with pytest.raises(ConfigError) as info:
        parse_config({"rules": ["drop"] * 10_000})
    assert len(info.value.errors) >= 1
    assert len(str(info.value)) < MAX_MESSAGE


def test_long_unknown_key_is_reported_quickly() -> None:
    """A 10 MB unknown key is reported in well under a second (no suggestion work on it)."""
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="unknown key"):
        parse_config({"rules": [{"action": "drop", TEN_MB_TEXT[0]: 1}]})
    assert time.perf_counter() - started < 0.2


def test_attribute_key_starting_with_bracket_has_unambiguous_path() -> None:
    """An attribute key that starts with '[' is still joined to its path with a dot."""
    with pytest.raises(ConfigError) as info:
        parse_config({"rules": [{"action": "drop", "match": {"attributes": {"[0]": None}}}]})
    assert info.value.field == "rules[0].match.attributes['[0]'][0]"


YAML_TOKENS = [
    *["rate", "rules", "operations", "action", "drop", "match", "span_name", "at", "after"],
    *[":", ": ", " ", "  ", "\n", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!str ", "!!binary "],
    *["!!bool ", "!!float ", "!!int ", "!!null ", "!!timestamp ", "!!set ", "!!map ", "!!seq "],
    *["<<: ", "? ", "="],
    *["!!python/object/apply:os.system ", "?", "|", ">", "#", "'", '"', "\\", "\t", "%YAML 1.2\n", "---\n"],
    *["0", "1", "0x", "_", ".", "e", "-", "+", "2026-12-01", "T09:00:00", "Z", "+01:00", "true", "no", "~"],
    *["é", "🚀", "\u202e", "\ufeff", "\x85", "\u2028"],
]
documents_as_bytes = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=100).map(str.encode),
    st.lists(st.sampled_from(YAML_TOKENS), max_size=40).map("".join).map(str.encode),
)


@settings(HOSTILE, report_multiple_bugs=False)
@given(documents_as_bytes, st.booleans())
@example(b"rate: 0.1\x0c", False)
@example(b"rate: 2026-13-45", False)
@example(b"rate: 0x_", False)
@example(b"rate: " + b"1" * 5000, False)
@example(b'{"rate": ' + b"1" * 5000 + b"}", True)
def test_any_bytes_give_a_mapping_or_a_config_error(data: bytes, json_only: bool) -> None:
    """Any bytes, as YAML or as JSON, decode to a mapping or raise ConfigError naming the document."""
    try:
        result: Mapping[str, Any] | ConfigError = parse_document(data, "<doc>", json_only=json_only)
    except ConfigError as exc:
        result = exc
    if isinstance(result, ConfigError):
        assert result.field == "<doc>"
        assert result.problem
    else:
        assert isinstance(result, Mapping)


# -- the YAML reader's one walk ----------------------------------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["true", "no", "0x1F", "0o17", "010", "1e3", "12:30", "~", "", ".inf", "2026-12-01"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_SCALARS, inner, max_size=4),
    max_leaves=20,
)
#: Structured documents in YAML's block and flow styles and as JSON, and token soup.
yaml_texts = st.one_of(
    st.tuples(_VALUES, st.sampled_from([None, False, True])).map(
        lambda v: yaml.safe_dump(v[0], default_flow_style=v[1], allow_unicode=True)
    ),
    _VALUES.map(lambda v: json.dumps(v, default=str)),
    st.lists(st.sampled_from(YAML_TOKENS), max_size=40).map("".join),
)


def _pyyaml_builds(text: str) -> object:
    """What PyYAML's constructor (dsampler's loader) builds of ``text``, as :func:`_strict`
    sees it; the exception's class when it refuses it."""
    loader = _safe_loader(yaml)(text)
    try:
        return _strict(loader.construct_document(loader.get_single_node()))
    except Exception as exc:
        return type(exc)
    finally:
        loader.dispose()


@settings(HOSTILE, max_examples=400, report_multiple_bugs=False)
@given(yaml_texts)
@example("a: 1\nA: 2\n1: 3\n1.0: 4\n")
@example("{true: 1, 1: 2}")
@example("x: !!bool maybe")
@example("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]")
def test_the_one_walk_builds_what_pyyaml_builds(text: str) -> None:
    """Whatever document the reader builds in its one walk, PyYAML's own constructor
    builds the same values of (types included); a document it leaves to PyYAML
    (``Unusual``) is one PyYAML refuses, or one of the rarer forms. Without an ``&``
    (no anchor, so no alias) the walk refuses too deep a document itself."""
    try:
        node = yaml.compose(text, Loader=_safe_loader(yaml))
    except yaml.YAMLError:
        return  # does not compose: the walk never sees it
    assume(node is not None)
    try:
        _check_nodes(node, text)
        passes = True
    except yaml.YAMLError:
        passes = False
    if "&" in text and not passes:
        return  # an alias: refused before any walk
    try:
        built = build_plain(_safe_loader(yaml)(""), node, MAX_DEPTH)
    except Unusual:
        return
    assert passes, "the walk read a document the node walk refuses"
    assert _strict(built) == _pyyaml_builds(text)


# -- near-valid documents ----------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BAD))
@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_broken_field_is_named_by_its_path(kind: str, data: st.DataObject) -> None:
    """A valid configuration with one field broken raises ConfigError naming that field's path."""
    doc, path = data.draw(near_valid_documents(kind))
    with pytest.raises(ConfigError) as info:
        parse_config(doc)
    assert path in [e.field for e in info.value.errors], str(info.value)[:MAX_MESSAGE]


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"rules": [{"action": "drop"}, {"action": {"sample": "all"}}]}, "rules[1].action.sample"),
        ({"rules": [{"action": {"rate_limit": -1}}]}, "rules[0].action.rate_limit"),
        ({"operations": {"GET /a": {"rate": 2}}}, "operations['GET /a'].rate"),
        (
            {"rules": [{"action": {"rollout": {"steps": [{"after": "0s", "rate": 0.5}, {"after": "1m"}]}}}]},
            "rules[0].action.rollout.steps[1].rate",
        ),
        (
            {
                "rules": [
                    {
                        "action": {
                            "rollout": {"steps": [{"after": "1m", "rate": 0.5}, {"after": "2m", "rate": 0.1}]}
                        }
                    }
                ]
            },
            "rules[0].action.rollout.steps[1].rate",
        ),
        (
            {"rules": [{"action": {"rollout": {"steps": [{"after": "1m", "rate": 0.1}] * 2}}}]},
            "rules[0].action.rollout.steps[1]",
        ),
        (
            {"rules": [{"action": {"rollout": {"steps": [{"after": "1m", "at": "2026-12-01T09:00:00Z"}]}}}]},
            "rules[0].action.rollout.steps[0]",
        ),
        ({"max_operations": 1, "operations": {"a": 0.1, "b": 0.2}}, "operations"),
    ],
)
def test_model_level_problem_is_named_by_its_path(doc: dict[str, Any], path: str) -> None:
    """Problems found by the model (order, missing parts, counts) also carry the full path."""
    with pytest.raises(ConfigError) as info:
        parse_config(doc)
    assert path in [e.field for e in info.value.errors]


def test_every_problem_is_reported_at_once() -> None:
    """Three broken fields in different places give three errors, each naming its path."""
    with pytest.raises(ConfigError) as info:
        parse_config({"rate": 2, "rules": [{"action": "keep"}], "operations": {"x": {"rate": None}}})
    assert [e.field for e in info.value.errors] == ["rate", "rules[0].action", "operations['x'].rate"]


# -- round trips -------------------------------------------------------------------------


@ROUND_TRIP
@given(configs())
def test_serialize_round_trips(config: SamplingConfig) -> None:
    """parse_config(serialize(c)) == c, types and signs of every value included."""
    doc = serialize(config)
    parsed = parse_config(doc)
    assert parsed == config
    assert _strict(serialize(parsed)) == _strict(doc)


@ROUND_TRIP
@given(configs())
def test_serialize_round_trips_through_json(config: SamplingConfig) -> None:
    """The serialized form survives json.dumps and loads, and the file reader's JSON path."""
    doc = serialize(config)
    text = json.dumps(doc)
    for loaded in (json.loads(text), parse_document(text.encode("utf-8"), "<json>", json_only=True)):
        parsed = parse_config(loaded)
        assert parsed == config
        assert _strict(serialize(parsed)) == _strict(doc)


@ROUND_TRIP
@given(configs())
@example(SamplingConfig(operations={"a\x85b": OperationStrategy(0.5)}))
@example(SamplingConfig(rules=(Rule(Match(span_name=(Pattern("exact", "0o0"),)), Drop()),)))
def test_serialize_round_trips_through_yaml(config: SamplingConfig) -> None:
    """The serialized form survives dump_yaml and dsampler's YAML reader (YAML 1.2 scalars)."""
    doc = serialize(config)
    text = dump_yaml(doc)
    # PyYAML's emitter writes a raw NEL (U+0085) in a single-quoted scalar when allowed
    # unicode, which every YAML reader (PyYAML's own too) folds into a space.
    assume("\x85" not in text)
    parsed = parse_config(parse_document(text.encode("utf-8"), "<yaml>"))
    assert parsed == config
    assert _strict(serialize(parsed)) == _strict(doc)


@pytest.mark.parametrize("text", ["0o0", "1e3", "010", "true", "0x1F", ".5", "+3"])
def test_plain_yaml_dump_would_change_these_strings_and_dump_yaml_does_not(text: str) -> None:
    """PyYAML's own dump (YAML 1.1) leaves some strings unquoted that YAML 1.2 reads as numbers."""
    doc = {"rules": [{"match": {"span_name": [text]}, "action": "drop"}]}
    assert parse_document(dump_yaml(doc).encode()) == doc


def test_round_trip_keeps_attribute_types_apart() -> None:
    """1, 1.0, True and "1" stay four different attribute values through JSON and YAML."""
    values = (1, 1.0, True, Pattern("exact", "1"))
    config = SamplingConfig(rules=(Rule(Match(attributes=(AttributeMatch("k", values),)), Sample(0.5)),))
    doc = serialize(config)
    for text in (json.dumps(doc), dump_yaml(doc)):
        parsed = parse_config(parse_document(text.encode("utf-8")))
        got = parsed.rules[0].match.attributes[0].values
        assert [type(v) for v in got] == [int, float, bool, Pattern]


# -- durations ---------------------------------------------------------------------------


@given(duration_parts, st.sampled_from(["", " ", "\t", "\n"]))
def test_duration_is_the_sum_of_its_parts(parts: list[tuple[str, str]], pad: str) -> None:
    """A duration such as 1h30m is the sum of its number-unit parts, in seconds."""
    text = "".join(number + unit for number, unit in parts)
    assume(len(pad + text + pad) <= 64)
    expected = math.fsum(float(number) * UNITS[unit] for number, unit in parts)
    assert math.isclose(parse_duration(pad + text + pad, "after"), expected, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1h30m", 5400.0),
        ("250ms", 0.25),
        ("1.5s", 1.5),
        ("0s", 0.0),
        ("2d", 172800.0),
        ("10us", 1e-5),
        ("10µs", 1e-5),
        ("500ns", 5e-7),
        ("1m30s", 90.0),
        ("1e3ms", 1.0),
        ("1.s", 1.0),
        ("1h1h", 7200.0),
    ],
)
def test_duration_examples(text: str, seconds: float) -> None:
    """The documented duration forms give the expected seconds."""
    assert math.isclose(parse_duration(text, "after"), seconds, rel_tol=1e-12)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "10",
        "1.5",
        "s",
        "h1",
        "-1s",
        "+1s",
        ".5s",
        "1 h",
        "1h 30m",
        "1hour",
        "10S",
        "1H",
        "1_000s",
        "1e400s",
        "1e308d",
        "1s2",
        "inf s",
        "nans",
        "1" * 64 + "s",
        "x" * 65,
        "x" * 10_000_000,
        10,
        1.5,
        None,
        True,
        ["1s"],
        {"s": 1},
    ],
    ids=lambda v: repr(v)[:20],
)
def test_invalid_duration_names_its_path(value: object) -> None:
    """A malformed, unitless, negative, infinite or non-string duration names its path."""
    with pytest.raises(ConfigError) as info:
        parse_duration(value, "rules[0].action.rollout.steps[2].after")
    assert info.value.field == "rules[0].action.rollout.steps[2].after"
    assert len(str(info.value)) < MAX_MESSAGE


@given(
    duration_parts,
    st.sampled_from(["-", "x", ".", "+", "h", "e", "µ", "_"]),
    st.sampled_from(["-", "x", " 1", "1", ".", "e5", "+", "h", "_"]),
    st.booleans(),
)
def test_duration_with_junk_is_refused(
    parts: list[tuple[str, str]], before: str, after: str, front: bool
) -> None:
    """A valid duration with junk before or after it raises ConfigError naming the path."""
    text = "".join(number + unit for number, unit in parts)
    with pytest.raises(ConfigError) as info:
        parse_duration(before + text if front else text + after, "after")
    assert info.value.field == "after"


@given(st.text(max_size=70))
def test_any_text_is_a_duration_or_a_config_error(text: str) -> None:
    """Any string parses to finite non-negative seconds or raises ConfigError naming the path."""
    try:
        result: float | ConfigError = parse_duration(text, "after")
    except ConfigError as exc:
        result = exc
    if isinstance(result, ConfigError):
        assert result.field == "after"
    else:
        assert math.isfinite(result)
        assert result >= 0.0
