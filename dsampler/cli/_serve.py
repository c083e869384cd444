"""``dsampler serve``: a Jaeger sampling-strategies server for one host.

    dsampler serve --strategies strategies.json [--host 127.0.0.1] [--port 5778] [--grpc-port N]

Answers ``GET /sampling?service=NAME`` (any path) like the Jaeger agent and collector,
from a Jaeger strategies file or a dsampler configuration file, reloaded when it
changes; with ``--grpc-port`` also ``jaeger.api_v2.SamplingManager/GetSamplingStrategy``
over gRPC (what OpenTelemetry Java polls; Jaeger v2 uses 5779, the OpenTelemetry
Collector 14250). Prints ``dsampler serve: listening on URL`` once ready (a second line,
``grpc://HOST:PORT``, for gRPC); stops on Ctrl-C or SIGTERM, with one line
(``dsampler serve: stopped on SIGINT``) however many signals come while it closes. Exit 2 when the file is
invalid at start, an address cannot be bound, or gRPC is asked for without grpcio.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING, Any

from dsampler._validate import check_rate, parse_float, parse_int, redact_url
from dsampler.cli._output import error, refuse, say
from dsampler.config import parse_duration
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from dsampler.serve import StrategiesServer


_RELOAD_FORMAT = "a duration such as 1s, 250ms or 5m; 0 never reloads (default 1s)"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "serve",
        help="serve Jaeger sampling strategies over HTTP (/sampling?service=NAME)",
        description="Serve Jaeger remote-sampling strategies from a strategies file.",
    )
    parser.add_argument(
        "--strategies",
        metavar="FILE",
        help="Jaeger strategies file or http(s) URL, or a dsampler config file (default: 0.001 for all)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", default="5778", help="TCP port (default 5778; 0 picks a free one)")
    parser.add_argument(
        "--reload-interval",
        default="1s",
        metavar="DURATION",
        help=f"check the file for changes this often: {_RELOAD_FORMAT}",
    )
    parser.add_argument(
        "--format", choices=("auto", "jaeger", "dsampler"), default="auto", help="file format"
    )
    parser.add_argument(
        "--default-sampling-probability",
        default="0.001",
        help="rate for types that are missing or unknown (default 0.001, as Jaeger)",
    )
    parser.add_argument(
        "--dialect", choices=("proto3", "legacy"), default="proto3", help="legacy: numeric strategyType"
    )
    parser.add_argument("--max-connections", default="1024", help="connections served at once")
    parser.add_argument(
        "--grpc-port",
        metavar="PORT",
        help="also serve gRPC SamplingManager on this port (off by default; Jaeger v2 uses 5779, "
        "the OTel Collector and OTel Java 14250; 0 picks a free one; needs dsampler[grpc])",
    )


#: Problems that come from the arguments, not the file, are named by their flag alone
#: (a field that is a flag already, or the parameter a flag is passed to).
_ARGUMENT_FLAGS = {
    "--reload-interval": "--reload-interval",
    "default_sampling_probability": "--default-sampling-probability",
    "port": "--port",
    "grpc_port": "--grpc-port",
    "max_connections": "--max-connections",
    "format": "--format",
}


def missing_grpc_message() -> str:
    """What ``--grpc-port`` without grpcio says after ``dsampler serve: `` (the extra to install)."""
    from dsampler.serve import MISSING_GRPC

    return f"--grpc-port: {MISSING_GRPC}"


class _Stop:
    """The handler of SIGINT and SIGTERM: the first one ends serving (a
    :class:`KeyboardInterrupt` in the main thread) and every later one is absorbed, so
    that the close it started runs to its end (bounded: a second of grace for gRPC
    calls) instead of being cut by a traceback, or the process killed by the signal
    (exit -2 or -15). While the close runs this handler absorbs them: a signal that
    arrived with the first, before its handler ran, is still pending then, and CPython
    prints "Signal N ignored due to race condition" for a pending signal whose handler
    has become ``SIG_IGN``. Once the command ends (:meth:`restore`) the system ignores
    them (``SIG_IGN``): the interpreter puts the default action back for Python handlers
    as it exits, and a signal then would still kill the process. A run that no signal
    stopped gives the handlers back as they were."""

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum: int | None = None
        self._previous = {s: signal.signal(s, self) for s in self._SIGNALS}

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
            raise KeyboardInterrupt

    def restore(self) -> None:
        """The handlers as they were, unless a signal came: then ``SIG_IGN`` (the command
        is ending; ``signal.signal`` runs any handler still pending before it changes one)."""
        after = dict.fromkeys(self._SIGNALS, signal.SIG_IGN) if self.signum is not None else self._previous
        for s, handler in after.items():
            signal.signal(s, handler)


_RATE = "--default-sampling-probability"


def _numbers(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with its numbers parsed: our validators, not argparse's ``type=``, so
    that ``--port -1e3`` reads like every other refusal (and names its range)."""
    from dsampler.serve import MAX_CONNECTIONS

    rate = parse_float(args.default_sampling_probability, _RATE, "a number in [0, 1]")
    grpc = args.grpc_port
    return argparse.Namespace(
        **{
            **vars(args),
            "port": parse_int(args.port, "--port", 0, 65535),
            "grpc_port": None if grpc is None else parse_int(grpc, "--grpc-port", 0, 65535),
            "max_connections": parse_int(args.max_connections, "--max-connections", 1, MAX_CONNECTIONS),
            "default_sampling_probability": check_rate(
                rate, _RATE, written=args.default_sampling_probability
            ),
        }
    )


