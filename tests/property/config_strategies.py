"""Hypothesis strategies for the configuration parser: valid configurations, hostile
documents, near-valid documents (one field broken on purpose) and durations."""

from __future__ import annotations

import copy
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from dsampler._validate import show
from dsampler.config._adaptive import AdaptiveSettings, HealthPolicy
from dsampler.config._model import OperationStrategy, SamplingConfig
from dsampler.config._parse import serialize
from dsampler.config._remote import RemoteSettings
from dsampler.config._rule import (
    KINDS,
    AttributeMatch,
    Drop,
    Match,
    Pattern,
    RateLimit,
    Rollout,
    RolloutStep,
    Rule,
    Sample,
)
from tests.property.strategies import RULE_NAMES, rates

PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")

# -- building blocks ---------------------------------------------------------------------

#: Values that look like something else in YAML 1.1, JSON or dsampler's own syntax.
TRICKY_TEXT = [
    "",
    " ",
    "GET /checkout",
    "no",
    "yes",
    "on",
    "off",
    "true",
    "null",
    "~",
    "1",
    "0x10",
    "0o17",
    "1:30",
    "1_000",
    ".inf",
    "2026-12-01",
    "2026-12-01T09:00:00Z",
    "drop",
    "*",
    "&a",
    "!!str",
    "- x",
    "a: b",
    "#",
    "'",
    '"',
    "\\",
    "\t",
    "\n",
    " lead and trail ",
    "ünïcödé",
    "\u202eRTL override",
    "עברית",
    "مرحبا",
    "👩\u200d👩\u200d👧\u200d👦",
    "e\u0301\u0301",
    "\u200b",
    "x" * 1024,
]
#: Text a valid configuration may hold: anything up to the 1,024-character limit.
texts = st.one_of(st.text(max_size=30), st.sampled_from(TRICKY_TEXT))

#: Traces per second: finite, in [0, 1e9], edges well represented.
per_second = st.one_of(
    st.sampled_from([0.0, 1.0, 1e9, 5e-324, 0.5]),
    st.floats(min_value=0.0, max_value=1e9),
)

#: Fixed-offset zones, from -23:59:59 to +23:59:59, UTC well represented.
zones = st.one_of(
    st.just(timezone.utc),
    st.integers(-1439, 1439).map(lambda m: timezone(timedelta(minutes=m))),
    st.integers(-86399, 86399).map(lambda s: timezone(timedelta(seconds=s))),
)
naive_times = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1))
aware_times = st.builds(lambda t, z: t.replace(tzinfo=timezone.utc).astimezone(z), naive_times, zones)

# -- valid configurations ----------------------------------------------------------------

patterns = st.builds(Pattern, st.sampled_from(["exact", "prefix", "glob"]), texts)
attribute_values = st.one_of(
    patterns,
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),  # OTel attribute ints are int64
    st.floats(allow_nan=False),
)


_typed_matches = st.builds(
    AttributeMatch, texts, st.lists(attribute_values, min_size=1, max_size=3).map(tuple)
)
_text_matches = st.builds(  # compared as text, OpenTelemetry's way (its long form in a file)
    AttributeMatch,
    texts,
    st.lists(patterns, max_size=3).map(tuple),
    st.lists(patterns, max_size=2).map(tuple),
    text=st.just(True),
)


def _attribute_matches(min_size: int) -> st.SearchStrategy[tuple[AttributeMatch, ...]]:
    return st.lists(
        st.one_of(_typed_matches, _text_matches),
        min_size=min_size,
        max_size=3,
        unique_by=lambda m: m.key,
    ).map(tuple)


def _matches(min_size: int) -> st.SearchStrategy[Match]:
    """A match with at least ``min_size`` items in each of its four parts."""
    return st.builds(
        Match,
        span_name=st.lists(patterns, min_size=min_size, max_size=3).map(tuple),
        span_kind=st.sets(st.sampled_from(KINDS), min_size=min_size).map(
            lambda s: tuple(k for k in KINDS if k in s)  # the parser's canonical order
        ),
        attributes=_attribute_matches(min_size),
        resource=_attribute_matches(min_size),
    )


