"""dsampler's samplers in OpenTelemetry's declarative configuration file (``OTEL_CONFIG_FILE``).

With ``opentelemetry-configuration`` installed and ``OTEL_CONFIG_FILE`` set, the SDK's
configurator builds the tracer provider from that file, and looks a sampler name it does
not know up in the entry-point group ``opentelemetry_sampler``. dsampler registers:

- ``dsampler``: a :class:`DSampler` deciding every span it is asked about (``parent_based:
  false``: under the file's ``parent_based: {root: ...}`` it decides the roots);
- ``dsampler_consistent``: consistent probability sampling, every sampled span carrying
  ``ot=th:...``: ``composite_sampler(composable_parent_threshold(
  composable_traceid_ratio_based(ratio)))``;
- ``jaeger_remote``: a :class:`JaegerRemoteSampler` deciding every span.

opentelemetry-configuration (0.66b1, 0.66b2) calls these factories with no argument: the
properties written under the name (``dsampler: {rate: 0.25}``) are parsed, then dropped.
So, where no property is given, the environment configures them: ``DSAMPLER_CONFIG``, the
path of a dsampler configuration file (watched), for ``dsampler``;
``DSAMPLER_CONSISTENT_RATIO``, a probability, for ``dsampler_consistent``; for
``jaeger_remote`` the specification's defaults, the service name from
``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES``. ``OTEL_TRACES_SAMPLER_ARG`` is not
read: it belongs to ``OTEL_TRACES_SAMPLER``, which this path ignores. Unset: the default
rate, 0.001. For a version that passes them, properties are taken as keyword arguments
or as one mapping, and then the environment is not read.

The factories never raise: an exception from one leaves the process with no tracer
provider at all (under ``opentelemetry-instrument``, no instrumentation either). An
invalid property or variable is logged, naming it: ``dsampler`` and
``dsampler_consistent`` ignore them as a whole, ``jaeger_remote`` leaves that one out, as
their ``OTEL_TRACES_SAMPLER_ARG`` forms do. A sampler that cannot be built becomes an
engine at the default rate, never 100%.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Final

from opentelemetry.sdk.trace.sampling import Sampler

from dsampler._entry_points import SamplerArg, parse_sampler_properties, sampler_from_settings
from dsampler._validate import check_int, check_rate, check_text, parse_float, typed
from dsampler.config._model import DEFAULT_RATE
from dsampler.errors import ConfigError
from dsampler.hashing._schemes import DEFAULT_SCHEME

__all__ = [
    "CONFIG_VARIABLE",
    "RATIO_VARIABLE",
    "dsampler_consistent_plugin",
    "dsampler_plugin",
    "jaeger_remote_plugin",
    "properties_of",
]

CONFIG_VARIABLE: Final = "DSAMPLER_CONFIG"
RATIO_VARIABLE: Final = "DSAMPLER_CONSISTENT_RATIO"
_MAX_PROPERTIES: Final = 64
_MAX_TEXT: Final = 4096
_SOURCE: Final = "OTEL_CONFIG_FILE's {} sampler"
_BY_HAND: Final = (
    "provider.add_span_processor(sampler.controller.span_processor()), sampler being the "
    "DSampler (provider.sampler, or the root of the ParentBased sampler under parent_based:)"
)
_log = logging.getLogger("dsampler.otel")


def properties_of(args: tuple[object, ...], keywords: Mapping[str, object]) -> dict[str, object]:
    """What a factory was called with (nothing, one mapping, keyword arguments, or a
    mapping and keywords that do not clash) -> one dict, or :class:`ConfigError`."""
    if len(args) > 1:
        raise ConfigError("properties", f"expected one mapping, got {len(args)} arguments")
    given: dict[str, object] = {}
    if args and args[0] is not None:
        if not isinstance(args[0], Mapping):
            raise ConfigError("properties", f"expected a mapping, got {typed(args[0])}")
        given.update(args[0])
    for key, value in keywords.items():
        if key in given:
            raise ConfigError(key, "given twice")
        given[key] = value
    if len(given) > _MAX_PROPERTIES:
        raise ConfigError("properties", f"expected at most {_MAX_PROPERTIES}, got {len(given)}")
    for key in given:
        if not isinstance(key, str):
            raise ConfigError("properties", f"expected names, got {typed(key)}")
    return given


def dsampler_plugin(*args: object, **properties: object) -> Sampler:
    """Sampler ``dsampler``: a :class:`DSampler` from its properties (``rate``, ``hash``,
    ``sampler_tags``, or ``config`` alone), else from ``DSAMPLER_CONFIG``, else at the
    default rate; children are decided as roots are (``parent_based: false``)."""
    source, given = _SOURCE.format("dsampler"), None
    try:
        given = properties_of(args, properties)
        settings = parse_sampler_properties(given) if given else _config_from_environment()
    except Exception as exc:  # a ConfigError names the field; anything else, a hostile argument
        instead = f"the default rate {DEFAULT_RATE} with hash {DEFAULT_SCHEME}"
        _ignored(source, CONFIG_VARIABLE if given == {} else "properties", exc, instead)
        settings = SamplerArg()
    return _built(
        source, lambda: sampler_from_settings(settings, source, parent_based=False, by_hand=_BY_HAND)
    )


def dsampler_consistent_plugin(*args: object, **properties: object) -> Sampler:
    """Sampler ``dsampler_consistent``: dsampler's composite sampler of a consistent
    probability, ``ratio`` (and ``precision``, 1 to 14 hex digits of ``th``) from its
    properties, else from ``DSAMPLER_CONSISTENT_RATIO``, else the default rate."""
    from dsampler.consistent._composables import (
        composable_parent_threshold,
        composable_traceid_ratio_based,
    )
    from dsampler.consistent._composite import composite_sampler

    source, given = _SOURCE.format("dsampler_consistent"), None
    try:
        given = properties_of(args, properties)
        ratio, precision = _consistent_properties(given) if given else (_ratio_from_environment(), None)
    except Exception as exc:
        _ignored(source, RATIO_VARIABLE if given == {} else "properties", exc, f"the ratio {DEFAULT_RATE}")
        ratio, precision = DEFAULT_RATE, None

    def build() -> Sampler:
        root = composable_traceid_ratio_based(ratio, precision=precision)
        return composite_sampler(composable_parent_threshold(root))

    return _built(source, build)


def jaeger_remote_plugin(*args: object, **properties: object) -> Sampler:
    """Sampler ``jaeger_remote``: a :class:`JaegerRemoteSampler` deciding every span, from
    its properties (``endpoint``, ``interval`` in milliseconds, ``initial_sampler``),
    else the specification's defaults."""
    from dsampler.remote._entry import parse_remote_properties, remote_sampler, warn_ignored

    entry = _SOURCE.format("jaeger_remote")
    try:
        settings, problems = parse_remote_properties(properties_of(args, properties))
    except Exception as exc:
        settings, problems = parse_remote_properties({})
        problems.append(_as_config_error(exc))
    if problems:
        warn_ignored(entry, settings, problems, "properties")
    return remote_sampler(settings, entry, parent_based=False)