def _server(args: argparse.Namespace) -> StrategiesServer:
    from dsampler.serve import MAX_RELOAD_S, StrategiesFile, StrategiesServer

    source = StrategiesFile(
        args.strategies,
        format=args.format,
        default_probability=args.default_sampling_probability,
        reload_interval_s=_reload_interval(args.reload_interval, MAX_RELOAD_S),
    )
    return StrategiesServer(
        source,
        args.host,
        args.port,
        dialect=args.dialect,
        max_connections=args.max_connections,
        grpc_port=args.grpc_port,
    )


def _reload_interval(text: str, most: float) -> float:
    """``--reload-interval`` in seconds; refused with its format and default."""
    if text.strip() == "0":
        return 0.0
    try:
        return parse_duration(text, "--reload-interval", (0.0, most))
    except ConfigError as exc:
        raise ConfigError("--reload-interval", f"{exc.problem} (default 1s; 0 never reloads)") from None


def _named(args: argparse.Namespace) -> str:
    """The strategies file as messages name it (a URL's credentials shown as ***)."""
    return "defaults" if args.strategies is None else redact_url(args.strategies)


def _report(args: argparse.Namespace, exc: ConfigError) -> int:
    return refuse("serve", exc, file=_named(args), flags=_ARGUMENT_FLAGS)


def run(args: argparse.Namespace) -> int:
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    stop = _Stop()
    try:
        code = _run(args)
    except KeyboardInterrupt:  # the first signal, wherever it came
        code = 0
    finally:
        stop.restore()
    if stop.signum is not None:
        say(f"dsampler serve: stopped on {signal.Signals(stop.signum).name}", err=True)
    return code


def _run(args: argparse.Namespace) -> int:
    """Build the server, serve until the first signal, close (the second signal on is
    ignored by then: :class:`_Stop`)."""
    try:
        args = _numbers(args)
        server = _server(args)
    except ConfigError as exc:
        return _report(args, exc)
    except ImportError as exc:
        if exc.name != "grpc":
            raise
        error("serve", missing_grpc_message())
        return 2
    except OSError as exc:
        where = exc.filename or f"{args.host}:{args.port}"  # the gRPC listener names its address
        error("serve", f"cannot listen on {where}: {exc.strerror or exc}")
        return 2
    try:
        print(f"dsampler serve: listening on {server.url} ({_named(args)})", flush=True)
        if server.grpc is not None:
            server.grpc.start()
            print(f"dsampler serve: listening on {server.grpc.url}", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
