"""One reading of ``OTEL_TRACES_SAMPLER_ARG``'s ``key=value`` pairs for every entry point,
through the SDK's own configurator (``_import_sampler`` reads the variable and calls the
entry point's factory, as ``opentelemetry-instrument`` does): a key given twice takes its
last value, and one WARNING on ``dsampler.otel`` names it."""

from __future__ import annotations

import logging

import pytest
from opentelemetry.sdk._configuration import _import_sampler
from opentelemetry.sdk.trace.sampling import Sampler

DEAD_END = "http://127.0.0.1:9/sampling"  # the discard port: polls fail, decisions go on
#: Under the ``otel`` rule (low 64 bits against the rate's bound): sampled at 0.5, not at 0.125.
BETWEEN = (7 << 64) | int(0.3 * 2**64)
ABOVE = (7 << 64) | int(0.6 * 2**64)


@pytest.mark.parametrize(
    ("name", "arg", "key"),
    [
        ("dsampler", "rate=0.125,hash=otel,rate=0.5", "rate"),
        ("parentbased_dsampler", "hash=otel, rate = 0.125 ,rate=0.5", "rate"),
        (
            "jaeger_remote",
            f"initialSamplingRate=0.125,endpoint={DEAD_END},initialSamplingRate=0.5",
            "initialSamplingRate",
        ),
        (
            "parentbased_jaeger_remote",
            f"endpoint={DEAD_END},initialSamplingRate=0.125,initialSamplingRate=0.5",
            "initialSamplingRate",
        ),
    ],
)
def test_a_key_given_twice_takes_its_last_value_and_is_named(
    name: str, arg: str, key: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The sampler decides at the last rate given (0.5, not 0.125), and says so once."""
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", arg)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "checkout")
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = _import_sampler(name)
    assert isinstance(sampler, Sampler)
    try:
        assert sampler.should_sample(None, BETWEEN, "op").decision.is_sampled()
        assert not sampler.should_sample(None, ABOVE, "op").decision.is_sampled()
        said = [r.getMessage() for r in caplog.records if r.name == "dsampler.otel"]
        assert said == [
            f"dsampler: OTEL_TRACES_SAMPLER_ARG gives {key} twice; the last value, '0.5', is used"
        ]
    finally:
        sampler.close()  # type: ignore[attr-defined]  # every dsampler sampler closes
