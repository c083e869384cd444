"""The adaptive controller: hold a traces-per-second budget while load and latency move.

``DSampler(adaptive={"target_traces_per_second": 50})`` (or an ``adaptive:`` section in
the configuration file) gives a DSampler whose default rate this controller owns;
``sampler.controller`` is the :class:`AdaptiveController`. The core
(:class:`ControllerCore`) is pure and steppable with batches of counts, which is how
:mod:`dsampler.cli.simulate` runs hours of synthetic traffic in seconds. See docs/adaptive.md.
"""

from dsampler.adaptive._controller import ADAPTIVE, AdaptiveController, running_controller
from dsampler.adaptive._core import Change, ControllerCore
from dsampler.adaptive._processor import AdaptiveSpanProcessor

__all__ = [
    "ADAPTIVE",
    "AdaptiveController",
    "AdaptiveSpanProcessor",
    "Change",
    "ControllerCore",
    "running_controller",
]
