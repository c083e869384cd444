"""``dsampler serve`` as users run it: a subprocess that prints its URL (and its gRPC
one with ``--grpc-port``), serves, stops on SIGTERM, and refuses to start on a bad file,
a taken port or a missing grpcio (exit 2)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dsampler.cli._serve import missing_grpc_message
from dsampler.protocol import parse_response
from dsampler.protocol._parse import parse_strategy
from dsampler.remote import HttpFetcher
from tests.remote_servers import DATA, grpc_call, start_serve, start_serve_urls

pytestmark = pytest.mark.slow


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dsampler", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_serve_answers_and_stops_on_sigterm() -> None:
    """It prints `listening on URL`, answers /sampling?service=, exits 0 on SIGTERM."""
    proc, url = start_serve("--strategies", str(DATA / "strategies.json"), "--port", "0")
    try:
        assert url.startswith("http://127.0.0.1:")
        fetcher = HttpFetcher(url, timeout_s=30)
        assert parse_strategy(fetcher.fetch("foo")).rate == 0.8  # type: ignore[union-attr]
        assert parse_strategy(fetcher.fetch("bar")).traces_per_second == 5  # type: ignore[union-attr]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


def test_serve_without_a_file_serves_the_default_probability() -> None:
    """No --strategies: probabilistic 0.001 (or --default-sampling-probability) for all."""
    proc, url = start_serve("--port", "0", "--default-sampling-probability", "0.25")
    try:
        assert parse_strategy(HttpFetcher(url, timeout_s=30).fetch("x")).rate == 0.25  # type: ignore[union-attr]
    finally:
        proc.terminate()
        proc.wait(30)


def test_an_invalid_file_at_start_exits_2_naming_the_field(tmp_path: Path) -> None:
    """bad_strategies.json, a bad param and a missing file: exit 2, one line each, no traceback."""
    bad = run("--strategies", str(DATA / "bad_strategies.json"), "--port", "0")
    assert bad.returncode == 2
    assert "strategies: expected a JSON object" in bad.stderr
    assert "Traceback" not in bad.stderr
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps({"service_strategies": [{"service": "a", "type": "probabilistic", "param": 2}]})
    )
    out = run("--strategies", str(path), "--port", "0")
    assert out.returncode == 2
    assert "service_strategies[0].param: expected a number in [0, 1], got 2 (line 1)\n" in out.stderr
    missing = run("--strategies", str(tmp_path / "nope.json"), "--port", "0")
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr


def test_a_taken_port_exits_2() -> None:
    """The address is in use: one clear line, exit 2."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        out = run("--port", str(port))
    assert out.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr


def test_bad_arguments_exit_2() -> None:
    """An unknown format (argparse's refusal) or a non-number port (ours) exits 2."""
    assert run("--format", "xml").returncode == 2
    assert run("--port", "http").returncode == 2
    assert run("--reload-interval", "soon").returncode == 2


