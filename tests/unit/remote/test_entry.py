"""The jaeger_remote entry points: the spec's argument format, one warning for bad
entries, the documented initial rate, never 100%."""

from __future__ import annotations

import logging

import pytest

from dsampler.remote import JaegerRemoteSampler
from dsampler.remote._entry import (
    RemoteArg,
    jaeger_remote_sampler,
    parentbased_jaeger_remote_sampler,
    parse_remote_arg,
    parse_remote_properties,
)


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        (None, RemoteArg()),
        ("", RemoteArg()),
        (
            "endpoint=http://localhost:14268/api/sampling,pollingIntervalMs=5000,initialSamplingRate=0.25",
            RemoteArg("http://localhost:14268/api/sampling", 5.0, 0.25),
        ),
        (
            " endpoint = http://agent:5778 , pollingIntervalMs = 100 ",
            RemoteArg("http://agent:5778/sampling", 0.1),
        ),
        ("initialSamplingRate=0.5,initialSamplingRate=0.75", RemoteArg(initial_rate=0.75)),
        ("endpoint=http://h:1/s?a=b=c,", RemoteArg("http://h:1/s?a=b=c")),
    ],
)
def test_valid_arguments(arg: str | None, expected: RemoteArg) -> None:
    """Comma-separated key=value, split on the first '=', trimmed; the last of a key wins."""
    assert parse_remote_arg(arg) == (expected, [])


@pytest.mark.parametrize(
    ("arg", "fields", "expected"),
    [
        ("0.25", ["OTEL_TRACES_SAMPLER_ARG"], RemoteArg()),
        ("rate=0.1", ["rate"], RemoteArg()),
        (
            "initialSamplingRate=1.5,pollingIntervalMs=5000",
            ["initialSamplingRate"],
            RemoteArg(polling_interval_s=5.0),
        ),
        ("initialSamplingRate=nan", ["initialSamplingRate"], RemoteArg()),
        ("pollingIntervalMs=0,initialSamplingRate=0.5", ["pollingIntervalMs"], RemoteArg(initial_rate=0.5)),
        ("pollingIntervalMs=soon", ["pollingIntervalMs"], RemoteArg()),
        ("endpoint=localhost:14250", ["endpoint"], RemoteArg()),
        ("=5,endpoint", ["OTEL_TRACES_SAMPLER_ARG", "OTEL_TRACES_SAMPLER_ARG"], RemoteArg()),
        ("x" * 5000, ["OTEL_TRACES_SAMPLER_ARG"], RemoteArg()),
        ("endpoint=http://agent:5778/my sampling", ["endpoint"], RemoteArg()),
        (
            "endpoint=http://agent:5778/s\u00fcd,pollingIntervalMs=5000",
            ["endpoint"],
            RemoteArg(polling_interval_s=5.0),
        ),
    ],
)
def test_bad_entries_are_left_out_and_named(arg: str, fields: list[str], expected: RemoteArg) -> None:
    """Unknown keys, malformed entries and bad values are reported; the others apply."""
    settings, problems = parse_remote_arg(arg)
    assert settings == expected
    assert [p.field for p in problems] == fields


def test_the_factories_build_raw_and_parent_based_samplers(caplog: pytest.LogCaptureFixture) -> None:
    """jaeger_remote decides every span itself; parentbased_jaeger_remote follows parents;
    both from the argument, without a warning."""
    arg = "endpoint=http://127.0.0.1:9/sampling,pollingIntervalMs=60000,initialSamplingRate=0.5"
    with caplog.at_level(logging.WARNING):
        raw = jaeger_remote_sampler(arg)
        based = parentbased_jaeger_remote_sampler(arg)
    try:
        assert isinstance(raw, JaegerRemoteSampler)
        assert isinstance(based, JaegerRemoteSampler)
        assert (raw.config.parent_based, based.config.parent_based) == (False, True)
        assert raw.config.rate == 0.5
        assert raw.endpoint == "http://127.0.0.1:9/sampling"
        assert raw.poller.interval_s == 60.0
        assert not [r for r in caplog.records if r.name == "dsampler.otel"]
    finally:
        raw.close()
        based.close()


