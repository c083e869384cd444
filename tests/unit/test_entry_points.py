"""OTEL_TRACES_SAMPLER_ARG parsing and the dsampler entry-point factories."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsampler import ConfigError, DSampler
from dsampler._entry_points import (
    DEFAULT_RATE,
    SamplerArg,
    dsampler_sampler,
    parentbased_dsampler_sampler,
    parse_sampler_arg,
    parse_sampler_properties,
)


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        (None, SamplerArg()),
        ("", SamplerArg()),
        ("   ", SamplerArg()),
        ("0.25", SamplerArg(rate=0.25)),
        (" 1 ", SamplerArg(rate=1.0)),
        ("0", SamplerArg(rate=0.0)),
        ("1e-3", SamplerArg(rate=0.001)),
        (0.5, SamplerArg(rate=0.5)),
        ("rate=0.5", SamplerArg(rate=0.5)),
        ("rate = 0.5 , hash = xxh3", SamplerArg(rate=0.5, hash="xxh3")),
        ("hash=fnv1a-mix", SamplerArg(hash="fnv1a-mix")),
        ("rate=0.1,sampler_tags=true", SamplerArg(rate=0.1, sampler_tags=True)),
        ("rate=0.1,,hash=xxh3,", SamplerArg(rate=0.1, hash="xxh3")),
        ("rate=0.1,rate=0.2", SamplerArg(rate=0.2)),
        ("sampler_tags = FALSE", SamplerArg(sampler_tags=False)),
        ("sampler_tags=True,hash=xxh3", SamplerArg(hash="xxh3", sampler_tags=True)),
        ("config=/etc/dsampler/sampling.yaml", SamplerArg(config="/etc/dsampler/sampling.yaml")),
        (" config= a,b.yaml ", SamplerArg(config="a,b.yaml")),
    ],
)
def test_valid_arguments(arg: Any, expected: SamplerArg) -> None:
    """A bare rate, key=value pairs, blanks and None parse to the documented settings; a
    key given twice takes its last value."""
    assert parse_sampler_arg(arg) == expected


@pytest.mark.parametrize(
    ("arg", "field", "message"),
    [
        ("abc", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got 'abc'"),
        ("1.5", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got '1.5'"),
        ("nan", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got 'nan'"),
        ("inf", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got 'inf'"),
        ("0,1", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got '0,1'"),
        ("rate=2", "rate", "expected a number in [0, 1], got '2'"),
        ("hash=md5", "hash", "expected one of fnv1a"),
        ("seed=3", "seed", "unknown key; expected rate, hash, sampler_tags or config"),
        ("sampler_tags=1", "sampler_tags", "expected true or false, got '1'"),
        ("sampler_tags=", "sampler_tags", "expected true or false, got ''"),
        ("sampler_tags=yes,rate=0.1", "sampler_tags", "expected true or false, got 'yes'"),
        ("rate=0.1,config=x.yaml", "config", "expected config=PATH alone"),
        ("config=", "config", "expected config=PATH with a path"),
        ("=0.1", "OTEL_TRACES_SAMPLER_ARG", "expected key=value, got '=0.1'"),
        ("0.1,hash=xxh3", "OTEL_TRACES_SAMPLER_ARG", "expected key=value, got '0.1'"),
        ("x" * 5000, "OTEL_TRACES_SAMPLER_ARG", "expected at most 4096 characters, got 5000"),
        (["0.1"], "OTEL_TRACES_SAMPLER_ARG", "expected a string, got list"),
        (True, "OTEL_TRACES_SAMPLER_ARG", "expected a string, got bool"),
    ],
)
def test_invalid_arguments_name_the_field(arg: Any, field: str, message: str) -> None:
    """Every malformed argument gives a ConfigError naming the field and what was found."""
    with pytest.raises(ConfigError) as info:
        parse_sampler_arg(arg)
    assert info.value.field == field
    assert message in info.value.problem


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({}, SamplerArg()),
        ({"rate": 0.25}, SamplerArg(rate=0.25)),
        (
            {"rate": 1, "hash": "xxh3", "sampler_tags": True},
            SamplerArg(rate=1.0, hash="xxh3", sampler_tags=True),
        ),
        ({"config": " /etc/dsampler/sampling.yaml "}, SamplerArg(config="/etc/dsampler/sampling.yaml")),
    ],
)
def test_valid_properties(properties: dict[str, Any], expected: SamplerArg) -> None:
    """The declarative file's properties: the argument's keys, typed as YAML writes them."""
    assert parse_sampler_properties(properties) == expected


@pytest.mark.parametrize(
    ("properties", "field", "message"),
    [
        ({"rate": "0.25"}, "rate", "expected a number in [0, 1], got str '0.25'"),
        ({"rate": 1.5}, "rate", "expected a number in [0, 1], got 1.5"),
        ({"rate": True}, "rate", "expected a number in [0, 1], got bool True"),
        ({"hash": "md5"}, "hash", "expected one of fnv1a"),
        ({"sampler_tags": "true"}, "sampler_tags", "expected true or false, got str 'true'"),
        ({"ratio": 0.1}, "ratio", "unknown property; expected rate, hash, sampler_tags or config"),
        ({"config": "x.yaml", "rate": 0.1}, "config", "expected config alone"),
        ({"config": "  "}, "config", "expected the path of a configuration file"),
        ({"config": 3}, "config", "expected a string, got int 3"),
        ({"config": "x" * 5000}, "config", "expected at most 4096 characters, got 5000"),
        ({3: 0.1}, "3", "unknown property"),
    ],
)
def test_invalid_properties_name_the_field(properties: dict[Any, Any], field: str, message: str) -> None:
    """Wrong-typed, unknown and oversized properties: a ConfigError naming the field."""
    with pytest.raises(ConfigError) as info:
        parse_sampler_properties(properties)
    assert info.value.field == field
    assert message in info.value.problem


def test_factories_build_the_documented_samplers() -> None:
    """Both names give a DSampler; only ``parentbased_dsampler`` lets children follow."""
    plain = dsampler_sampler("rate=0.2,hash=xxh3")
    assert isinstance(plain, DSampler)
    assert (plain.config.rate, plain.config.hash, plain.config.parent_based) == (0.2, "xxh3", False)
    wrapped = parentbased_dsampler_sampler("0.3")
    assert isinstance(wrapped, DSampler)
    assert (wrapped.config.rate, wrapped.config.parent_based) == (0.3, True)
    assert dsampler_sampler(None).config.rate == DEFAULT_RATE


def test_sampler_tags_argument_tags_sampled_roots_and_default_adds_none() -> None:
    """``sampler_tags=true`` reaches the DSampler config: sampled roots carry the Jaeger
    tags; without it they carry nothing, on both entry points."""
    trace_id = 0x4BF92F3577B34DA6A3CE929D0E0E4736
    for factory in (dsampler_sampler, parentbased_dsampler_sampler):
        tagged = factory("rate=1,sampler_tags=true")
        assert tagged.config.sampler_tags is True
        result = tagged.should_sample(None, trace_id, "op")
        assert dict(result.attributes) == {"sampler.type": "probabilistic", "sampler.param": 1.0}
        plain = factory("rate=1")
        assert plain.config.sampler_tags is False
        assert dict(plain.should_sample(None, trace_id, "op").attributes) == {}


def test_config_argument_loads_and_watches_the_file(tmp_path: Path) -> None:
    """``config=PATH`` builds DSampler.from_file: the file decides all but parent_based
    (the entry point's name decides that), and is watched."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.4\nparent_based: false\nrules: [{match: {span_name: x}, action: drop}]\n")
    sampler = parentbased_dsampler_sampler(f"config={path}")
    assert isinstance(sampler, DSampler)
    assert (sampler.config.rate, sampler.config.parent_based, len(sampler.config.rules)) == (0.4, True, 1)
    assert sampler.watcher is not None
    sampler.close()


@pytest.mark.parametrize("content", [None, "rate: 3\n", "rulez: []\n"])
def test_unusable_config_file_warns_and_uses_the_default(
    tmp_path: Path, content: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    """A missing or invalid file at start never raises into the SDK: default rate, one warning."""
    path = tmp_path / "sampling.yaml"
    if content is not None:
        path.write_text(content)
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = dsampler_sampler(f"config={path}")
    assert isinstance(sampler, DSampler)
    assert sampler.config.rate == DEFAULT_RATE
    (record,) = caplog.records
    assert str(path) in record.getMessage()


@pytest.mark.parametrize("arg", ["1.5", "abc", "rate=0.1,bogus=1", "nan"])
def test_malformed_argument_never_becomes_full_sampling(arg: str, caplog: pytest.LogCaptureFixture) -> None:
    """A bad argument logs one warning naming the problem and uses the safe default rate."""
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = dsampler_sampler(arg)
    assert isinstance(sampler, DSampler)
    assert sampler.config.rate == DEFAULT_RATE
    (record,) = caplog.records
    assert "ignored" in record.getMessage()
    assert f"default rate {DEFAULT_RATE}" in record.getMessage()


@given(st.one_of(st.none(), st.text(max_size=300), st.floats(), st.integers(), st.binary(max_size=20)))
def test_factories_never_raise(arg: Any) -> None:
    """Whatever the environment holds, both factories return a sampler at a rate in [0, 1]."""
    for factory in (dsampler_sampler, parentbased_dsampler_sampler):
        sampler = factory(arg)
        assert isinstance(sampler, DSampler)
        assert 0.0 <= sampler.config.rate <= 1.0
        sampler.close()
