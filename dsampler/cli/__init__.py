"""The ``dsampler`` command: one private module per subcommand; parsing and exit codes only."""

from dsampler.cli._main import main

__all__ = ["main"]
