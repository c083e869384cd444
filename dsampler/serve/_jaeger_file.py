"""Jaeger's strategies file (``default_strategy``, ``service_strategies``) -> the response
for each service, read as Go's ``encoding/json`` reads it and derived as Jaeger's file
provider derives it (docs/remote-sampling.md). Stricter than Jaeger on purpose: a rate or
limit every client would refuse refuses the file.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from dsampler._validate import check_per_second, check_rate, check_text, show, typed
from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
)

JAEGER_KEYS: Final = ("default_strategy", "service_strategies")
#: The keys as text, for a file that is not even JSON (its error is Jaeger's, then).
JAEGER_KEY_TEXT: Final = re.compile(rb"(?i)[\"']?(?:default_strategy|service_strategies)[\"']?\s*:")


class JaegerReader:
    """Go ``encoding/json`` into Jaeger's structs, then ``parseStrategies``: :meth:`document`
    derives a decoded file into (the default, each service's, the warnings); ``probability``
    is the default probability."""

    def __init__(self, probability: float, inherit_rate_limited: bool) -> None:
        self.p = check_rate(probability, "default_sampling_probability")
        self.inherit_rate_limited = inherit_rate_limited
        self.warnings: list[str] = []

    def fields(self, value: object, path: str, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ConfigError(path, f"expected a JSON object, got {typed(value)}")
        found = {}
        for key, item in value.items():
            name = key.lower()  # Go matches field names case-insensitively
            if name in known and item is not None:
                found[name] = item
        return found

    def text(self, data: Mapping[str, Any], key: str, path: str) -> str:
        return check_text(data.get(key, ""), f"{path}.{key}")

    def param(self, data: Mapping[str, Any], path: str) -> float:
        value = data.get("param", 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError(f"{path}.param", f"expected a number, got {typed(value)}")
        number: float = value  # as written: a refusal shows 2, not the 2.0 it converts to
        return number

    def strategy(self, data: Mapping[str, Any], path: str) -> StrategyResponse:
        kind, param = self.text(data, "type", path), self.param(data, path)
        if kind == "probabilistic":
            return StrategyResponse.of(ProbabilisticStrategy(check_rate(param, f"{path}.param")))
        if kind == "ratelimiting":
            limit = check_per_second(param, f"{path}.param")
            if not limit.is_integer():
                self.warnings.append(
                    f"{path}.param: {param:g} traces per second is sent as {math.trunc(limit)} "
                    "(an integer on the wire)" + ("; it never samples" if limit < 1 else "")
                )
            return StrategyResponse.of(RateLimitingStrategy(math.trunc(limit)))
        self.warnings.append(
            f"{path}.type: expected probabilistic or ratelimiting, got {show(kind)}; "
            f"sampling at the default probability {self.p:g}"
        )
        return StrategyResponse.of(ProbabilisticStrategy(self.p))

    def service(self, value: object, path: str) -> tuple[str, StrategyResponse]:
        data = self.fields(value, path, ("service", "type", "param", "operation_strategies"))
        name = self.text(data, "service", path)
        response = self.strategy(data, path)
        entries = data.get("operation_strategies", [])
        if not isinstance(entries, list):
            raise ConfigError(f"{path}.operation_strategies", f"expected a list, got {typed(entries)}")
        if not entries:
            return name, response
        ops = []
        for i, entry in enumerate(entries):
            op_path = f"{path}.operation_strategies[{i}]"
            op = self.fields(entry, op_path, ("operation", "type", "param"))
            operation, decided = self.text(op, "operation", op_path), self.strategy(op, op_path)
            if decided.probabilistic is None:
                self.warnings.append(
                    f"{op_path}: operation strategies are probabilistic only; {show(operation)} dropped"
                )
                continue
            ops.append(OperationRate(operation, decided.probabilistic.rate))
        own = response.probabilistic.rate if response.probabilistic is not None else self.p
        return name, dataclasses.replace(response, per_operation=PerOperationStrategy(own, 0.0, tuple(ops)))

    def document(self, doc: object) -> tuple[StrategyResponse, dict[str, StrategyResponse], tuple[str, ...]]:
        if doc is None:  # a file of `null`: no strategies, as Jaeger reads it
            self.warnings.append(f"no strategies in the file; every service gets probabilistic {self.p:g}")
            return StrategyResponse.of(ProbabilisticStrategy(self.p)), {}, tuple(self.warnings)
        data = self.fields(doc, "strategies", JAEGER_KEYS)
        default = StrategyResponse.of(ProbabilisticStrategy(self.p))
        if "default_strategy" in data:
            default = self.service(data["default_strategy"], "default_strategy")[1]
        listed = data.get("service_strategies", [])
        if not isinstance(listed, list):
            raise ConfigError("service_strategies", f"expected a list, got {typed(listed)}")
        services: dict[str, StrategyResponse] = {}
        for i, entry in enumerate(listed):
            name, response = self.service(entry, f"service_strategies[{i}]")
            if name in services:
                self.warnings.append(
                    f"service_strategies[{i}]: service {show(name)} listed again; this entry wins"
                )
            services[name] = self.inherit(response, default)
        return default, services, tuple(self.warnings)

    def inherit(self, response: StrategyResponse, default: StrategyResponse) -> StrategyResponse:
        defaults = default.per_operation
        own = response.per_operation
        if defaults is None:
            return response
        if own is None:
            if response.probabilistic is not None:
                defaults = dataclasses.replace(defaults, default_rate=response.probabilistic.rate)
            elif not self.inherit_rate_limited:  # Jaeger before #5270 (v1.57-v1.67 opt-out)
                return response
            return dataclasses.replace(response, per_operation=defaults)
        names = {op.operation for op in own.operations}
        merged = own.operations + tuple(op for op in defaults.operations if op.operation not in names)
        return dataclasses.replace(response, per_operation=dataclasses.replace(own, operations=merged))


def looks_like_jaeger(doc: object) -> bool:
    """Whether a decoded file is to be read as Jaeger's: it has one of its two keys, is
    empty, or is no object at all."""
    if not isinstance(doc, dict):
        return True  # null, or a document of the wrong type: Jaeger's error names it
    return not doc or any(str(key).lower() in JAEGER_KEYS for key in doc)
