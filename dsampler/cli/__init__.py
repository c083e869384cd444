"""The ``dsampler`` command: one module per subcommand (parsing and exit codes), and the
tools beside the library that three of them run: ``bench/``, ``demo/`` and ``simulate/``.
The library never imports this package."""

from dsampler.cli._main import main

__all__ = ["main"]
