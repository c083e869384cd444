"""The operations section: each distinct entry checked once, every problem named."""

from __future__ import annotations

import pytest

from dsampler import ConfigError
from dsampler.config._model import OperationStrategy, SamplingConfig
from dsampler.config._parse import parse_config, parse_fields
from dsampler.config._remote import RemoteSettings, dump_remote, parse_remote


def test_equal_entries_share_one_strategy_of_the_checked_value() -> None:
    """Entries of the same types and values get one strategy object; 1 and 1.0 both
    read as the rate 1.0, -0.0 as 0.0, a bound of null as no bound."""
    ops = parse_config(
        {
            "max_operations": 10,
            "operations": {
                "a": 0.5,
                "b": 0.5,
                "c": 1,
                "d": 1.0,
                "e": -0.0,
                "f": {"rate": 0.5, "lower_bound_per_second": 2},
                "g": {"rate": 0.5, "lower_bound_per_second": 2},
                "h": {"rate": 0.5, "lower_bound_per_second": None},
                "i": {"rate": 0.5},
            },
        }
    ).operations
    assert ops["a"] is ops["b"]
    assert ops["f"] is ops["g"]
    assert dict(ops) == {
        "a": OperationStrategy(0.5),
        "b": OperationStrategy(0.5),
        "c": OperationStrategy(1.0),
        "d": OperationStrategy(1.0),
        "e": OperationStrategy(0.0),
        "f": OperationStrategy(0.5, 2.0),
        "g": OperationStrategy(0.5, 2.0),
        "h": OperationStrategy(0.5),
        "i": OperationStrategy(0.5),
    }
    assert [type(ops[k].rate) for k in "ce"] == [float, float]
    assert repr(ops["e"].rate) == "0.0"


def test_an_entry_equal_to_a_good_one_but_of_another_type_is_still_checked() -> None:
    """True equals 1, and 1 was fine: True is refused all the same; so is NaN after a
    good rate, and every problem is named at once, in the file's order."""
    with pytest.raises(ConfigError) as info:
        parse_config(
            {
                "operations": {
                    "one": 1,
                    "yes": True,
                    "nan": float("nan"),
                    "ok": {"rate": 1, "lower_bound_per_second": 1},
                    "bool bound": {"rate": 1, "lower_bound_per_second": True},
                    "extra": {"rate": 1, "x": 1},
                }
            }
        )
    assert [(e.field, e.problem) for e in info.value.errors] == [
        ("operations['yes']", "expected a mapping, got bool True"),
        ("operations['nan']", "expected a number in [0, 1], got NaN"),
        (
            "operations['bool bound'].lower_bound_per_second",
            "expected a number of traces per second, got bool True",
        ),
        ("operations['extra'].x", "unknown key; expected one of rate, lower_bound_per_second"),
    ]


def test_a_name_too_long_is_refused_by_the_section() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"operations": {"ok": 0.5, "x" * 1025: 0.5}})
    assert (info.value.field, info.value.problem) == (
        "operations",
        "expected at most 1024 characters, got 1025",
    )


def test_the_model_takes_the_parsed_operations_as_they_are() -> None:
    """The parser's operations are the model's own object: not copied, not checked again."""
    fields = parse_fields({"operations": {"a": 0.5}})
    assert SamplingConfig().evolve(**fields).operations is fields["operations"]


def test_a_remote_section_names_every_bad_duration_at_once() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"remote": {"polling_interval": "0s", "request_timeout": "1d"}})
    assert [e.field for e in info.value.errors] == ["remote.polling_interval", "remote.request_timeout"]


def test_a_remote_section_is_written_without_an_unset_service_name_and_read_back() -> None:
    settings = RemoteSettings(endpoint="http://127.0.0.1:9/sampling", polling_interval_s=5.0)
    written = dump_remote(settings)
    assert written == {
        "endpoint": "http://127.0.0.1:9/sampling",
        "polling_interval": "5.0s",
        "request_timeout": "10.0s",
    }
    assert parse_remote(written) == settings
    named = RemoteSettings(service_name="checkout")
    assert dump_remote(named)["service_name"] == "checkout"  # type: ignore[index]
    assert parse_remote(dump_remote(named)) == named
