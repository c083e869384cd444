"""The owners a DSampler's configuration asks for, and how a new base changes them.

Exactly one source owns the default rate. By default it is the configuration itself;
an ``adaptive:`` section hands it to an :class:`~dsampler.AdaptiveController`, a
``remote:`` section to a :class:`~dsampler.remote.RemoteFollower` polling a Jaeger
endpoint (which also owns the cap, the default lower bound and the operations). Each
owner writes its fields as an overlay of the DSampler's engine and is never called
back for them.

:meth:`Owners.plan` reads a new base and says what changes: the overlays to hand over
in the very version that publishes the base (so a new controller's rate is in force
with the section that asks for it), and, once that publish succeeded, which owners to
start and which to stop (:meth:`Plan.commit`); if it failed, :meth:`Plan.abort` undoes
the plan and the owners in force stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsampler.adaptive._controller import ADAPTIVE, AdaptiveController
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config._adaptive import AdaptiveSettings
from dsampler.config._model import SamplingConfig
from dsampler.config._overlay import Overlay
from dsampler.config._remote import RemoteSettings
from dsampler.remote._follow import REMOTE, RemoteFollower

__all__ = ["Owners", "Plan"]


class Plan:
    """What one new base changes among the owners (see the module docstring)."""

    def __init__(self, owners: Owners, base: SamplingConfig) -> None:
        self.owners = owners
        self.base = base
        self.holders: dict[str, Overlay | None] = {}
        self.controller = owners.controller
        self.follower = owners.follower
        self.retired: list[AdaptiveController | RemoteFollower] = []
        self.undo: tuple[AdaptiveController, AdaptiveSettings] | None = None

    def commit(self) -> None:
        """The base is published: bind and start the new owners, stop the replaced ones
        (without waiting for their threads: this runs under the DSampler's lock)."""
        owners = self.owners
        for old in self.retired:
            if isinstance(old, AdaptiveController):
                old.bind(None)
            else:
                old.close(timeout_s=0.0)
        owners.controller, owners.follower = self.controller, self.follower
        owners.adaptive, owners.remote = self.base.adaptive, self.base.remote
        adaptive = self.holders.get(ADAPTIVE)
        if self.controller is not None and adaptive is not None:
            self.controller.bind(adaptive)
        if owners.started:
            owners.start()

    def abort(self) -> None:
        """The publish failed: the owners in force stay as they were."""
        if self.undo is not None:
            controller, settings = self.undo
            controller.configure(settings)


class Owners:
    """The adaptive controller and the remote follower of one DSampler (either, or
    none), and the sections they were made for."""

    def __init__(self, clock: Clock = SYSTEM_CLOCK, resource: Mapping[str, Any] | None = None) -> None:
        self.clock = clock
        self.resource: Mapping[str, Any] = resource or {}
        self.controller: AdaptiveController | None = None
        self.follower: RemoteFollower | None = None
        self.adaptive: AdaptiveSettings | None = None  # the section the controller follows
        self.remote: RemoteSettings | None = None  # the section the follower follows
        self.started = False

    @property
    def rate_owner(self) -> str | None:
        """``adaptive``, ``remote`` or None (the configuration's own rate)."""
        if self.controller is not None:
            return ADAPTIVE
        return REMOTE if self.follower is not None else None

    def left_behind(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The fields of the owners that ``fields`` (an update) removes, as they are in
        force: what stays of them in the configuration."""
        kept: dict[str, Any] = {}
        if ADAPTIVE in fields and fields[ADAPTIVE] is None and self.controller is not None:
            kept["rate"] = self.controller.rate
        if REMOTE in fields and fields[REMOTE] is None and self.follower is not None:
            kept.update(self.follower.overlay.fields)
        return kept

    def plan(self, base: SamplingConfig, adopted: AdaptiveController | None = None) -> Plan:
        """What ``base`` changes (``adopted``: a controller made by the user, which
        becomes the one of its ``adaptive:`` section)."""
        plan = Plan(self, base)
        self._plan_controller(plan, base.adaptive, adopted)
        self._plan_follower(plan, base.remote)
        return plan

    def _plan_controller(
        self, plan: Plan, wanted: AdaptiveSettings | None, adopted: AdaptiveController | None
    ) -> None:
        current = self.controller
        if adopted is not None and adopted is not current:
            plan.controller = adopted
        elif wanted is None:
            plan.controller = None
        elif current is None:
            plan.controller = AdaptiveController(wanted, clock=self.clock, start=False)
        elif wanted not in (self.adaptive, current.settings):
            plan.undo = (current, current.settings)
            current.configure(wanted)  # undone by abort()
        else:
            return  # the controller and its overlay stay as they are
        if current is not None and plan.controller is not current:
            plan.retired.append(current)
        new = plan.controller
        plan.holders[ADAPTIVE] = None if new is None else Overlay(ADAPTIVE, new.fields(), tap=new.tap)

    def _plan_follower(self, plan: Plan, wanted: RemoteSettings | None) -> None:
        current = self.follower
        if wanted == self.remote and (current is None) == (wanted is None):
            return
        if current is not None:
            plan.retired.append(current)
        if wanted is None:
            plan.follower, plan.holders[REMOTE] = None, None
            return
        # the last strategy's fields hold until the new endpoint answers
        overlay = Overlay(REMOTE, current.overlay.fields if current is not None else {})
        plan.follower = RemoteFollower.of_settings(overlay, wanted, self.resource)
        plan.holders[REMOTE] = overlay

    def start(self) -> None:
        """Start the owners' threads (from now on, and every owner a plan brings)."""
        self.started = True
        if self.controller is not None:
            self.controller.start()
        if self.follower is not None:
            self.follower.start()

    def close(self) -> None:
        """Stop the owners' threads (idempotent); the last rate stays in force."""
        self.started = False
        if self.controller is not None:
            self.controller.stop()
        if self.follower is not None:
            self.follower.close()
