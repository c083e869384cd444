"""``dsampler`` entry point: dispatches to one module per subcommand.

Exit codes: 0 success, 2 invalid input (a configuration problem or a bad argument),
1 an unexpected failure. A reader that closes the output early (``| head -1``) changes
none of them: commands write through :func:`dsampler.cli._output.say`.

A value that looks negative (``--reload-interval -1s``, ``--target -1e3``, ``--seed
-inf``) is a value, not an unknown option: argparse's own test knows only ``-1`` and
``-1.5``, and answered the rest with "expected one argument", so the flag's own
validation, which says what is allowed, never saw it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, Final

from dsampler._version import __version__
from dsampler.cli import _check as check
from dsampler.cli import _explain as explain
from dsampler.cli import _serve as serve
from dsampler.cli._output import discard, error
from dsampler.cli.bench import _command as bench
from dsampler.cli.demo import _command as demo
from dsampler.cli.simulate import _command as simulate

#: -1, -.5, -1e3, -1s, -5m, -1_000, -0x1, -inf, -nan: what a number or a duration looks
#: like with a minus sign (no dsampler option starts with a digit, "inf" or "nan").
_NEGATIVE: Final = re.compile(r"-(\.?\d|inf|nan)", re.IGNORECASE)

COMMANDS = {
    "bench": bench,
    "check": check,
    "demo": demo,
    "explain": explain,
    "serve": serve,
    "simulate": simulate,
}


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser (and, through ``parser_class``, every subcommand's) that takes
    negative-looking arguments as values (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The matcher _parse_optional consults (Python 3.10 to 3.13; the test of every
        # value flag in tests/integration/test_cli_negative.py fails if that changes).
        self._negative_number_matcher = _NEGATIVE


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dsampler", description="Head sampling for distributed tracing.")
    parser.add_argument("--version", action="version", version=f"dsampler {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        module.add_parser(commands)
        commands.choices[name].set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except BrokenPipeError:  # a write not made through _output.say: the status is unknown
        discard(sys.stdout)
        return 1
    except Exception as exc:  # a bug of ours: say so in one line, exit 1, not a traceback
        error(args.command, f"internal error: {type(exc).__name__}: {exc}")
        return 1
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