def _config_from_environment() -> SamplerArg:
    path = os.environ.get(CONFIG_VARIABLE, "").strip()
    return SamplerArg(config=check_text(path, CONFIG_VARIABLE, _MAX_TEXT)) if path else SamplerArg()


def _ratio_from_environment() -> float:
    text = os.environ.get(RATIO_VARIABLE, "").strip()
    if not text:
        return DEFAULT_RATE
    text = check_text(text, RATIO_VARIABLE, _MAX_TEXT)
    return check_rate(parse_float(text, RATIO_VARIABLE, "a number in [0, 1]"), RATIO_VARIABLE, written=text)


def _consistent_properties(given: Mapping[str, object]) -> tuple[float, int | None]:
    unknown = [key for key in given if key not in ("ratio", "precision")]
    if unknown:
        raise ConfigError(unknown[0], "unknown property; expected ratio or precision")
    ratio = check_rate(given["ratio"], "ratio") if "ratio" in given else DEFAULT_RATE
    precision = check_int(given["precision"], "precision", 1, 14) if "precision" in given else None
    return ratio, precision


def _as_config_error(exc: Exception) -> ConfigError:
    if isinstance(exc, ConfigError):
        return exc
    return ConfigError("properties", f"unreadable ({type(exc).__name__} raised)")


def _ignored(source: str, what: str, exc: Exception, instead: str) -> None:
    problem = _as_config_error(exc)
    _log.warning("dsampler: %s ignored for %s: %s; sampling at %s", what, source, problem, instead)


def _built(source: str, build: Callable[[], Sampler]) -> Sampler:
    """``build()``, or, if it raises anything at all, an engine at the default rate."""
    try:
        return build()
    except Exception:  # the SDK would be left with no provider at all
        _log.warning("dsampler: %s could not be built; sampling at %s", source, DEFAULT_RATE, exc_info=True)
        from dsampler.config._model import SamplingConfig
        from dsampler.engine._engine import Engine

        return Engine(SamplingConfig(rate=DEFAULT_RATE, parent_based=False), resource={})
