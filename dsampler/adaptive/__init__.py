"""The adaptive controller: hold a traces-per-second budget while load and latency move.

``DSampler(adaptive={"target_traces_per_second": 50})`` (or an ``adaptive:`` section in
the configuration file) gives a DSampler whose default rate this controller owns;
``sampler.controller`` is the :class:`AdaptiveController`. The core
(:class:`ControllerCore`) is pure and steppable with batches of counts, which is how
:mod:`dsampler.cli.simulate` runs hours of synthetic traffic in seconds. See docs/adaptive.md.
"""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "AdaptiveController",
    "AdaptiveSettings",
    "AdaptiveSpanProcessor",
    "Change",
    "ControllerCore",
    "HealthPolicy",
    "LatencySketch",
]

if typing.TYPE_CHECKING:
    from dsampler.adaptive._controller import AdaptiveController
    from dsampler.adaptive._core import Change, ControllerCore
    from dsampler.adaptive._processor import AdaptiveSpanProcessor
    from dsampler.adaptive._sketch import LatencySketch
    from dsampler.config._adaptive import AdaptiveSettings, HealthPolicy

__getattr__, __dir__ = _attach(
    __name__,
    {
        "AdaptiveController": "dsampler.adaptive._controller",
        "Change": "dsampler.adaptive._core",
        "ControllerCore": "dsampler.adaptive._core",
        "AdaptiveSpanProcessor": "dsampler.adaptive._processor",
        "LatencySketch": "dsampler.adaptive._sketch",
        "AdaptiveSettings": "dsampler.config._adaptive",
        "HealthPolicy": "dsampler.config._adaptive",
    },
)
