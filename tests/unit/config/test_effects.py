"""What a configuration put in force is said to do: what changed, in the file's words,
and whether it can cut traces when children do not follow their parent."""

from __future__ import annotations

from typing import Any

import pytest

from dsampler.config import parse_config
from dsampler.config._watch import change_text, trace_cuts


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"rate": 0.1}, {"rate": 0.1}, ""),
        ({"rate": 0.1}, {"rate": 0.05}, "rate 0.1 -> 0.05"),
        ({"parent_based": True}, {"parent_based": False}, "parent_based true -> false"),
        ({}, {"traces_per_second": 100}, "traces_per_second null -> 100"),
        (
            {"hash": "fnv1a"},
            {"hash": "xxh3", "rules": [{"match": {"span_name": "x"}, "action": "drop"}]},
            "hash fnv1a -> xxh3, rules",
        ),
        (
            {},
            {"operations": {"GET /": {"rate": 0.5}}, "adaptive": {"target_traces_per_second": 5}},
            "operations, adaptive",
        ),
    ],
)
def test_differences_name_each_changed_field(old: dict[str, Any], new: dict[str, Any], expected: str) -> None:
    assert change_text(parse_config(old), parse_config(new)) == expected


DROP = {"match": {"span_name": "GET /health"}, "action": "drop"}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"parent_based": True, "rules": [DROP], "operations": {"a": {"rate": 0.5}}}, None),
        ({"parent_based": False, "rate": 0.25}, None),  # one rate, one hash: every span alike
        (
            {
                "parent_based": False,
                "rate": 0.25,
                "rules": [{"match": {"span_name": "x"}, "action": {"sample": 0.25}}],
            },
            None,
        ),
        ({"parent_based": False, "operations": {"a": {"rate": 0.001}}}, None),  # the default rate: alike
        ({"parent_based": False, "rules": [DROP]}, "rules"),
        (
            {"parent_based": False, "operations": {"a": {"rate": 0.5}}, "rules": [DROP]},
            "rules and per-operation rates",
        ),
        (
            {"parent_based": False, "traces_per_second": 10, "default_lower_bound_per_second": 1},
            "a lower bound per operation and a traces-per-second cap",
        ),
        ({"parent_based": False, "adaptive": {"target_traces_per_second": 5}}, "an adaptive rate"),
        (
            {"parent_based": False, "remote": {"endpoint": "http://127.0.0.1:5778/sampling"}},
            "a remote endpoint's strategies",
        ),
    ],
)
def test_trace_cuts_names_what_decides_spans_of_one_trace_differently(
    config: dict[str, Any], expected: str | None
) -> None:
    assert trace_cuts(parse_config(config)) == expected