@st.composite
def after_rollouts(draw: st.DrawFn, starts: st.SearchStrategy[datetime | None]) -> Rollout:
    """A rollout whose steps start ``after`` strictly increasing offsets."""
    offsets = draw(st.sets(st.floats(min_value=0.0, max_value=1e7), min_size=1, max_size=4))
    step_rates = sorted(draw(st.lists(rates, min_size=len(offsets), max_size=len(offsets))))
    steps = tuple(
        RolloutStep(rate, after_s=offset) for rate, offset in zip(step_rates, sorted(offsets), strict=True)
    )
    return Rollout(steps, start=draw(starts))


@st.composite
def at_rollouts(draw: st.DrawFn, starts: st.SearchStrategy[datetime | None]) -> Rollout:
    """A rollout whose steps start ``at`` increasing times, each in its own zone; at
    least a second apart, as the model compares float timestamps."""
    n = draw(st.integers(1, 4))
    gaps = draw(st.lists(st.timedeltas(timedelta(seconds=1), timedelta(days=400)), min_size=n, max_size=n))
    first = draw(naive_times).replace(tzinfo=timezone.utc)
    instants = [first + sum(gaps[:i], timedelta()) for i in range(n)]
    step_rates = sorted(draw(st.lists(rates, min_size=n, max_size=n)))
    steps = tuple(
        RolloutStep(rate, at=instant.astimezone(draw(zones)))
        for rate, instant in zip(step_rates, instants, strict=True)
    )
    return Rollout(steps, start=draw(starts))


_starts = st.none() | aware_times
config_rules = st.builds(
    Rule,
    _matches(0),
    st.one_of(
        st.just(Drop()),
        st.builds(Sample, rates),
        st.builds(RateLimit, per_second),
        after_rollouts(_starts),
        at_rollouts(_starts),
    ),
    st.none() | texts,
)
#: One named rule per action, each with every match part: all places a field can be.
rich_rules = st.tuples(
    *(
        st.builds(Rule, _matches(1), action, texts)
        for action in (
            st.just(Drop()),
            st.builds(Sample, rates),
            st.builds(RateLimit, per_second),
            after_rollouts(aware_times),
            at_rollouts(aware_times),
        )
    )
)
operation_strategies = st.builds(OperationStrategy, rates, st.none() | per_second)


seconds = st.floats(min_value=0.1, max_value=3600.0)
health_policies = st.none() | st.builds(
    HealthPolicy,
    rates,
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    rates,
    st.floats(min_value=0.0, max_value=3600.0),
)


@st.composite
def adaptive_settings(draw: st.DrawFn) -> AdaptiveSettings:
    """Valid controller settings: ordered ranges, every optional part on and off."""
    low_rate, high_rate = sorted(draw(st.lists(rates, min_size=2, max_size=2)))
    windows = sorted(draw(st.lists(seconds, min_size=3, max_size=3)))
    target = draw(st.floats(min_value=1e-3, max_value=1e9))
    most_factor = min(1000.0, 1e9 / target * (1 - 1e-12))  # the hard cap, factor x target: at most 1e9/s
    return AdaptiveSettings(
        target,
        min_rate=low_rate,
        max_rate=max(high_rate, 1e-9),
        alpha=draw(st.floats(0.0, 100.0)),
        beta=draw(st.floats(0.0, 100.0)),
        min_window_s=windows[0],
        window_s=windows[1],
        max_window_s=windows[2],
        hysteresis=draw(st.floats(0.0, 0.9)),
        p99_target_s=draw(st.floats(min_value=1e-6, max_value=3600.0)),
        health=draw(health_policies),
        hard_cap_factor=draw(st.none() | st.floats(1.0, most_factor) if most_factor >= 1.0 else st.none()),
        hard_cap_burst_s=draw(st.floats(0.0, 10.0)),
        tick_s=draw(st.floats(min_value=0.001, max_value=min(10.0, windows[0]))),
        share=draw(st.sampled_from(["process", "host"])),
    )


