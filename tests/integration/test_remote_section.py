"""A configuration's ``remote:`` section: a DSampler whose default strategy follows a
Jaeger endpoint (a real HTTP server on 127.0.0.1) while its own rules still apply, and
exactly one owner of the default rate."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from dsampler import AdaptiveController, ConfigError, DSampler, JaegerRemoteSampler, load_config
from tests.remote_servers import Answer, RawServer, body, serving

pytestmark = pytest.mark.slow

TID = 0x4BF92F3577B34DA6A3CE929D0E0E4736


def prob(rate: float) -> bytes:
    return body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": rate}})


def limit(n: float) -> bytes:
    return body({"strategyType": "RATE_LIMITING", "rateLimitingSampling": {"maxTracesPerSecond": n}})


def per_op(default: float, **ops: float) -> bytes:
    entries = [{"operation": k, "probabilisticSampling": {"samplingRate": v}} for k, v in ops.items()]
    sampling = {"defaultSamplingProbability": default, "perOperationStrategies": entries}
    return body({"strategyType": "PROBABILISTIC", "operationSampling": sampling})


def remote(server: RawServer) -> dict[str, Any]:
    return {"endpoint": server.url, "polling_interval": "1h", "request_timeout": "2s", "service_name": "svc"}


def poll(sampler: DSampler) -> Any:
    follower = sampler.follower
    assert follower is not None
    return follower.poll_once()


def write(path: Path, text: str) -> None:
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_the_default_strategy_follows_the_endpoint_and_rules_still_apply() -> None:
    """Probabilistic, rate-limiting and per-operation strategies set the strategy fields;
    the configuration's own rules keep deciding what they match."""
    answer = Answer(prob(0.5))
    with serving(answer) as server:
        rules = [{"match": {"span_name": "GET /health"}, "action": "drop"}]
        sampler = DSampler(remote=remote(server), rules=rules, resource={}, parent_based=False)
        try:
            poll(sampler)
            assert (sampler.config.rate, len(sampler.config.rules)) == (0.5, 1)
            assert sampler.rate_owner == "remote"
            answer.body = limit(5)
            poll(sampler)
            assert (sampler.config.rate, sampler.config.traces_per_second) == (1.0, 5.0)
            answer.body = per_op(0.1, checkout=1.0)
            poll(sampler)
            assert sampler.config.rate == 0.1
            assert sampler.config.traces_per_second is None
            assert sampler.config.operations["checkout"].rate == 1.0
            assert sampler.should_sample(None, TID, "checkout").decision.is_sampled()
            assert not sampler.should_sample(None, TID, "GET /health").decision.is_sampled()
            assert server.requests[-1].startswith(b"GET /sampling?service=svc ")
        finally:
            sampler.close()


def test_an_identical_strategy_publishes_nothing_and_a_dead_server_keeps_it() -> None:
    """The same answer again makes no new version; the server gone, the last strategy
    stays in force."""
    with serving(Answer(prob(0.25))) as server:
        sampler = DSampler(remote=remote(server), resource={})
        try:
            poll(sampler)
            version = sampler.config.version
            poll(sampler)
            assert sampler.config.version == version
            server.close()
            poll(sampler)
            assert (sampler.config.rate, sampler.config.version) == (0.25, version)
        finally:
            sampler.close()


def test_a_file_reload_keeps_the_remote_strategy(tmp_path: Path) -> None:
    """A file with a remote: section: its reloads change the rules, never the fields the
    remote strategy owns; removing the section hands the rate back to the file."""
    with serving(Answer(prob(0.4))) as server:
        path = tmp_path / "sampling.json"
        base = {"rate": 0.01, "remote": remote(server)}
        write(path, _json(base))
        sampler = DSampler.from_file(path, poll_interval_s=3600, resource={})
        watcher = sampler.watcher
        assert watcher is not None
        try:
            poll(sampler)
            assert sampler.config.rate == 0.4
            write(path, _json({**base, "rules": [{"match": {"span_name": "x"}, "action": "drop"}]}))
            watcher.poll_once()
            assert watcher.poll_once() is True
            assert (sampler.config.rate, len(sampler.config.rules)) == (0.4, 1)
            write(path, _json({"rate": 0.01}))
            watcher.poll_once()
            assert watcher.poll_once() is True
            assert (sampler.config.rate, sampler.rate_owner) == (0.01, None)
        finally:
            sampler.close()


