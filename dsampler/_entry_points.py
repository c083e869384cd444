"""Factories behind ``OTEL_TRACES_SAMPLER=dsampler`` and ``parentbased_dsampler`` (a rate,
``key=value`` pairs, or ``config=PATH``). They never raise, since the SDK would then
sample 100%: an invalid argument is logged once and the sampler runs at
:data:`DEFAULT_RATE`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from opentelemetry.sdk.trace.sampling import Sampler

from dsampler._dsampler import DSampler
from dsampler._instrument import expect
from dsampler._validate import check_bool, check_rate, check_text, show
from dsampler.config import DEFAULT_RATE, MAX_ARG_CHARS, SamplingConfig, key_values, load_document, parse_rate
from dsampler.errors import ConfigError
from dsampler.hashing import DEFAULT_SCHEME, get_scheme

_log = logging.getLogger("dsampler.otel")


@dataclass(frozen=True, slots=True)
class SamplerArg:
    """What ``OTEL_TRACES_SAMPLER_ARG`` asks of the ``dsampler`` entry points."""

    rate: float = DEFAULT_RATE
    hash: str = DEFAULT_SCHEME
    config: str | None = None
    sampler_tags: bool = False


def parse_sampler_arg(arg: object) -> SamplerArg:
    """``OTEL_TRACES_SAMPLER_ARG`` -> settings, or :class:`ConfigError` naming every
    problem found. ``None`` and blank strings give the defaults; a key given twice takes
    its last value."""
    if isinstance(arg, (int, float)) and not isinstance(arg, bool):
        return SamplerArg(rate=check_rate(arg, "OTEL_TRACES_SAMPLER_ARG"))
    if isinstance(arg, str) and len(arg) <= MAX_ARG_CHARS:
        text = arg.strip()
        if text.startswith("config="):  # the whole rest is the path, commas included
            path = text.removeprefix("config=").strip()
            if not path:
                raise ConfigError("config", "expected config=PATH with a path")
            return SamplerArg(config=path)
        if text and "=" not in text:
            return SamplerArg(rate=parse_rate(text, "OTEL_TRACES_SAMPLER_ARG"))
    settings, problems = key_values(arg, _PAIR_PARSERS)
    if problems:
        raise ConfigError.of(problems)
    return SamplerArg(**settings)


def parse_sampler_properties(properties: Mapping[str, object]) -> SamplerArg:
    """The properties under ``dsampler:`` in a declarative configuration file (the keys of
    ``OTEL_TRACES_SAMPLER_ARG``, typed) -> settings, or :class:`ConfigError` naming the
    field."""
    if "config" in properties:
        if len(properties) > 1:
            raise ConfigError("config", "expected config alone: the file holds the rate and hash")
        path = check_text(properties["config"], "config", MAX_ARG_CHARS).strip()
        if not path:
            raise ConfigError("config", "expected the path of a configuration file")
        return SamplerArg(config=path)
    settings: dict[str, Any] = {}
    for key, value in properties.items():
        if key not in _PROPERTY_CHECKS:
            field = key if isinstance(key, str) else show(key)
            raise ConfigError(field, "unknown property; expected rate, hash, sampler_tags or config")
        settings[key] = _PROPERTY_CHECKS[key](value)
    return SamplerArg(**settings)


def _bool_value(value: str) -> bool:
    if value.lower() not in ("true", "false"):
        raise ConfigError("sampler_tags", f"expected true or false, got {show(value)}")
    return value.lower() == "true"


def _config_alone(value: str) -> str:
    raise ConfigError("config", "expected config=PATH alone: the file holds the rate and hash")


def _hash(value: object) -> str:
    return get_scheme(value, "hash").name


_PAIR_PARSERS: Final[dict[str, Callable[[str], object]]] = {
    "rate": lambda value: parse_rate(value, "rate"),
    "hash": _hash,
    "sampler_tags": _bool_value,
    "config": _config_alone,
}


_PROPERTY_CHECKS: Final[dict[str, Callable[[object], object]]] = {
    "rate": check_rate,
    "hash": _hash,
    "sampler_tags": lambda value: check_bool(value, "sampler_tags"),
}


def _sampler_from_arg(arg: object, entry: str, parent_based: bool | None) -> DSampler:
    source = f"OTEL_TRACES_SAMPLER={entry}"
    try:
        settings = parse_sampler_arg(arg)
        if settings.config is not None:
            return sampler_from_settings(settings, source, parent_based)
    except ConfigError as exc:
        _log.warning(
            "dsampler: OTEL_TRACES_SAMPLER_ARG=%.200r ignored for %s: %s; sampling at the "
            "default rate %s with hash %s",
            arg,
            entry,
            exc,
            DEFAULT_RATE,
            DEFAULT_SCHEME,
        )
        settings = SamplerArg()
    return sampler_from_settings(settings, source, parent_based)


def sampler_from_settings(
    settings: SamplerArg, source: str, parent_based: bool | None, *, by_hand: str | None = None
) -> DSampler:
    """The DSampler ``settings`` ask for: from its ``config`` file (watched), else from
    its rate, hash and tags. ``source`` names what asked for it in what is logged.
    ``parent_based`` True or False decides it whatever the file says; None leaves it to
    the file (default true), false for a rate alone (as OpenTelemetry's
    ``traceidratio``). ``by_hand`` tells how to attach the adaptive span processor where
    dsampler cannot."""
    if settings.config is not None:
        return _from_file(settings.config, source, parent_based, by_hand)
    return DSampler(
        SamplingConfig(
            rate=settings.rate,
            hash=settings.hash,
            parent_based=bool(parent_based),
            sampler_tags=settings.sampler_tags,
        )
    )


def _from_file(path: str, source: str, parent_based: bool | None, by_hand: str | None) -> DSampler:
    """The file decides everything (``parent_based`` too, unless ``source`` chose it)."""
    if parent_based is None:
        sampler = DSampler.from_file(path, strict=False)
    else:
        try:
            written = load_document(path).get("parent_based", parent_based)
        except ConfigError:
            written = parent_based  # reported by from_file below
        if written != parent_based:
            _log.warning(
                "dsampler: %s says parent_based: %s, but %s decides: parent_based is %s",
                path,
                written,
                source,
                parent_based,
            )
        sampler = DSampler.from_file(path, strict=False, parent_based=parent_based)
    expect(sampler, source, by_hand)
    return sampler


def dsampler_sampler(arg: str | float | None = None) -> Sampler:
    """Entry point ``dsampler``: a :class:`DSampler` as configured: a rate alone decides
    every span itself; a ``config=`` file decides ``parent_based`` (default true)."""
    return _sampler_from_arg(arg, "dsampler", parent_based=None)


def parentbased_dsampler_sampler(arg: str | float | None = None) -> Sampler:
    """Entry point ``parentbased_dsampler``: a :class:`DSampler` whose children follow
    their parent."""
    return _sampler_from_arg(arg, "parentbased_dsampler", parent_based=True)
