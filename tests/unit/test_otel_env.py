"""OTEL_TRACES_SAMPLER_ARG parsing and the dsampler entry-point factories."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsampler import ConfigError, ParentBasedSampler, RatioSampler
from dsampler.compat.otel_env import (
    DEFAULT_RATE,
    SamplerArg,
    dsampler_sampler,
    parentbased_dsampler_sampler,
    parse_sampler_arg,
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
    ],
)
def test_valid_arguments(arg: Any, expected: SamplerArg) -> None:
    """A bare rate, key=value pairs, blanks and None parse to the documented settings."""
    assert parse_sampler_arg(arg) == expected


@pytest.mark.parametrize(
    ("arg", "field", "message"),
    [
        ("abc", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got 'abc'"),
        ("1.5", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got 1.5"),
        ("nan", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got 'nan'"),
        ("inf", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got inf"),
        ("0,1", "OTEL_TRACES_SAMPLER_ARG", "expected a number in [0, 1], got '0,1'"),
        ("rate=2", "rate", "expected a number in [0, 1], got 2.0"),
        ("rate=0.1,rate=0.2", "rate", "given twice"),
        ("hash=md5", "hash", "expected one of fnv1a"),
        ("seed=3", "seed", "unknown key; expected rate or hash"),
        ("=0.1", "OTEL_TRACES_SAMPLER_ARG", "expected key=value pairs"),
        ("0.1,hash=xxh3", "OTEL_TRACES_SAMPLER_ARG", "expected key=value pairs, got '0.1'"),
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


def test_factories_build_the_documented_samplers() -> None:
    """``dsampler`` gives a RatioSampler; ``parentbased_dsampler`` wraps one in ParentBasedSampler."""
    plain = dsampler_sampler("rate=0.2,hash=xxh3")
    assert isinstance(plain, RatioSampler)
    assert (plain.rate, plain.hash) == (0.2, "xxh3")
    wrapped = parentbased_dsampler_sampler("0.3")
    assert isinstance(wrapped, ParentBasedSampler)
    assert isinstance(wrapped.root, RatioSampler)
    assert wrapped.root.rate == 0.3
    assert dsampler_sampler(None).get_description() == f"RatioSampler{{rate={DEFAULT_RATE},hash=fnv1a}}"


@pytest.mark.parametrize("arg", ["1.5", "abc", "rate=0.1,bogus=1", "nan"])
def test_malformed_argument_never_becomes_full_sampling(arg: str, caplog: pytest.LogCaptureFixture) -> None:
    """A bad argument logs one warning naming the problem and uses the safe default rate."""
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = dsampler_sampler(arg)
    assert isinstance(sampler, RatioSampler)
    assert sampler.rate == DEFAULT_RATE
    (record,) = caplog.records
    assert "ignored" in record.getMessage()
    assert f"default rate {DEFAULT_RATE}" in record.getMessage()


@given(st.one_of(st.none(), st.text(max_size=300), st.floats(), st.integers(), st.binary(max_size=20)))
def test_factories_never_raise(arg: Any) -> None:
    """Whatever the environment holds, both factories return a sampler at a rate in [0, 1]."""
    for factory in (dsampler_sampler, parentbased_dsampler_sampler):
        sampler = factory(arg)
        root = sampler.root if isinstance(sampler, ParentBasedSampler) else sampler
        assert isinstance(root, RatioSampler)
        assert 0.0 <= root.rate <= 1.0