def test_detaching_the_endpoint_keeps_what_is_in_force_past_max_operations() -> None:
    """update(remote=None) when the endpoint lists 30 operations and max_operations is
    10: accepted, and what stays is what was in force (the strategy's rate and the
    first 10 operations, in order), never the 30 that were not."""
    ops = {f"op{i}": 0.5 for i in range(30)}
    with serving(Answer(per_op(0.2, **ops))) as server:
        sampler = DSampler(remote=remote(server), max_operations=10, rate=0.01, resource={})
        try:
            poll(sampler)
            in_force = sampler.config
            assert (in_force.rate, list(in_force.operations)) == (0.2, [f"op{i}" for i in range(10)])
            config = sampler.update(remote=None)
            assert (config.remote, sampler.follower, sampler.rate_owner) == (None, None, None)
            assert (config.rate, config.operations) == (0.2, in_force.operations)
            assert (sampler.base.rate, sampler.base.operations) == (0.2, in_force.operations)
        finally:
            sampler.close()


def test_a_section_whose_service_name_cannot_be_sent_is_refused_before_it_is_in_force() -> None:
    """A remote: section without service_name takes the resource's; one no URL can carry
    (a lone surrogate from the environment) refuses the update, naming the field to
    set, and nothing is published."""
    sampler = DSampler(rate=0.1, resource={"service.name": "check\udcffout"})
    with pytest.raises(ConfigError, match=r"^remote\.service_name: expected UTF-8 text"):
        sampler.update(remote={"endpoint": "http://127.0.0.1:9/sampling"})
    assert (sampler.config.version, sampler.config.remote, sampler.follower) == (1, None, None)


def _json(value: object) -> str:
    import json

    return json.dumps(value)


def test_adaptive_and_remote_together_are_refused_naming_both() -> None:
    """Exactly one source owns the default rate: the model refuses both sections, and a
    controller refuses a sampler whose rate follows an endpoint."""
    with pytest.raises(ConfigError, match=r"^adaptive: adaptive and remote both own the default rate"):
        load_config({"adaptive": {"target_traces_per_second": 5}, "remote": {}})
    with serving(Answer(prob(0.5))) as server:
        sampler = JaegerRemoteSampler(endpoint=server.url, service_name="svc", start=False, resource={})
        with pytest.raises(ConfigError, match="adaptive and remote both own the default rate"):
            AdaptiveController(50, sampler=sampler.dsampler)
        with pytest.raises(ConfigError, match="adaptive and remote both own the default rate"):
            sampler.dsampler.update(adaptive={"target_traces_per_second": 5})
        sampler.close()


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ({"endpoint": "ftp://x/sampling"}, "remote.endpoint"),
        ({"endpoint": "http://"}, "remote.endpoint"),
        ({"endpoint": 5}, "remote.endpoint"),
        ({"endpoint": "http://h:99999999/s"}, "remote.endpoint"),
        ({"endpoint": "http://h/sampling\x00"}, "remote.endpoint"),
        ({"endpoint": "http://h/s\u00fcd"}, "remote.endpoint"),
        ({"polling_interval": "1ms"}, "remote.polling_interval"),
        ({"polling_interval": 60}, "remote.polling_interval"),
        ({"request_timeout": "1h"}, "remote.request_timeout"),
        ({"service_name": "x" * 5000}, "remote.service_name"),
        ({"service_name": "checkout\udcff"}, "remote.service_name"),
        ({"endpont": "http://h/s"}, "remote.endpont"),
    ],
)
def test_bad_remote_sections_name_the_field(section: dict[str, Any], field: str) -> None:
    """Each bad value of the section is refused naming its path."""
    with pytest.raises(ConfigError) as info:
        load_config({"remote": section})
    assert info.value.field == field


def test_close_stops_the_poller_thread() -> None:
    """close() ends the follower's thread (idempotent); decisions keep the last rate."""
    with serving(Answer(prob(0.5))) as server:
        before = set(threading.enumerate())
        sampler = DSampler(remote=remote(server), resource={})
        poll(sampler)
        follower = sampler.follower
        assert follower is not None
        assert follower.running
        # by name: a resolver or JIT-loader thread may come and go meanwhile
        pollers = [t for t in threading.enumerate() if t not in before and t.name == "dsampler-remote-poll"]
        assert len(pollers) == 1
        sampler.close()
        sampler.close()
        assert not follower.running
        assert not pollers[0].is_alive()
        assert sampler.config.rate == 0.5