@pytest.mark.parametrize("with_file", [False, True])
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "--port: expected an integer in [0, 65535], got 70000"),
        (["--max-connections", "0"], "--max-connections: expected an integer in [1, 100000], got 0"),
        (
            ["--default-sampling-probability", "2"],
            "--default-sampling-probability: expected a number in [0, 1], got '2'",
        ),
        (
            ["--reload-interval", "soon"],
            "--reload-interval: expected a duration such as 10s, 250ms or 1h30m, got 'soon' "
            "(default 1s; 0 never reloads)",
        ),
        (
            ["--reload-interval", "1"],
            "--reload-interval: expected a duration such as 10s, 250ms or 1h30m, got '1' "
            "(default 1s; 0 never reloads)",
        ),
    ],
)
def test_a_bad_flag_is_named_as_the_flag(args: list[str], message: str, with_file: bool) -> None:
    """The message names the flag the user typed, not the parameter behind it, and
    never as a field of the strategies file; a refused reload interval (a bare ``1``
    included) says the default and what 0 does."""
    strategies = ["--strategies", str(DATA / "strategies.json")] if with_file else []
    out = run(*strategies, *args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.splitlines() == [f"dsampler serve: {message}"]


def test_the_help_gives_the_reload_intervals_format_and_default() -> None:
    """``--help`` says what a reload interval looks like, and its default."""
    out = subprocess.run(
        [sys.executable, "-m", "dsampler", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    text = " ".join(out.stdout.split())
    assert "--reload-interval DURATION check the file for changes this often: a duration such as 1s" in text
    assert "0 never reloads (default 1s)" in text


@pytest.mark.parametrize(
    "url", ["http://[::1/strategies.json", "https://[zz]/s.json", "http://h:http/s.json"]
)
def test_a_malformed_strategies_url_exits_2_naming_it(url: str) -> None:
    """A URL that urllib cannot split (a broken IPv6 literal, a port that is not a
    number) is refused as an invalid source, not reported as an internal error."""
    out = run("--strategies", url, "--port", "0", "--reload-interval", "0")
    assert out.returncode == 2, out.stderr
    assert f"dsampler serve: {url}: " in out.stderr
    assert "internal error" not in out.stderr
    assert "Traceback" not in out.stderr


def test_grpc_port_serves_grpc_too_and_both_stop_on_sigterm() -> None:
    """--grpc-port 0: a second line `listening on grpc://127.0.0.1:PORT`, gRPC answers as
    HTTP does, and SIGTERM closes both (exit 0, the gRPC port is free again)."""
    from dsampler.protocol._proto import decode_response, encode_params
    from dsampler.serve._strategies import jaeger_strategies

    proc, (url, target) = start_serve_urls(
        "--strategies", str(DATA / "strategies.json"), "--port", "0", "--grpc-port", "0", count=2
    )
    try:
        assert url.startswith("http://127.0.0.1:")
        assert target.startswith("grpc://127.0.0.1:")
        port = int(target.rsplit(":", 1)[1])
        expected = jaeger_strategies(json.loads((DATA / "strategies.json").read_text()))
        for service in ("foo", "bar", "unknown"):
            assert decode_response(grpc_call(port, encode_params(service))) == expected.response_for(service)
            assert decode_response(grpc_call(port, encode_params(service))) == parse_response(
                HttpFetcher(url, timeout_s=30).fetch(service)
            )
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


@pytest.mark.parametrize("grpc_too", [False, True], ids=["http", "http+grpc"])
@pytest.mark.parametrize(
    "signals",
    [
        [signal.SIGINT, signal.SIGINT],
        [signal.SIGINT, signal.SIGTERM],
        [signal.SIGTERM] * 5,
        [signal.SIGINT, signal.SIGTERM] * 10,
    ],
    ids=["int-int", "int-term", "5-term", "20-mixed"],
)
def test_any_number_of_signals_end_serve_cleanly_with_one_line(
    tmp_path: Path, signals: list[signal.Signals], grpc_too: bool
) -> None:
    """Ctrl-C pressed again while it shuts down (and SIGTERMs on top): exit 0 and one
    line on stderr, not a traceback from the close the second signal interrupted, nor a
    death by the signal (-2, -15)."""
    args = ["--port", "0", *(["--grpc-port", "0"] if grpc_too else [])]
    with (tmp_path / "stderr").open("w+") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dsampler", "serve", *args], stdout=subprocess.PIPE, stderr=log, text=True
        )
        assert proc.stdout is not None
        listening = [proc.stdout.readline() for _ in range(1 + grpc_too)]
        assert all("listening on" in line for line in listening), listening
        for signum in signals:
            proc.send_signal(signum)
            threading.Event().wait(0.002)  # some land during the close, some before it
        assert proc.wait(30) == 0
        assert proc.stdout.read() == ""
        log.seek(0)
        assert log.read().splitlines() == [f"dsampler serve: stopped on {signals[0].name}"]


def test_serve_without_grpc_port_prints_one_line_and_has_no_grpc() -> None:
    """Without the flag: as before, one `listening on` line (all of stdout, read after
    the exit), no gRPC listener."""
    proc, url = start_serve("--port", "0")
    try:
        assert parse_strategy(HttpFetcher(url, timeout_s=30).fetch("x")).rate == 0.001  # type: ignore[union-attr]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert "listening on" not in proc.stdout.read()


def test_a_taken_grpc_port_exits_2_naming_it_in_exactly_one_line() -> None:
    """grpcio's own log line ("Failed to add port to server") does not come first."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        out = run("--port", "0", "--grpc-port", str(port))
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"dsampler serve: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]
    assert out.stdout == ""


def test_a_bad_grpc_port_exits_2() -> None:
    out = run("--port", "0", "--grpc-port", "70000")
    assert out.returncode == 2
    assert "dsampler serve: --grpc-port: expected an integer in [0, 65535], got 70000" in out.stderr
    assert run("--grpc-port", "grpc").returncode == 2


def test_grpc_port_without_grpcio_exits_2_naming_the_extra() -> None:
    """grpcio hidden from the child (sys.modules['grpc'] = None): one line, exit 2."""
    code = (
        "import sys; sys.modules['grpc'] = None\n"
        "from dsampler.cli import main\n"
        "sys.exit(main(['serve', '--port', '0', '--grpc-port', '0']))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == f"dsampler serve: {missing_grpc_message()}"
    assert "install dsampler's grpc extra (pip install grpcio)" in missing_grpc_message()
    assert "Traceback" not in out.stderr
    assert "listening on" not in out.stdout


def test_grpc_is_imported_only_when_a_grpc_listener_is_asked_for() -> None:
    """import dsampler, the serve command and an HTTP-only server leave grpc unimported."""
    code = (
        "import sys, dsampler, dsampler.remote, dsampler.serve, dsampler.cli._serve\n"
        "from dsampler.serve import StrategiesServer, jaeger_strategies\n"
        "StrategiesServer(jaeger_strategies(None), port=0).close()\n"
        "print('grpc' in sys.modules)\n"
        "StrategiesServer(jaeger_strategies(None), port=0, grpc_port=0).close()\n"
        "print('grpc' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "True"]
