"""Private: the pieces of ``dsampler demo``, the README's first command.

Two synthetic services run side by side in one process, each with a real OpenTelemetry
TracerProvider, because exactly one source may own a sampler's default rate:
``checkout`` follows an in-process ``dsampler serve`` over the Jaeger remote-sampling
protocol, ``search`` holds a traces-per-second budget with the adaptive controller.

``_timeline`` says what happens when (a 10x spike, a latency episode, the hot update of
the strategies file); ``_services`` builds and stops the server and the two services;
``_workload`` drives real spans in batches against the monotonic clock and records one
row a second; ``_table`` shows those rows live; ``_summary`` and ``_plot`` tell what the
run measured, in a paragraph and a PNG. docs/demo.md shows how to read them.
"""

__all__: list[str] = []
