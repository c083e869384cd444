"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

MAX_ID = (1 << 128) - 1

EDGE_IDS = [0, 1, 0xFF, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64, 1 << 127, MAX_ID]

#: Any 128-bit trace ID, with the edges and 64-bit Jaeger IDs well represented.
trace_ids = st.one_of(
    st.sampled_from(EDGE_IDS),
    st.integers(min_value=0, max_value=(1 << 64) - 1),
    st.integers(min_value=0, max_value=MAX_ID),
)

#: Any rate a sampler accepts, with the boundary rates well represented.
rates = st.one_of(
    st.sampled_from([0.0, 1.0, 0.5, 0.1, 0.001, 2.0**-64, 2.0**-53, 1.0 - 2.0**-53, 5e-324]),
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
)

RULE_NAMES = [
    "fnv1a", "fnv1a-mix", "xxh3", "otel", "jaeger", "jaeger-go", "consistent", "otel-java", "otel-js",
]  # fmt: skip
rules = st.sampled_from(RULE_NAMES)
