"""jaeger-client-python 4.8's own RemoteControlledSampler (tornado, as it ships), inside a
real jaeger_client.Tracer, follows `dsampler serve`'s strategies: probabilistic, rate
limiting and per-operation, changed while it polls."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from jaeger_client import Config, Tracer
from jaeger_client import sampler as jc

from dsampler.serve import StrategiesFile, StrategiesServer
from tests.fakes import sampler_tags, until
from tests.remote_servers import (
    PER_OPERATION_FILE as PER_OPERATION,
)
from tests.remote_servers import (
    PROBABILISTIC_FILE as PROBABILISTIC,
)
from tests.remote_servers import (
    RATE_LIMITING_FILE as RATE_LIMITING,
)
from tests.remote_servers import (
    free_port,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[StrategiesFile, StrategiesServer]]:
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps(PROBABILISTIC))
    source = StrategiesFile(path, reload_interval_s=0)
    with StrategiesServer(source, port=0) as server:
        yield source, server


def test_jaeger_clients_remote_sampler_follows_dsampler_serve(
    served: tuple[StrategiesFile, StrategiesServer],
) -> None:
    """Probabilistic 0.5 -> rate limiting 7 -> per-operation, each reaching jaeger-client's
    sampler and the sampler tags of the spans its Tracer starts."""
    source, server = served
    config = Config(
        config={
            "local_agent": {"sampling_port": server.port, "reporting_port": free_port()},
            "sampling_refresh_interval": 0.2,
        },
        service_name="jaeger-client-app",
        validate=True,
    )
    tracer: Tracer = config.new_tracer()
    remote = tracer.sampler
    try:
        assert isinstance(remote, jc.RemoteControlledSampler)
        until(lambda: isinstance(remote.sampler, jc.ProbabilisticSampler) and remote.sampler.rate == 0.5)
        kept = [s for s in (tracer.start_span("op") for _ in range(400)) if s.is_sampled()]
        assert 120 < len(kept) < 280  # 0.5 of 400, well beyond 4 sigma
        assert sampler_tags(kept[0]) == {"sampler.type": "probabilistic", "sampler.param": 0.5}

        Path(source.path or "").write_text(json.dumps(RATE_LIMITING))
        assert (source.poll_once(), source.poll_once()) == (False, True)  # held still
        until(lambda: isinstance(remote.sampler, jc.RateLimitingSampler))
        assert remote.sampler.traces_per_second == 7
        started = [tracer.start_span("op") for _ in range(200)]
        until(lambda: started.append(tracer.start_span("op")) or started[-1].is_sampled(), 5)
        limited = [s for s in started if s.is_sampled()]
        assert 1 <= len(limited) <= 9  # the bucket holds 7, plus what accrues meanwhile
        assert all(sampler_tags(s) == {"sampler.type": "ratelimiting", "sampler.param": 7.0} for s in limited)

        Path(source.path or "").write_text(json.dumps(PER_OPERATION))
        assert (source.poll_once(), source.poll_once()) == (False, True)  # held still
        until(lambda: isinstance(remote.sampler, jc.AdaptiveSampler))
        assert remote.sampler.default_sampling_probability == 0.25
        always = [tracer.start_span("checkout") for _ in range(50)]
        assert all(s.is_sampled() for s in always)
        assert sampler_tags(always[0]) == {"sampler.type": "probabilistic", "sampler.param": 1.0}
    finally:
        tracer.close()
