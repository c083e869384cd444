"""Private: the timing harness and the cases behind ``dsampler bench``.

It ships with the package (users run ``dsampler bench`` after ``pip install dsampler``),
so it depends on nothing from ``benchmarks/`` and on no test tool: ``_harness`` times
interleaved rounds, ``_cases``, ``_spans`` and ``_jaeger`` build what is timed (each
case checks the decision it times once before the rounds), ``_report`` turns medians
into ratios, a table and JSON, ``_plot`` draws the PNG, ``_progress`` keeps the user
informed on stderr.
"""

__all__: list[str] = []
