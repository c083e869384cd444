"""The demo's metrics: dsampler's instruments read through the OpenTelemetry metrics
API, as an operator's Prometheus or OTLP exporter would read them, shown after the run.

The demo gives itself a MeterProvider with an in-memory reader (telemetry stays off in
a process that configures none, so this is what turns counting on) and collects once,
when the workload has ended. Beside each service's figures stands the demo's own count
of the spans its provider recorded: the two are counted apart (the sampler's tallies,
a span processor), and they agree when the metrics tell the truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from dsampler.cli.demo._timeline import Service


_KEPT = "RECORD_AND_SAMPLE"
Point = tuple[str, dict[str, Any], float]  # (instrument, attributes, value)


class DemoMetrics:
    """A MeterProvider with an in-memory reader, with dsampler's telemetry enabled on it."""

    def __init__(self) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader

        import dsampler.telemetry

        self._reader: InMemoryMetricReader = InMemoryMetricReader()
        self.provider = MeterProvider(metric_readers=[self._reader])
        dsampler.telemetry.enable(self.provider, audit_interval_s=None)  # audited at the collection

    def points(self) -> list[Point]:
        """(instrument name, attributes, value) of every data point, collected now."""
        data = self._reader.get_metrics_data()
        out: list[Point] = []
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name.startswith("dsampler."):
                        out.extend(
                            (metric.name, dict(p.attributes or {}), float(getattr(p, "value", 0.0)))
                            for p in metric.data.data_points
                        )
        return out

    def report(self, services: Sequence[Reported]) -> str:
        """The figures per service, one instrument a line, collected now."""
        points = self.points()
        columns = [_column(points, s) for s in services]
        rows = [("instrument (OpenTelemetry metrics API)", *(s.spec.name for s in services))]
        for label in columns[0] if columns else ():
            rows.append((label, *(c[label] for c in columns)))
        width = max(len(r[0]) for r in rows)
        lines = ["Metrics, as a MeterProvider's reader collected them at the end:"]
        lines += [f"  {r[0]:<{width}}  " + "  ".join(f"{v:>16}" for v in r[1:]) for r in rows]
        return "\n".join(lines)


class Reported(Protocol):
    """What the report reads of a service (an ``Instrumented`` one)."""

    spec: Service
    sampler_id: str  # its dsampler.sampler attribute

    @property
    def spans(self) -> int:
        """Spans its provider recorded."""
        ...


def _sum(points: Iterable[Point], name: str, **match: str) -> float:
    return sum(v for n, a, v in points if n == name and all(a.get(k) == want for k, want in match.items()))


def _gauge(points: Iterable[Point], name: str, fmt: str) -> str:
    """The gauge's value formatted, "-" where the sampler reports none."""
    found = [v for n, _, v in points if n == name]
    return format(found[0], fmt) if found else "-"


def _column(points: list[Point], service: Reported) -> dict[str, str]:
    mine = [p for p in points if p[1].get("dsampler.sampler") == service.sampler_id]
    fetched = [
        _sum(points, "dsampler.remote.fetches", result=r, service=service.spec.name)  # by service name
        for r in ("applied", "unchanged", "failed")
    ]
    window = _gauge(mine, "dsampler.controller.window", ".3g")
    return {
        "dsampler.decisions, sampled": f"{_sum(mine, 'dsampler.decisions', decision=_KEPT):,.0f}",
        "  spans the provider recorded": f"{service.spans:,}",
        "dsampler.decisions, dropped": f"{_sum(mine, 'dsampler.decisions', decision='DROP'):,.0f}",
        "  of them refused by a cap": f"{_sum(mine, 'dsampler.decisions', strategy='cap'):,.0f}",
        "dsampler.rate.configured": _gauge(mine, "dsampler.rate.configured", ".4g"),
        "dsampler.rate.effective": _gauge(mine, "dsampler.rate.effective", ".4g"),
        "dsampler.config.version": _gauge(mine, "dsampler.config.version", ".0f"),
        "dsampler.remote.fetches (applied/unchanged/failed)": "/".join(f"{v:.0f}" for v in fetched)
        if any(fetched)
        else "-",
        "dsampler.controller.window": window if window == "-" else f"{window} s",
        "dsampler.controller.rate": _gauge(mine, "dsampler.controller.rate", ".4g"),
        "dsampler.faults": f"{_sum(mine, 'dsampler.faults'):,.0f}",
    }
