"""What ``dsampler bench`` runs: every group this machine can build (the rows are in
:mod:`dsampler.cli.bench._rows`), and their cases in order."""

from __future__ import annotations

from contextlib import ExitStack

from dsampler.cli.bench import _cases, _jaeger, _spans
from dsampler.cli.bench._harness import Case
from dsampler.cli.bench._rows import Group, Ids, Skipped, pick_ids


def build(stack: ExitStack, ids: Ids | None = None) -> tuple[list[Group], list[Skipped]]:
    """Every group this machine can run; samplers and providers are closed by ``stack``."""
    ids = ids or pick_ids()
    groups = _cases.groups(stack, ids)
    groups.append(_spans.group(stack, ids))
    skipped: list[Skipped] = []
    jaeger = _jaeger.group(ids)
    if isinstance(jaeger, str):
        skipped.append(Skipped("jaeger", jaeger))
    else:
        groups.insert(len(groups) - 1, jaeger)
    return groups, skipped


def cases_of(groups: list[Group]) -> list[Case]:
    """All cases, in group order; a key used twice is a bug."""
    cases = [case for group in groups for case in group.cases]
    keys = [case.key for case in cases]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate case keys: {sorted({k for k in keys if keys.count(k) > 1})}")
    return cases
