"""Exceptions raised by dsampler.

Hierarchy::

    DsamplerError                  base of everything dsampler raises on purpose
    ├── ConfigError (ValueError)   bad input at a boundary: constructor, parser, file, CLI
    └── FetchError (OSError)       a remote strategy could not be fetched (network, HTTP status)

Each class also derives from the built-in a caller would already catch. Errors are
raised at the boundary, never from ``should_sample``.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ConfigError", "DsamplerError", "FetchError"]

_MAX_LINES = 20  # problems spelled out in a ConfigError's message


class DsamplerError(Exception):
    """Base class of the errors dsampler raises deliberately."""


class ConfigError(DsamplerError, ValueError):
    """A configuration value was rejected; the message starts with the offending field:
    ``rate: expected a number in [0, 1], got 1.5``.

    Attributes:
        field: dotted path of the offending field (``rules[2].match.span_name``), or the
            argument name for constructor arguments.
        problem: what was expected and what was found.
    """

    def __init__(self, field: str, problem: str, *, also: Sequence[ConfigError] = ()) -> None:
        self.field = field
        self.problem = problem
        #: every problem found, this one first: parsers report all of them at once
        self.errors: tuple[ConfigError, ...] = (self, *also)
        lines = [f"{e.field}: {e.problem}" for e in self.errors[:_MAX_LINES]]
        if len(self.errors) > _MAX_LINES:  # the message stays short; .errors has them all
            lines.append(f"... and {len(self.errors) - _MAX_LINES} more problems")
        super().__init__("\n".join(lines))

    @classmethod
    def of(cls, problems: Sequence[ConfigError]) -> ConfigError:
        """One error that carries several (``problems`` must not be empty)."""
        first, *rest = problems
        return cls(first.field, first.problem, also=rest) if rest else first


class FetchError(DsamplerError, OSError):
    """A sampling strategy could not be fetched (network, HTTP status, size cap,
    redirects); the message names the URL, and the poller keeps the last good strategy.

    Attributes:
        status: the HTTP status when the server answered with one, else None.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
