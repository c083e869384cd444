"""The adaptive controller's span processor on the tracer provider the SDK's configurator
built (``opentelemetry_pre_instrument``): the entry points remember the DSamplers they
make (:func:`expect`), and :func:`attach_span_processors` adds the processor to the
provider whose sampler is one. Never raises: it would stop auto-instrumentation.
"""

from __future__ import annotations

import logging
import sys
import weakref
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from dsampler._dsampler import DSampler


_log = logging.getLogger("dsampler.otel")
_AUTO: Final = "opentelemetry.instrumentation.auto_instrumentation"
_BY_HAND: Final = "provider.add_span_processor(provider.sampler.controller.span_processor())"
_expected: list[tuple[weakref.ref[DSampler], str, str]] = []


class ControllerFeed:
    """What the span processor feeds: the DSampler's adaptive controller of the moment."""

    __slots__ = ("_sampler",)

    def __init__(self, sampler: DSampler) -> None:
        self._sampler = sampler

    def observe(self, duration_s: float, error: bool = False) -> None:
        controller = self._sampler.controller
        if controller is not None:
            controller.observe(duration_s, error)


def expect(sampler: DSampler, source: str, by_hand: str | None = None) -> None:
    """``sampler`` was made for the SDK's configurator by ``source``: its controller's
    span processor goes on the provider at the pre-instrument step, or, outside
    auto-instrumentation, the user is told now how to attach it (``by_hand``)."""
    by_hand = _BY_HAND if by_hand is None else by_hand
    if _AUTO in sys.modules:
        _expected.append((weakref.ref(sampler), source, by_hand))
    elif sampler.controller is not None:
        _cannot(source, "the SDK was configured outside opentelemetry-instrument", by_hand)


def attach_span_processors() -> None:
    """Entry point ``opentelemetry_pre_instrument``: attach what the samplers the entry
    points made need to the global tracer provider (never raises)."""
    try:
        if _expected:
            from opentelemetry import trace

            attach(trace.get_tracer_provider())
    except Exception:  # auto-instrumentation stops at an exception here: never one
        _log.warning("dsampler: attaching the adaptive span processor failed", exc_info=True)


def attach(provider: object) -> int:
    """Add a processor feeding each expected sampler's controller to ``provider`` when it
    decides with that sampler; report the others that have a controller. Returns how
    many were attached."""
    from opentelemetry.sdk.trace import TracerProvider

    from dsampler.adaptive import AdaptiveSpanProcessor

    expected = [(ref(), source, by_hand) for ref, source, by_hand in _expected]
    _expected.clear()
    deciding = _deciding(provider)
    attached = 0
    for sampler, source, by_hand in expected:
        if sampler is None:
            continue
        if any(sampler is s for s in deciding) and isinstance(provider, TracerProvider):
            provider.add_span_processor(AdaptiveSpanProcessor(ControllerFeed(sampler)))
            attached += 1
            _log.debug("dsampler: %s: the adaptive span processor is on the tracer provider", source)
        elif sampler.controller is not None:
            why = f"the global tracer provider ({type(provider).__name__}) does not decide with it"
            _cannot(source, why, by_hand)
    return attached


def _deciding(provider: object) -> list[object]:
    """The samplers that decide root spans for ``provider``: its own, and its root when
    that is OpenTelemetry's ``ParentBased``."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ParentBased

    if not isinstance(provider, TracerProvider):
        return []
    sampler = provider.sampler
    if isinstance(sampler, ParentBased):
        # ParentBased keeps its root as ``_root`` (every SDK 1.x) and offers no public accessor.
        return [sampler, getattr(sampler, "_root", None)]
    return [sampler]


def _cannot(source: str, why: str, by_hand: str) -> None:
    _log.warning(
        "dsampler: %s: %s, so dsampler cannot attach the adaptive controller's "
        "span processor: p99_target and the health policy see no span; once the provider is set, "
        "attach it yourself: %s, with provider = opentelemetry.trace.get_tracer_provider()",
        source,
        why,
        by_hand,
    )