remote_settings = st.builds(
    RemoteSettings,
    endpoint=st.sampled_from(
        ["http://127.0.0.1:5778/sampling", "https://jaeger.example:14268/api/sampling", "http://h"]
    ),
    polling_interval_s=st.floats(1.0, 86400.0),
    service_name=st.none() | texts,
    request_timeout_s=st.floats(0.1, 300.0),
)


@st.composite
def configs(draw: st.DrawFn, *, rich: bool = False) -> SamplingConfig:
    """Any valid :class:`SamplingConfig`, every part of the file format represented;
    ``rich`` ones hold every part at least once (in rules in a random order)."""
    operations = draw(st.dictionaries(texts, operation_strategies, max_size=4))
    rules = draw(st.lists(config_rules, max_size=2 if rich else 4))
    if rich:
        operations[draw(texts)] = draw(st.builds(OperationStrategy, rates, per_second))
        rules = draw(st.permutations([*rules, *draw(rich_rules)]))
    return SamplingConfig(
        rate=draw(rates),
        hash=draw(st.sampled_from(RULE_NAMES)),
        parent_based=draw(st.booleans()),
        record_version=draw(st.booleans()),
        max_operations=draw(st.integers(len(operations), 1_000_000)),
        traces_per_second=draw(st.none() | per_second),
        default_lower_bound_per_second=draw(per_second),
        operations=operations,
        rules=tuple(rules),
        sampler_tags=draw(st.booleans()),
        write_th=draw(st.booleans()),
        **_owner(draw, rich),
    )


def _owner(draw: st.DrawFn, rich: bool) -> dict[str, Any]:
    """The default rate's owner: adaptive (always in rich configs), remote, or neither;
    never both, which the model refuses."""
    owner = "adaptive" if rich else draw(st.sampled_from(["none", "adaptive", "remote"]))
    if owner == "adaptive":
        return {"adaptive": draw(adaptive_settings())}
    return {"remote": draw(remote_settings)} if owner == "remote" else {}


# -- hostile documents -------------------------------------------------------------------


def _pick(values: list[Any]) -> st.SearchStrategy[Any]:
    """One of ``values``, by index: hypothesis would repr a sampled_from's elements, which
    for a 10,000-level list raises RecursionError and for 10 MB strings takes a while."""
    return st.integers(0, len(values) - 1).map(lambda i: values[i])


def _nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _nested_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"rules": value}
    return value


#: Built once: hypothesis picks them, it never generates them character by character.
TEN_MB_TEXT = ["x" * 10_000_000, "é" * 5_000_000, "🚀" * 2_500_000]
LONG_TEXT = [*TEN_MB_TEXT, "a" * 1025, "1" * 4000]
DEEP = [_nested_list(10_000), _nested_dict(10_000)]
HUGE_INTS = [10**400, -(10**400), 10**4000, 2**63, 2**64, -(2**63) - 1]
ODD_FLOATS = [math.nan, math.inf, -math.inf, -0.0, 5e-324, 1e308, 1e9 + 1, 1.0 + 2**-52]
KNOWN_KEYS = [
    "rate",
    "hash",
    "parent_based",
    "record_version",
    "write_th",
    "max_operations",
    "traces_per_second",
    "default_lower_bound_per_second",
    "operations",
    "rules",
    "lower_bound_per_second",
    "name",
    "match",
    "action",
    "span_name",
    "span_kind",
    "attributes",
    "resource",
    "exact",
    "prefix",
    "glob",
    "sample",
    "rate_limit",
    "rollout",
    "start",
    "steps",
    "at",
    "after",
    "drop",
    "version",
    "parent_base",
    "adaptive",
    "remote",
    "endpoint",
    "polling_interval",
    "target_traces_per_second",
    "window",
    "health",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    _pick(HUGE_INTS),
    st.floats(),
    st.sampled_from(ODD_FLOATS),
    st.text(max_size=20),
    st.sampled_from(TRICKY_TEXT),
    _pick(LONG_TEXT),
    st.binary(max_size=8),  # YAML !!binary
    st.dates(),  # YAML dates and times
    st.datetimes(),
    aware_times,
    st.frozensets(st.integers(), max_size=3),  # YAML !!set
    _pick(DEEP),
)
_odd_keys = st.one_of(
    st.integers(),
    st.none(),
    st.booleans(),
    st.floats(),
    _pick(HUGE_INTS),
    st.tuples(st.integers()),
    st.dates(),
)


