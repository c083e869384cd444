"""``dsampler`` entry point: dispatches to one module per subcommand.

Exit codes: 0 success, 2 invalid input (a configuration problem or a bad argument),
1 an unexpected failure. A reader that closes the output early (``| head -1``) changes
none of them: commands write through :func:`dsampler.cli._output.say`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dsampler import __version__
from dsampler.cli import _bench as bench
from dsampler.cli import _check as check
from dsampler.cli import _demo as demo
from dsampler.cli import _explain as explain
from dsampler.cli import _serve as serve
from dsampler.cli import _simulate as simulate
from dsampler.cli._output import discard

__all__ = ["main"]

COMMANDS = {
    "bench": bench,
    "check": check,
    "demo": demo,
    "explain": explain,
    "serve": serve,
    "simulate": simulate,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dsampler", description="Head sampling for distributed tracing.")
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
        print(f"dsampler: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
