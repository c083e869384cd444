"""What a strategies server serves, from Jaeger's strategies file or dsampler's own
configuration (:func:`load_strategies` tells them apart)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

from dsampler import _fork
from dsampler._validate import check_rate, show
from dsampler.config import SamplingConfig, compose_yaml, with_lines
from dsampler.errors import ConfigError
from dsampler.protocol import (
    PROBABILISTIC,
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
    decode_json,
)
from dsampler.serve._jaeger_file import JAEGER_KEY_TEXT, JaegerReader, looks_like_jaeger

DEFAULT_SAMPLING_PROBABILITY: Final = 0.001  # Jaeger's --sampling.default-sampling-probability
FileFormat: TypeAlias = Literal["auto", "jaeger", "dsampler"]


@dataclass(frozen=True)
class Strategies:
    """What a strategies server answers: a response per listed service, the default
    for every other, and the warnings of the derivation (logged at load)."""

    default: StrategyResponse
    services: Mapping[str, StrategyResponse] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def response_for(self, service: str) -> StrategyResponse:
        return self.services.get(service, self.default)


class Answers:
    """Each service's answer in one encoding, made once per :class:`Strategies` and service
    under a lock; :meth:`cached` never encodes, so an event loop may call it."""

    __slots__ = ("_encode", "_encoded", "_guard")

    def __init__(self, encode: Callable[[StrategyResponse], bytes]) -> None:
        self._encode = encode
        self._guard = _fork.ModuleLock()
        # the strategies encoded, and their answers by service (None: every unlisted one)
        self._encoded: tuple[Strategies | None, dict[str | None, bytes]] = (None, {})

    def cached(self, strategies: Strategies, service: str) -> bytes | None:
        """The answer for ``service`` if it is made already, else None."""
        held, answers = self._encoded
        if held is not strategies:
            return None
        return answers.get(service if service in strategies.services else None)

    def for_service(self, strategies: Strategies, service: str) -> bytes:
        """The answer for ``service``, encoded now if it is the first time."""
        found = self.cached(strategies, service)
        if found is not None:
            return found
        with self._guard.lock:
            found = self.cached(strategies, service)
            if found is None:
                if self._encoded[0] is not strategies:
                    self._encoded = (strategies, {})
                key = service if service in strategies.services else None
                found = self._encoded[1][key] = self._encode(strategies.response_for(service))
            return found


def default_strategies(probability: float = DEFAULT_SAMPLING_PROBABILITY) -> Strategies:
    """What a server without strategies answers: probabilistic ``probability`` for all."""
    return Strategies(
        StrategyResponse.of(ProbabilisticStrategy(check_rate(probability, "default_sampling_probability")))
    )


def jaeger_strategies(
    doc: object,
    *,
    default_probability: float = DEFAULT_SAMPLING_PROBABILITY,
    inherit_rate_limited: bool = True,
) -> Strategies:
    """Strategies from a decoded Jaeger strategies file; ``inherit_rate_limited=False`` is
    Jaeger before #5270.

    Raises:
        ConfigError: a member of the wrong type or out of range; the field is named.
    """
    return Strategies(*JaegerReader(default_probability, inherit_rate_limited).document(doc))


def config_strategies(config: SamplingConfig) -> Strategies:
    """What a dsampler configuration serves to every service (per-operation, rate limiting or
    probabilistic); what the protocol cannot carry is left out, with a warning.
    """
    warnings = [
        f"{section}: {what} is not served (the Jaeger protocol cannot carry it); "
        f"the rate {config.rate:g} is served as a fixed rate"
        for section, what in (("adaptive", "the controller"), ("remote", "the endpoint"))
        if getattr(config, section) is not None
    ]
    if config.rules:
        warnings.append(f"rules: {len(config.rules)} rules are not served (the Jaeger protocol has none)")
    lower = config.default_lower_bound_per_second
    if config.operations or lower > 0:
        odd = [n for n, s in config.operations.items() if s.lower_bound_per_second not in (None, lower)]
        if odd:
            warnings.append(f"operations: {len(odd)} own lower bounds are served as the default, {lower:g}/s")
        if config.traces_per_second is not None:
            warnings.append("traces_per_second: the cap is not served beside per-operation strategies")
        ops = tuple(OperationRate(name, s.rate) for name, s in config.operations.items())
        response = StrategyResponse(
            PROBABILISTIC,
            probabilistic=ProbabilisticStrategy(config.rate),
            per_operation=PerOperationStrategy(config.rate, lower, ops),
        )
    elif config.traces_per_second is not None and config.rate == 1.0:
        limit = config.traces_per_second
        if not limit.is_integer():
            warnings.append(
                f"traces_per_second: {limit:g} is sent as {math.trunc(limit)} (an integer on the wire)"
            )
        response = StrategyResponse.of(RateLimitingStrategy(math.trunc(limit)))
    else:
        if config.traces_per_second is not None:
            warnings.append("traces_per_second: the cap is not served beside a rate below 1")
        response = StrategyResponse.of(ProbabilisticStrategy(config.rate))
    return Strategies(response, {}, tuple(warnings))


def jaeger_document(data: bytes, format: FileFormat = "auto") -> tuple[object] | None:
    """The decoded document of a Jaeger strategies file, in a 1-tuple (a file of ``null`` is
    one); None when ``format`` (or ``auto``'s sniffing) says dsampler's configuration.

    Raises:
        ConfigError: ``format`` is unknown, or a Jaeger file is not valid JSON.
    """
    if format not in ("auto", "jaeger", "dsampler"):
        raise ConfigError("format", f"expected auto, jaeger or dsampler, got {show(format)}")
    if format == "dsampler":
        return None
    try:
        doc = decode_json(data, "strategies", constants=False)
    except ConfigError:
        if format == "jaeger" or JAEGER_KEY_TEXT.search(data):  # not "unknown key" as dsampler's
            raise
        return None
    return (doc,) if format == "jaeger" or looks_like_jaeger(doc) else None


def load_strategies(
    data: bytes,
    name: str,
    *,
    format: FileFormat = "auto",
    default_probability: float = DEFAULT_SAMPLING_PROBABILITY,
) -> Strategies:
    """Strategies from a file's bytes: Jaeger's strategies file or dsampler's configuration;
    a refused field names its line.

    Raises:
        ConfigError: the file is not valid in its format; every problem is named.
    """
    from dsampler.config import parse_config_bytes

    found = jaeger_document(data, format)
    if found is None:
        return config_strategies(parse_config_bytes(data, name))
    try:
        return jaeger_strategies(found[0], default_probability=default_probability)
    except ConfigError as exc:  # the lines from the document composed again, on this path only
        raise with_lines(exc, compose_yaml(data.decode("utf-8"))) from None
