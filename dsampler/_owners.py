"""The sources that own fields of every configuration a DSampler publishes.

Exactly one source owns the default rate. By default it is the configuration itself;
an ``adaptive:`` section hands it to the adaptive controller, a ``remote:`` section (or
a :class:`~dsampler.JaegerRemoteSampler` around the DSampler) to a Jaeger endpoint,
which also owns the cap, the default lower bound and the operations. Whatever publishes
a configuration (a call, a file reload, the owner itself), the owner's fields are
written into it here, under the writers' lock, before it is compiled; the owners are
created, reconfigured or stopped by the configuration's own sections. Both packages are
imported only when a configuration asks for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsampler.clock import Clock
from dsampler.config._model import SamplingConfig
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from dsampler._dsampler import DSampler
    from dsampler.adaptive._controller import AdaptiveController
    from dsampler.remote._follow import RemoteFollower

__all__ = ["Owners"]


class Owners:
    """The adaptive controller and the remote follower of one DSampler (either, or none).

    ``external`` names a source outside the configuration that owns the default
    strategy (``"remote"`` for the DSampler inside a JaegerRemoteSampler).
    """

    __slots__ = ("clock", "controller", "external", "remote")

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.controller: AdaptiveController | None = None
        self.remote: RemoteFollower | None = None
        self.external: str | None = None

    @property
    def rate_owner(self) -> str | None:
        """``adaptive``, ``remote`` or None (the configuration's own rate)."""
        if self.controller is not None:
            return "adaptive"
        return "remote" if self.remote is not None or self.external == "remote" else None

    def apply(self, sampler: DSampler, config: SamplingConfig, *, started: bool) -> SamplingConfig:
        """``config`` with its owners' fields written in (owners set up as it asks)."""
        if config.adaptive is not None and self.external is not None:
            raise ConfigError(
                "adaptive",
                f"this sampler's default rate follows a {self.external} endpoint: adaptive and "
                f"{self.external} both own the default rate; configure one of them, not both",
            )
        if config.adaptive is not None or self.controller is not None:
            config = self._follow_controller(sampler, config, started=started)
        if config.remote is not None or self.remote is not None:
            from dsampler.remote._follow import follow

            self.remote = follow(
                sampler, self.remote, config.remote, sampler._runtime.resource, started=started
            )
            if self.remote is not None:
                config = self.remote.overrides(config)
        return config

    def _follow_controller(
        self, sampler: DSampler, config: SamplingConfig, *, started: bool
    ) -> SamplingConfig:
        from dsampler.adaptive._controller import follow

        controller = self.controller = follow(sampler, self.controller, config.adaptive, self.clock)
        sampler._runtime.meter = None if controller is None else controller.meter
        if controller is None:
            return config
        if started:
            controller.start()
        return config if config.rate == controller.rate else config.evolve(rate=controller.rate)

    def start(self) -> None:
        """Start the owners' threads once the DSampler can take their publishes."""
        if self.controller is not None:
            self.controller.start()
        if self.remote is not None:
            self.remote.start()

    def close(self) -> None:
        """Stop the owners' threads (idempotent); the last rate stays in force."""
        if self.controller is not None:
            self.controller.stop()
        if self.remote is not None:
            self.remote.close()
