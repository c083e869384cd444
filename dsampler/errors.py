"""Exceptions raised by dsampler.

Hierarchy::

    DsamplerError                  base of everything dsampler raises on purpose
    └── ConfigError (ValueError)   bad input at a boundary: constructor, parser, file, CLI

Each class also derives from the built-in a caller would already catch, so code that
handles ``ValueError`` keeps working. Errors are raised at the boundary, never from
``should_sample``: a sampler that cannot decide falls back and counts the fault instead.
"""

from __future__ import annotations

__all__ = ["ConfigError", "DsamplerError"]


class DsamplerError(Exception):
    """Base class of the errors dsampler raises deliberately."""


class ConfigError(DsamplerError, ValueError):
    """A configuration value was rejected.

    The message always starts with the offending field so that one line tells the user
    what to fix: ``rate: expected a number in [0, 1], got 1.5``.

    Attributes:
        field: dotted path of the offending field (``rules[2].match.span_name``), or the
            argument name for constructor arguments.
        problem: what was expected and what was found.
    """

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