def test_a_bad_argument_logs_one_warning_and_keeps_the_initial_rate(caplog: pytest.LogCaptureFixture) -> None:
    """Two bad entries, one warning naming both; the sampler starts at 0.001, not 100%."""
    with caplog.at_level(logging.WARNING, "dsampler"):
        sampler = jaeger_remote_sampler("initialSamplingRate=2,bogus=1,endpoint=http://127.0.0.1:9")
    try:
        warnings = [r for r in caplog.records if r.name == "dsampler.otel"]
        assert len(warnings) == 1
        assert "initialSamplingRate" in warnings[0].getMessage()
        assert "bogus" in warnings[0].getMessage()
        assert isinstance(sampler, JaegerRemoteSampler)
        assert sampler.config.rate == 0.001
    finally:
        sampler.close()  # type: ignore[attr-defined]


def test_a_grpc_port_gets_a_hint(caplog: pytest.LogCaptureFixture) -> None:
    """endpoint=http://collector:14250 (the spec's gRPC example) is polled over HTTP, with a hint."""
    with caplog.at_level(logging.WARNING, "dsampler"):
        sampler = jaeger_remote_sampler("endpoint=http://127.0.0.1:14250")
    sampler.close()  # type: ignore[attr-defined]
    assert "serves gRPC" in caplog.text


def test_a_sampler_that_cannot_be_built_falls_back_to_the_initial_rate(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """If construction fails for any reason the factory still returns a 0.001 sampler."""
    import dsampler.remote._sampler as module

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no threads left")

    monkeypatch.setattr(module, "JaegerRemoteSampler", broken)
    with caplog.at_level(logging.WARNING, "dsampler"):
        sampler = parentbased_jaeger_remote_sampler(None)
    assert sampler.get_description().startswith("DSampler{version=1,rate=0.001,hash=otel,parent_based=True")
    assert "could not start" in caplog.text


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({}, RemoteArg()),
        (
            {"endpoint": "http://agent:5778", "interval": 5000, "initial_sampler": 0.25},
            RemoteArg("http://agent:5778/sampling", 5.0, 0.25),
        ),
        ({"initial_sampler": {"trace_id_ratio_based": {"ratio": 0.5}}}, RemoteArg(initial_rate=0.5)),
        ({"initial_sampler": {"always_off": {}}}, RemoteArg(initial_rate=0.0)),
        ({"initial_sampler": {"always_on": None}}, RemoteArg(initial_rate=1.0)),
        ({"interval": 10}, RemoteArg(polling_interval_s=0.01)),
    ],
)
def test_valid_properties(properties: dict[str, object], expected: RemoteArg) -> None:
    """The declarative file's properties, named as its own jaeger_remote/development's."""
    assert parse_remote_properties(properties) == (expected, [])


@pytest.mark.parametrize(
    ("properties", "fields", "expected"),
    [
        ({"endpoint": "localhost:14250", "interval": 5000}, ["endpoint"], RemoteArg(polling_interval_s=5.0)),
        ({"endpoint": 5778}, ["endpoint"], RemoteArg()),
        ({"interval": 9}, ["interval"], RemoteArg()),
        ({"interval": "5s", "initial_sampler": 0.5}, ["interval"], RemoteArg(initial_rate=0.5)),
        ({"initial_sampler": 1.5}, ["initial_sampler"], RemoteArg()),
        ({"initial_sampler": {"parent_based": {}}}, ["initial_sampler"], RemoteArg()),
        ({"initial_sampler": {"always_on": {}, "always_off": {}}}, ["initial_sampler"], RemoteArg()),
        (
            {"initial_sampler": {"trace_id_ratio_based": {}}},
            ["initial_sampler.trace_id_ratio_based"],
            RemoteArg(),
        ),
        (
            {"initial_sampler": {"trace_id_ratio_based": {"ratio": 2}}},
            ["initial_sampler.trace_id_ratio_based.ratio"],
            RemoteArg(),
        ),
        (
            {"pollingIntervalMs": 5000, "endpoint": "http://a:1"},
            ["pollingIntervalMs"],
            RemoteArg("http://a:1/sampling"),
        ),
    ],
)
def test_bad_properties_are_left_out_and_named(
    properties: dict[str, object], fields: list[str], expected: RemoteArg
) -> None:
    """As with the argument: a bad or unknown property is reported, the others apply."""
    settings, problems = parse_remote_properties(properties)
    assert settings == expected
    assert [p.field for p in problems] == fields