def hostile_documents(long_keys: list[str]) -> st.SearchStrategy[Any]:
    """Documents shaped like configurations with anything at any place: junk values at
    every known key, unknown and non-string keys, random nesting, huge and odd values.

    ``long_keys`` are the very long strings also used as mapping keys.
    """
    text_keys = st.one_of(
        st.sampled_from(KNOWN_KEYS),
        st.text(max_size=12),
        st.sampled_from(TRICKY_TEXT),
        _pick(long_keys),
    )
    keys = st.one_of(text_keys, _odd_keys)
    junk = st.recursive(
        scalars,
        lambda kids: st.one_of(
            st.lists(kids, max_size=4),
            st.lists(kids, max_size=3).map(tuple),
            st.dictionaries(keys, kids, max_size=4),
        ),
        max_leaves=12,
    )

    def maybe(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(valid, junk)

    def obj(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries({}, optional=fields)

    def one_key(choices: list[str], value: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.builds(lambda k, v: {k: v}, st.sampled_from(choices), value)

    pattern = maybe(st.text(max_size=5) | one_key(["exact", "prefix", "glob"], maybe(st.text(max_size=5))))
    value = maybe(st.one_of(pattern, st.integers(), st.floats(), st.booleans()))
    attributes = maybe(st.dictionaries(text_keys, maybe(st.lists(value, max_size=3)), max_size=3))
    match = maybe(
        obj(
            span_name=maybe(st.lists(pattern, max_size=3)),
            span_kind=maybe(st.lists(maybe(st.sampled_from(KINDS)), max_size=3)),
            attributes=attributes,
            resource=attributes,
        )
    )
    times = maybe(st.sampled_from(["2026-12-01T09:00:00Z", "2026-12-01T09:00:00", "2026-12-01"]))
    step = maybe(
        obj(at=times, after=maybe(st.sampled_from(["0s", "30m", "2h", "1.5s", "10"])), rate=maybe(rates))
    )
    rollout = maybe(obj(start=times, steps=maybe(st.lists(step, max_size=3))))
    action = maybe(
        st.one_of(
            st.just("drop"),
            one_key(["sample"], maybe(rates)),
            one_key(["rate_limit"], maybe(per_second)),
            one_key(["rollout"], rollout),
        )
    )
    rule = maybe(obj(name=maybe(st.text(max_size=5)), match=match, action=action))
    operation = maybe(st.one_of(rates, obj(rate=maybe(rates), lower_bound_per_second=maybe(per_second))))
    shaped = obj(
        rate=maybe(rates),
        hash=maybe(st.sampled_from(RULE_NAMES)),
        parent_based=maybe(st.booleans()),
        record_version=maybe(st.booleans()),
        write_th=maybe(st.booleans()),
        max_operations=maybe(st.integers(0, 10)),
        traces_per_second=maybe(st.none() | per_second),
        default_lower_bound_per_second=maybe(per_second),
        operations=maybe(st.dictionaries(text_keys, operation, max_size=3)),
        rules=maybe(st.lists(rule, max_size=3)),
    )
    return st.one_of(
        shaped,
        st.builds(lambda a, b: {**a, **b}, shaped, st.dictionaries(keys, junk, max_size=2)),
        st.dictionaries(keys, junk, max_size=5),
        junk,
    )


# -- near-valid documents ----------------------------------------------------------------

NAN, INF = math.nan, math.inf


def _plain(*values: object) -> list[tuple[object, str]]:
    return [(value, "") for value in values]


#: Kind of field -> wrong values, each with the suffix its error adds to the field's path.
BAD: dict[str, list[tuple[object, str]]] = {
    "rate": _plain(1.5, -0.25, "0.5", True, None, NAN, INF, 10**400, [0.5]),
    "per_second": _plain(-1, 1e10, "3", True, NAN, INF, -INF, 10**400, {}),
    "bool": _plain(1, 0, "true", "no", None, 1.0),
    "hash": _plain("md5", "FNV1A", "", 1, None, ["fnv1a"]),
    "max_operations": _plain(-1, 1.5, 2.0, 10**7, True, "10", None),
    "operations": _plain([], "x", 5, None, {1: 0.5}),
    "rules": _plain({}, "drop", 5, None),
    "operation": [*_plain("fast", None, True, [0.5], 1.5), ({"rate": 0.5, "x": 1}, ".x"), ({}, ".rate")],
    "rule": [*_plain("drop", 5, None), ({"match": {}}, ".action"), ({"action": "drop", "when": {}}, ".when")],
    "match": [*_plain(5, "x", []), ({"span_names": []}, ".span_names")],
    "action": [
        *_plain("keep", "DROP", 5, None, {}, {"sample": 0.5, "rate_limit": 1}),
        ({"smaple": 0.5}, ".smaple"),
    ],
    "text": _plain(5, None, "x" * 1025, ["a"]),
    "pattern": [
        *_plain(5, None, "x" * 1025, {}, {"exact": "a", "prefix": "b"}, ["a"]),
        ({"prefx": "a"}, ".prefx"),
        ({"glob": 5}, ".glob"),
    ],
    "span_kind": _plain("serverr", "", 5, None, ["server"]),
    "value": [
        *_plain(None, NAN, [1], {}, "x" * 1025),
        ({"prefix": 1}, ".prefix"),
        ({"regex": "a"}, ".regex"),
    ],
    "time": _plain("2026-12-01T09:00:00", "tomorrow", 5, None, "2026-12-01", "x" * 100),
    "duration": _plain("10", 10, "-1s", "1 h", "", "1e400s", None, "s", "10S"),
}
_TOP = {
    "rate": "rate",
    "hash": "hash",
    "parent_based": "bool",
    "record_version": "bool",
    "write_th": "bool",
    "max_operations": "max_operations",
    "traces_per_second": "per_second",
    "default_lower_bound_per_second": "per_second",
    "operations": "operations",
    "rules": "rules",
}
Site = tuple[tuple[Any, ...], str, str]  # where in the document, its field path, its kind


def _match_sites(match: dict[str, Any], where: tuple[Any, ...], path: str) -> list[Site]:
    sites: list[Site] = []
    for j, pattern in enumerate(match.get("span_name", [])):
        sites.append(((*where, "span_name", j), f"{path}.span_name[{j}]", "pattern"))
        if isinstance(pattern, dict):
            (kind,) = pattern
            sites.append(((*where, "span_name", j, kind), f"{path}.span_name[{j}].{kind}", "text"))
    for j, _ in enumerate(match.get("span_kind", [])):
        sites.append(((*where, "span_kind", j), f"{path}.span_kind[{j}]", "span_kind"))
    for part in ("attributes", "resource"):
        for key, values in match.get(part, {}).items():
            # A key that reads plainly joins with a dot; any other is quoted, in part.
            label = f".{key}" if PLAIN_KEY.fullmatch(key) else f"[{show(key, 40)}]"
            if isinstance(values, dict):  # compared as text: {text: [...], excluded: [...]}
                for field, patterns in values.items():
                    for j, _ in enumerate(patterns):
                        at = (*where, part, key, field, j)
                        sites.append((at, f"{path}.{part}{label}.{field}[{j}]", "pattern"))
                continue
            for j, _ in enumerate(values):
                sites.append(((*where, part, key, j), f"{path}.{part}{label}[{j}]", "value"))
    return sites


def _action_sites(action: object, where: tuple[Any, ...], path: str) -> list[Site]:
    if not isinstance(action, dict):
        return []
    ((kind, arg),) = action.items()
    if kind == "sample":
        return [((*where, "sample"), f"{path}.sample", "rate")]
    if kind == "rate_limit":
        return [((*where, "rate_limit"), f"{path}.rate_limit", "per_second")]
    where, path = (*where, "rollout"), f"{path}.rollout"
    sites: list[Site] = []
    if "start" in arg:
        sites.append(((*where, "start"), f"{path}.start", "time"))
    for k, step in enumerate(arg["steps"]):
        at = (*where, "steps", k)
        sites.append(((*at, "rate"), f"{path}.steps[{k}].rate", "rate"))
        key = "at" if "at" in step else "after"
        sites.append(((*at, key), f"{path}.steps[{k}].{key}", "time" if key == "at" else "duration"))
    return sites


def mutation_sites(doc: dict[str, Any]) -> list[Site]:
    """Every field of a serialized configuration that a mutation can break."""
    sites: list[Site] = [((key,), key, kind) for key, kind in _TOP.items()]
    for name, strategy in doc["operations"].items():
        path = f"operations[{show(name, 40)}]"  # long names are quoted in part
        sites.append((("operations", name), path, "operation"))
        sites.append((("operations", name, "rate"), f"{path}.rate", "rate"))
        if "lower_bound_per_second" in strategy:
            where = ("operations", name, "lower_bound_per_second")
            sites.append((where, f"{path}.lower_bound_per_second", "per_second"))
    for i, rule in enumerate(doc["rules"]):
        where, path = ("rules", i), f"rules[{i}]"
        sites.append((where, path, "rule"))
        sites.append(((*where, "match"), f"{path}.match", "match"))
        sites.append(((*where, "action"), f"{path}.action", "action"))
        if "name" in rule:
            sites.append(((*where, "name"), f"{path}.name", "text"))
        sites += _match_sites(rule["match"], (*where, "match"), f"{path}.match")
        sites += _action_sites(rule["action"], (*where, "action"), f"{path}.action")
    return sites


@st.composite
def near_valid_documents(draw: st.DrawFn, kind: str) -> tuple[dict[str, Any], str]:
    """A serialized valid configuration with one field of ``kind`` (a key of :data:`BAD`)
    broken, and that field's path."""
    doc = serialize(draw(configs(rich=True)))
    where, path, _ = draw(st.sampled_from([site for site in mutation_sites(doc) if site[2] == kind]))
    bad, suffix = draw(st.sampled_from(BAD[kind]))
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = copy.deepcopy(bad)
    return doc, path + suffix


# -- durations ---------------------------------------------------------------------------

#: The documented units, in seconds (docs/configuration.md, "Values").
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_numbers = st.one_of(
    st.integers(0, 10**6).map(str),
    st.builds("{}.{}".format, st.integers(0, 9999), st.integers(0, 999)),
    st.integers(0, 99).map("{}.".format),
    st.floats(min_value=0.0, max_value=1e6).map(lambda x: repr(x + 0.0)),  # may use an exponent: 1e-05
)
#: A duration's parts: (number as written, unit).
duration_parts = st.lists(st.tuples(_numbers, st.sampled_from(list(UNITS))), min_size=1, max_size=4)
