"""The ``opentelemetry_sampler`` entry points of OpenTelemetry's declarative configuration
file (``OTEL_CONFIG_FILE``): ``dsampler``, ``dsampler_consistent`` and ``jaeger_remote``.
The SDK calls them with no argument, so they read their properties from the file again
(else ``DSAMPLER_CONFIG`` or ``DSAMPLER_CONSISTENT_RATIO``). They never raise: an
exception would leave the process with no tracer provider; a problem is logged, naming it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from opentelemetry.sdk.trace.sampling import Sampler

from dsampler._entry_points import SamplerArg, parse_sampler_properties, sampler_from_settings
from dsampler._validate import check_int, check_rate, check_text, parse_float, typed
from dsampler.config import DEFAULT_RATE, MAX_ARG_CHARS
from dsampler.errors import ConfigError
from dsampler.hashing import DEFAULT_SCHEME

CONFIG_VARIABLE: Final = "DSAMPLER_CONFIG"
OTEL_CONFIG_FILE: Final = "OTEL_CONFIG_FILE"
_DELEGATES: Final = (
    "root",
    "remote_parent_sampled",
    "remote_parent_not_sampled",
    "local_parent_sampled",
    "local_parent_not_sampled",
)
RATIO_VARIABLE: Final = "DSAMPLER_CONSISTENT_RATIO"
_MAX_PROPERTIES: Final = 64
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
    default rate."""
    source, given, what = _SOURCE.format("dsampler"), None, _what("dsampler", args, properties)
    try:
        given = _given("dsampler", args, properties, CONFIG_VARIABLE)
        settings = parse_sampler_properties(given) if given else _config_from_environment()
    except Exception as exc:  # anything but a ConfigError: a hostile argument
        instead = f"the default rate {DEFAULT_RATE} with hash {DEFAULT_SCHEME}"
        _ignored(source, CONFIG_VARIABLE if given == {} else what, exc, instead)
        settings = SamplerArg()
    return _built(
        source, lambda: sampler_from_settings(settings, source, parent_based=None, by_hand=_BY_HAND)
    )


def dsampler_consistent_plugin(*args: object, **properties: object) -> Sampler:
    """Sampler ``dsampler_consistent``: dsampler's composite sampler of a consistent
    probability, ``ratio`` (and ``precision``, 1 to 14 hex digits of ``th``) from its
    properties, else from ``DSAMPLER_CONSISTENT_RATIO``, else the default rate."""
    from dsampler.consistent import (
        composable_parent_threshold,
        composable_traceid_ratio_based,
        composite_sampler,
    )

    source, given = _SOURCE.format("dsampler_consistent"), None
    what = _what("dsampler_consistent", args, properties)
    try:
        given = _given("dsampler_consistent", args, properties, RATIO_VARIABLE)
        ratio, precision = _consistent_properties(given) if given else (_ratio_from_environment(), None)
    except Exception as exc:
        _ignored(source, RATIO_VARIABLE if given == {} else what, exc, f"the ratio {DEFAULT_RATE}")
        ratio, precision = DEFAULT_RATE, None

    def build() -> Sampler:
        root = composable_traceid_ratio_based(ratio, precision=precision)
        return composite_sampler(composable_parent_threshold(root))

    return _built(source, build)


def jaeger_remote_plugin(*args: object, **properties: object) -> Sampler:
    """Sampler ``jaeger_remote``: a :class:`JaegerRemoteSampler` deciding every span, from
    its properties (``endpoint``, ``interval`` in milliseconds, ``initial_sampler``),
    else the specification's defaults."""
    from dsampler.remote import parse_remote_properties, remote_sampler, warn_ignored

    entry, what = _SOURCE.format("jaeger_remote"), _what("jaeger_remote", args, properties)
    try:
        settings, problems = parse_remote_properties(_given("jaeger_remote", args, properties))
    except Exception as exc:
        settings, problems = parse_remote_properties({})
        problems.append(_as_config_error(exc))
    if problems:
        warn_ignored(entry, settings, problems, what)
    return remote_sampler(settings, entry, parent_based=False)


def _given(
    name: str, args: tuple[object, ...], keywords: Mapping[str, object], variable: str | None = None
) -> dict[str, object]:
    """The properties of sampler ``name``: those the SDK passed, else those written in
    ``OTEL_CONFIG_FILE`` (then a value of ``variable`` is named at WARNING), or ConfigError."""
    if args or keywords:
        return properties_of(args, keywords)
    written = properties_of((_written_properties(name),), {})
    if written and variable is not None and os.environ.get(variable, "").strip():
        _log.warning("dsampler: %s ignored: %s decide", variable, _what(name, args, keywords))
    return written


def _what(name: str, args: tuple[object, ...], keywords: Mapping[str, object]) -> str:
    """What :func:`_given` calls the properties of sampler ``name`` in what it logs."""
    return "properties" if args or keywords else f"the properties written under {name} in {OTEL_CONFIG_FILE}"


def _written_properties(name: str) -> object:
    """What is written under sampler ``name`` in the tracer provider's sampler of
    ``OTEL_CONFIG_FILE``, wherever ``parent_based:`` puts it (None: nothing); ConfigError
    when the file cannot be read again or ``name`` is written twice with different properties."""
    path = os.environ.get(OTEL_CONFIG_FILE, "").strip()
    if not path:
        return None
    try:
        from opentelemetry.configuration.file._loader import _parse_config_content

        text = Path(path).read_text(encoding="utf-8")
        data = _parse_config_content(text, Path(path).suffix.lower(), path)
    except Exception as exc:  # any version, any file: the SDK read it, so this is rare
        raise ConfigError(OTEL_CONFIG_FILE, f"cannot read {path} again ({type(exc).__name__})") from None
    found: list[object] = []
    nodes = [_at(_at(data, "tracer_provider"), "sampler")]
    while nodes:
        node = nodes.pop()
        if isinstance(node, Mapping):
            if name in node:
                found.append({} if node[name] is None else node[name])  # `dsampler:` is `dsampler: {}`
            nodes.extend(_at(node.get("parent_based"), delegate) for delegate in _DELEGATES)
    distinct = [value for i, value in enumerate(found) if value not in found[:i]]
    if len(distinct) > 1:
        problem = (
            f"written {len(found)} times with different properties, and the SDK does not say "
            "which one it builds: write them once, or the same under each"
        )
        raise ConfigError(name, problem)
    return distinct[0] if distinct else None


def _at(node: object, key: str) -> object:
    return node.get(key) if isinstance(node, Mapping) else None


def _config_from_environment() -> SamplerArg:
    path = os.environ.get(CONFIG_VARIABLE, "").strip()
    return SamplerArg(config=check_text(path, CONFIG_VARIABLE, MAX_ARG_CHARS)) if path else SamplerArg()


def _ratio_from_environment() -> float:
    text = os.environ.get(RATIO_VARIABLE, "").strip()
    if not text:
        return DEFAULT_RATE
    text = check_text(text, RATIO_VARIABLE, MAX_ARG_CHARS)
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
        from dsampler.config import SamplingConfig
        from dsampler.engine import Engine

        return Engine(SamplingConfig(rate=DEFAULT_RATE, parent_based=False), resource={})
