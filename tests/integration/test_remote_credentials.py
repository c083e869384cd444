"""Credentials in an endpoint URL (``http://user:password@host/sampling``) against a real
loopback server that requires HTTP Basic authentication: sent as Go's client sends
them, and never shown (logs, descriptions, errors, ``repr``, ``dsampler check`` and
``dsampler serve`` output)."""

from __future__ import annotations

import base64
import http.server
import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsampler import DSampler, ManualClock
from dsampler._validate import redact_url
from dsampler.cli._main import main
from dsampler.errors import ConfigError
from dsampler.remote import HttpFetcher, JaegerRemoteSampler, PollOutcome
from dsampler.serve import StrategiesFile

pytestmark = pytest.mark.slow

USER, PASSWORD = "fleet", "s3cr@t:x"  # an @ and a : in the password, percent-encoded in the URL
USERINFO = "fleet:s3cr%40t%3Ax"
STRATEGY = b'{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":0.25}}'
STRATEGIES = b'{"default_strategy": {"type": "probabilistic", "param": 0.125}}'


class BasicAuthServer(http.server.ThreadingHTTPServer):
    """Answers a strategy (or a strategies file on ``/strategies.json``) to requests that
    carry the right ``Authorization``, 401 to every other; keeps what each request sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[str | None] = []

    def url(self, userinfo: str = USERINFO, path: str = "/sampling") -> str:
        return f"http://{userinfo}@127.0.0.1:{self.server_address[1]}{path}"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: BasicAuthServer

    def do_GET(self) -> None:
        sent = self.headers.get("Authorization")
        self.server.seen.append(sent)
        wanted = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        answer = STRATEGIES if self.path.startswith("/strategies.json") else STRATEGY
        status, body = (200, answer) if sent == wanted else (401, b"who are you?")
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[BasicAuthServer]:
    running = BasicAuthServer()
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.shutdown()
        running.server_close()
        thread.join(10)


def test_userinfo_is_sent_as_basic_auth_and_never_shown(
    server: BasicAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    """JaegerRemoteSampler polls with the URL's credentials as HTTP Basic and applies the
    strategy; its endpoint, description and a fetcher's repr show ``***`` instead."""
    sampler = JaegerRemoteSampler(service_name="svc", endpoint=server.url(), start=False, resource={})
    try:
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert sampler.config.rate == 0.25
        assert server.seen == ["Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()]
        shown = [sampler.endpoint, sampler.get_description(), repr(HttpFetcher(server.url()))]
        assert all("***@127.0.0.1" in text and "s3cr" not in text for text in shown), shown
    finally:
        sampler.close()


def test_wrong_credentials_fail_without_showing_them(
    server: BasicAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A 401 is a failed poll whose WARNING names the URL with ``***`` for its userinfo;
    the sampler's configuration, its repr and its description never hold the password."""
    url = server.url("fleet:wrong-s3cret")
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        sampler = DSampler(remote={"endpoint": url, "service_name": "svc"}, clock=ManualClock(), resource={})
        try:
            follower = sampler.follower
            assert follower is not None
            assert follower.poll_once() is PollOutcome.FAILED
            texts = [*caplog.messages, repr(sampler.config), sampler.get_description(), str(sampler.config)]
        finally:
            sampler.close()
    assert set(server.seen) == {"Basic " + base64.b64encode(b"fleet:wrong-s3cret").decode()}
    assert any("GET http://***@127.0.0.1:" in m and "HTTP 401" in m for m in caplog.messages), caplog.messages
    assert not [t for t in texts if "wrong-s3cret" in t]
    assert sampler.config.remote is not None
    assert sampler.config.remote.endpoint == url  # kept, to be sent


def test_refusals_of_an_endpoint_never_echo_its_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An endpoint refused for its form (a blank in it, a service= in its query, a port
    0) is named with ``***`` for its userinfo: by the model, by the client's own check
    and by ``dsampler check``."""
    for endpoint in (
        "http://fleet:s3cret@host/sam pling",
        "http://fleet:s3cret@host/sampling?service=x",
        "http://fleet:s3cret@host:0/sampling",
    ):
        for build in (lambda e: DSampler(remote={"endpoint": e}, resource={}), HttpFetcher):
            with pytest.raises(ConfigError) as info:
                build(endpoint)
            assert "s3cret" not in str(info.value)
            assert "***@host" in str(info.value)
        path = tmp_path / "sampling.json"
        path.write_text(json.dumps({"remote": {"endpoint": endpoint}}))
        assert main(["check", str(path)]) == 2
        captured = capsys.readouterr()
        assert "***@host" in captured.err
        assert "s3cret" not in captured.err + captured.out


def test_a_strategies_url_with_credentials_is_fetched_and_named_without_them(
    server: BasicAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    """``dsampler serve --strategies http://user:password@host/...`` fetches with HTTP
    Basic; the source is named with ``***``, and so is a refusal of the wrong password."""
    source = StrategiesFile(server.url(path="/strategies.json"), reload_interval_s=0)
    assert source.current.response_for("any").probabilistic.rate == 0.125  # type: ignore[union-attr]
    assert source.name == redact_url(source.path or "")
    assert "s3cr" not in source.name
    with pytest.raises(ConfigError) as info:
        StrategiesFile(server.url("fleet:nope-s3cret", "/strategies.json"), reload_interval_s=0)
    assert "HTTP 401" in str(info.value)
    assert "s3cret" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://u:p@h/x", "http://***@h/x"),
        ("https://u@h:1/s?a=@b", "https://***@h:1/s?a=@b"),
        ("GET http://a@b:c%40d@h/p@q: HTTP 401", "GET http://***@h/p@q: HTTP 401"),
        ("http://h/s?x=a@b", "http://h/s?x=a@b"),
        ("got 'http://h' (see a@b)", "got 'http://h' (see a@b)"),
    ],
)
def test_redact_url_hides_the_userinfo_alone(text: str, shown: str) -> None:
    assert redact_url(text) == shown
