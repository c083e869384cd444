"""The adaptive span processor on the provider the SDK's configurator built: fed to the
DSampler's controller of the moment, attached only to a provider deciding with a sampler
an entry point made, and a warning, once, for one it cannot reach."""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import ParentBased

from dsampler import DSampler, ManualClock
from dsampler._entry_points import parentbased_dsampler_sampler
from dsampler._instrument import ControllerFeed, attach
from dsampler.adaptive._processor import AdaptiveSpanProcessor

ADAPTIVE = "adaptive:\n  target_traces_per_second: 100\n  p99_target: 10ms\n"


def roots(provider: TracerProvider, n: int, duration_ms: int = 30) -> None:
    """``n`` root spans of ``duration_ms`` each, by their timestamps (no sleeping)."""
    tracer = provider.get_tracer("test")
    for i in range(n):
        span = tracer.start_span("root", start_time=i * 10**9)
        span.end(end_time=i * 10**9 + duration_ms * 10**6)


def observed(sampler: DSampler) -> int:
    controller = sampler.controller
    assert controller is not None
    controller.tick()
    return int(controller.core.observed)


@pytest.fixture
def auto_instrumented(monkeypatch: pytest.MonkeyPatch) -> None:
    """As under opentelemetry-instrument: its auto-instrumentation package is loaded."""
    name = "opentelemetry.instrumentation.auto_instrumentation"
    monkeypatch.setitem(sys.modules, name, sys.modules.get(name) or types.ModuleType(name))


@pytest.fixture
def make(tmp_path: Path, auto_instrumented: None) -> Iterator[Callable[[str], DSampler]]:
    """What the ``parentbased_dsampler`` entry point makes of a file with ``text``."""
    samplers: list[DSampler] = []

    def made(text: str) -> DSampler:
        path = tmp_path / f"sampling{len(samplers)}.yaml"
        path.write_text(text)
        sampler = parentbased_dsampler_sampler(f"config={path}")
        assert isinstance(sampler, DSampler)
        samplers.append(sampler)
        return sampler

    yield made
    for sampler in samplers:
        sampler.close()


def test_the_feed_follows_the_controller_the_sampler_has_now() -> None:
    """Through a real provider: the roots reach the controller; with the adaptive:
    section removed they go nowhere (no error); a new section's new controller gets them."""
    sampler = DSampler(adaptive={"target_traces_per_second": 100}, clock=ManualClock())
    provider = TracerProvider(sampler=sampler)
    provider.add_span_processor(AdaptiveSpanProcessor(ControllerFeed(sampler)))
    roots(provider, 5)
    assert observed(sampler) == 5
    sampler.update(adaptive=None)
    assert sampler.controller is None
    roots(provider, 5)
    sampler.update(adaptive={"target_traces_per_second": 100})
    roots(provider, 3)
    assert observed(sampler) == 3
    sampler.close()


def test_attached_to_the_provider_deciding_with_the_sampler_the_entry_point_made(
    make: Callable[[str], DSampler], caplog: pytest.LogCaptureFixture
) -> None:
    """The provider built with the entry point's sampler gets the processor, once (a
    second pre-instrument step attaches nothing more); its roots reach the controller."""
    sampler = make(ADAPTIVE)
    provider = TracerProvider(sampler=sampler)
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        assert attach(provider) == 1
        assert attach(provider) == 0
    assert caplog.records == []
    roots(provider, 4)
    assert observed(sampler) == 4


def test_attached_when_the_sampler_is_the_root_of_a_parent_based(
    make: Callable[[str], DSampler], caplog: pytest.LogCaptureFixture
) -> None:
    """The declarative file's ``parent_based: {root: {dsampler: {}}}`` builds
    OpenTelemetry's ParentBased around the DSampler: its roots reach the controller."""
    sampler = make(ADAPTIVE)
    provider = TracerProvider(sampler=ParentBased(root=sampler))
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        assert attach(provider) == 1
    assert caplog.records == []
    roots(provider, 4)
    assert observed(sampler) == 4


def test_a_parent_based_of_another_root_is_not_the_samplers(
    make: Callable[[str], DSampler], caplog: pytest.LogCaptureFixture
) -> None:
    """A ParentBased whose root is some other sampler: reported, as any other provider."""
    make(ADAPTIVE)
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        assert attach(TracerProvider(sampler=ParentBased(root=DSampler(rate=0.5)))) == 0
    (record,) = caplog.records
    assert "does not decide with it" in record.getMessage()


def test_a_provider_deciding_otherwise_is_reported_once(
    make: Callable[[str], DSampler], caplog: pytest.LogCaptureFixture
) -> None:
    """A provider whose sampler is not the one the entry point made (a distro wrapped it,
    or no provider was set): one WARNING saying what to do, for the sampler with an
    adaptive: section only; a file without one is not worth a warning."""
    make(ADAPTIVE)
    make("rate: 0.5\n")
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        assert attach(TracerProvider()) == 0
        assert attach(TracerProvider()) == 0
    (record,) = caplog.records
    message = record.getMessage()
    assert record.name == "dsampler.otel"
    assert "OTEL_TRACES_SAMPLER=parentbased_dsampler" in message
    assert "the global tracer provider (TracerProvider) does not decide with it" in message
    assert "provider.add_span_processor(provider.sampler.controller.span_processor())" in message


def test_a_dsampler_built_in_code_is_left_to_its_user(
    make: Callable[[str], DSampler], caplog: pytest.LogCaptureFixture
) -> None:
    """Built in code, its provider is the user's: nothing is attached, nothing logged."""
    sampler = DSampler(adaptive={"target_traces_per_second": 100}, clock=ManualClock())
    provider = TracerProvider(sampler=sampler)
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        assert attach(provider) == 0
    roots(provider, 4)
    assert observed(sampler) == 0
    assert caplog.records == []
    sampler.close()


def test_outside_auto_instrumentation_the_entry_point_says_so_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No auto-instrumentation loaded: no pre-instrument step will come, so the entry
    point warns as it makes the sampler (adaptive: section only), and nothing waits."""
    monkeypatch.delitem(sys.modules, "opentelemetry.instrumentation.auto_instrumentation", raising=False)
    adaptive, plain = tmp_path / "adaptive.yaml", tmp_path / "plain.yaml"
    adaptive.write_text(ADAPTIVE)
    plain.write_text("rate: 0.5\n")
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        samplers = [parentbased_dsampler_sampler(f"config={p}") for p in (adaptive, plain)]
        assert attach(TracerProvider(sampler=samplers[0])) == 0  # nothing was left waiting
    (record,) = caplog.records
    assert "configured outside opentelemetry-instrument" in record.getMessage()
    for sampler in samplers:
        assert isinstance(sampler, DSampler)
        sampler.close()
