"""An application with no tracing code of its own: ``opentelemetry-instrument`` builds its
tracer provider, from OpenTelemetry's declarative configuration file, with a dsampler
sampler deciding its roots, or from ``OTEL_TRACES_SAMPLER`` (the README's commands).

    pip install -e . opentelemetry-distro opentelemetry-configuration
    OTEL_CONFIG_FILE=examples/declarative/otel-config.yaml \\
    DSAMPLER_CONFIG=examples/declarative/sampling.yaml \\
      opentelemetry-instrument python examples/declarative/app.py

It starts 400 traces, a root and a child each (one root in four is a health check), lets
the console exporter print the spans that were sampled, then says which sampler decided,
how many traces of each kind it kept, and the ``ot`` tracestate entries they carry.
"""

from __future__ import annotations

from collections import Counter

from opentelemetry import trace

TRACES = 400

tracer = trace.get_tracer("declarative-example")
kept: Counter[str] = Counter()
offered: Counter[str] = Counter()
ot_values: set[str] = set()
for i in range(TRACES):
    name = "GET /healthz" if i % 4 == 0 else "GET /checkout"
    offered[name] += 1
    with tracer.start_as_current_span(name) as root, tracer.start_as_current_span("SELECT orders") as child:
        root_context, child_context = root.get_span_context(), child.get_span_context()
        assert child_context.trace_flags.sampled == root_context.trace_flags.sampled  # it follows
        if root_context.trace_flags.sampled:
            kept[name] += 1
            ot_values.add(root_context.trace_state.get("ot", "-"))

provider = trace.get_tracer_provider()
print("SAMPLER=" + getattr(provider, "sampler", provider).get_description())
for name in sorted(offered):
    print(f"KEPT {name}: {kept[name]} of {offered[name]}")
print("OT=" + ",".join(sorted(ot_values)))
