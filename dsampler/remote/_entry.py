"""Factories behind ``OTEL_TRACES_SAMPLER=jaeger_remote`` and ``parentbased_jaeger_remote``,
and a declarative file's ``jaeger_remote`` properties. A bad entry is left out and named in
one warning; the factories never raise (the SDK would then sample 100%).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from opentelemetry.sdk.trace.sampling import Sampler

from dsampler._validate import (
    check_number,
    check_rate,
    check_seconds,
    check_text,
    parse_float,
    redact_url,
    show,
)
from dsampler.config import DEFAULT_RATE, MAX_ARG_CHARS, key_values, parse_rate
from dsampler.errors import ConfigError
from dsampler.remote._url import DEFAULT_ENDPOINT, sampling_url

_log = logging.getLogger("dsampler.otel")
_GRPC_PORTS: Final = frozenset({14250, 5779})


@dataclass(frozen=True, slots=True)
class RemoteArg:
    """What ``OTEL_TRACES_SAMPLER_ARG`` asks of the ``jaeger_remote`` entry points."""

    endpoint: str = DEFAULT_ENDPOINT
    polling_interval_s: float = 60.0
    initial_rate: float = DEFAULT_RATE


def _endpoint(value: str) -> str:
    return sampling_url(value).geturl()


def _interval(value: str) -> float:
    milliseconds = parse_float(value, "pollingIntervalMs", "a number")
    return check_seconds(milliseconds / 1000.0, "pollingIntervalMs", 0.01, 7 * 86400.0, written=value)


_KEYS: Final[dict[str, tuple[str, Callable[[str], Any]]]] = {
    "endpoint": ("endpoint", _endpoint),
    "pollingIntervalMs": ("polling_interval_s", _interval),
    "initialSamplingRate": ("initial_rate", lambda value: parse_rate(value, "initialSamplingRate")),
}


def parse_remote_arg(arg: object) -> tuple[RemoteArg, list[ConfigError]]:
    """``OTEL_TRACES_SAMPLER_ARG`` -> settings, and the problems of the entries left out."""
    values, problems = key_values(arg, {key: parse for key, (_, parse) in _KEYS.items()})
    return RemoteArg(**{_KEYS[key][0]: value for key, value in values.items()}), problems


def parse_remote_properties(properties: Mapping[str, object]) -> tuple[RemoteArg, list[ConfigError]]:
    """A declarative file's ``jaeger_remote:`` properties (``endpoint``, ``interval`` in ms,
    ``initial_sampler``: a rate or an ``always_on``/``always_off``/``trace_id_ratio_based``
    mapping) -> settings, and the problems of those left out.
    """
    values: dict[str, Any] = {}
    problems: list[ConfigError] = []
    for key, value in properties.items():
        try:
            if key not in _PROPERTIES:
                field = key if isinstance(key, str) else show(key)
                raise ConfigError(field, f"unknown property; expected {', '.join(_PROPERTIES)}")
            field, check = _PROPERTIES[key]
            values[field] = check(value)
        except ConfigError as exc:
            problems.append(exc)
    return RemoteArg(**values), problems


def _interval_ms(value: object) -> float:
    return check_number(value, "interval", 10.0, 7 * 86400 * 1000.0) / 1000.0


def _initial_sampler(value: object) -> float:
    if not isinstance(value, Mapping):
        return check_rate(value, "initial_sampler")
    if len(value) != 1 or next(iter(value)) not in ("trace_id_ratio_based", "always_on", "always_off"):
        expected = "a rate, trace_id_ratio_based, always_on or always_off"
        raise ConfigError("initial_sampler", f"expected {expected}, got {show(value)}")
    ((name, body),) = value.items()
    if name != "trace_id_ratio_based":
        return 1.0 if name == "always_on" else 0.0
    if not isinstance(body, Mapping) or "ratio" not in body:
        raise ConfigError("initial_sampler.trace_id_ratio_based", "expected {ratio: R}")
    return check_rate(body["ratio"], "initial_sampler.trace_id_ratio_based.ratio")


_PROPERTIES: Final[dict[str, tuple[str, Callable[[object], Any]]]] = {
    "endpoint": ("endpoint", lambda value: _endpoint(check_text(value, "endpoint", MAX_ARG_CHARS))),
    "interval": ("polling_interval_s", _interval_ms),
    "initial_sampler": ("initial_rate", _initial_sampler),
}


def warn_ignored(entry: str, settings: RemoteArg, problems: list[ConfigError], given: str) -> None:
    """One warning for every entry of ``given`` left out (``OTEL_TRACES_SAMPLER_ARG
    entries``, ``properties``), with what is used instead."""
    _log.warning(
        "dsampler: %s ignored for %s: %s; using endpoint=%s, pollingIntervalMs=%d, initial rate %s",
        given,
        entry,
        "; ".join(str(p) for p in problems),
        redact_url(settings.endpoint),
        round(settings.polling_interval_s * 1000),
        settings.initial_rate,
    )


def _build(arg: object, entry: str, parent_based: bool) -> Sampler:
    settings, problems = parse_remote_arg(arg)
    if problems:
        warn_ignored(entry, settings, problems, "OTEL_TRACES_SAMPLER_ARG entries")
    return remote_sampler(settings, entry, parent_based)


def remote_sampler(settings: RemoteArg, entry: str, parent_based: bool) -> Sampler:
    """The :class:`JaegerRemoteSampler` ``settings`` ask for, or, if it cannot be built,
    an engine at the default rate (never raises); ``entry`` names it in what is logged."""
    port = urlsplit(settings.endpoint).port
    if port in _GRPC_PORTS:
        _log.warning(
            "dsampler: %s: port %d serves gRPC; dsampler polls over HTTP "
            "(:5778/sampling, :14268/api/sampling)",
            entry,
            port,
        )
    try:
        from dsampler.remote._sampler import JaegerRemoteSampler

        return JaegerRemoteSampler(
            endpoint=settings.endpoint,
            polling_interval_s=settings.polling_interval_s,
            initial_sampler=settings.initial_rate,
            parent_based=parent_based,
        )
    except Exception:  # never let the SDK fall back to 100%
        _log.warning("dsampler: %s could not start; sampling at %s", entry, DEFAULT_RATE, exc_info=True)
        from dsampler.config import SamplingConfig
        from dsampler.engine import Engine

        config = SamplingConfig(rate=DEFAULT_RATE, hash="otel", parent_based=parent_based)
        return Engine(config, resource={})


def jaeger_remote_sampler(arg: str | None = None) -> Sampler:
    """Entry point ``jaeger_remote``: a :class:`JaegerRemoteSampler` that decides every
    span itself (the specification's raw sampler)."""
    return _build(arg, "jaeger_remote", parent_based=False)


def parentbased_jaeger_remote_sampler(arg: str | None = None) -> Sampler:
    """Entry point ``parentbased_jaeger_remote``: children follow their parent, roots are
    decided by the remote strategy (the engine's built-in parent-based path, the same
    decisions as ``ParentBased(root=JaegerRemoteSampler)``)."""
    return _build(arg, "parentbased_jaeger_remote", parent_based=True)
