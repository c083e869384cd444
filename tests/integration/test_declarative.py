"""dsampler's samplers in OpenTelemetry's declarative configuration file (OTEL_CONFIG_FILE),
through the real SDK configurator and opentelemetry-instrument, each run a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsampler._entry_points import DEFAULT_RATE
from tests.conftest import REPO

pytestmark = pytest.mark.slow

EXAMPLE = REPO / "examples" / "declarative"
CONFIGURE = (
    "from opentelemetry.sdk._configuration import _OTelSDKConfigurator\n"
    "from opentelemetry import trace\n"
    "try:\n"
    "    _OTelSDKConfigurator().configure()\n"
    "except Exception as exc:\n"
    "    print('RAISED=%s: %s' % (type(exc).__name__, exc))\n"
    "else:\n"
    "    print('SAMPLER=' + trace.get_tracer_provider().sampler.get_description())\n"
)


def environment(**variables: str) -> dict[str, str]:
    """This environment without any OTEL_ or DSAMPLER_ variable, then ``variables``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "DSAMPLER_"))}
    env.update(variables)
    return env


def instrument() -> str:
    found = shutil.which("opentelemetry-instrument", path=str(Path(sys.executable).parent))
    assert found is not None, "opentelemetry-instrument is part of the dev extra"
    return found


def run(argv: list[str], **variables: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        argv, env=environment(**variables), capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc


def configured(path: Path, **variables: str) -> str:
    """The SAMPLER= line of the configurator run in code on the file at ``path`` (or the
    RAISED= line when it raised)."""
    proc = run([sys.executable, "-c", CONFIGURE], OTEL_CONFIG_FILE=str(path), **variables)
    raised = [line for line in proc.stdout.splitlines() if line.startswith("RAISED=")]
    if raised:
        return raised[0]
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("SAMPLER=")]
    return line.removeprefix("SAMPLER=")


def declarative(tmp_path: Path, sampler: str) -> Path:
    """A declarative file with one console processor and ``sampler`` (YAML flow style)."""
    path = tmp_path / "otel-config.yaml"
    path.write_text(
        'file_format: "1.0"\n'
        "tracer_provider:\n"
        "  processors: [{simple: {exporter: {console: {}}}}]\n"
        f"  sampler: {sampler}\n"
    )
    return path


def exported(stdout: str) -> list[dict[str, Any]]:
    """The spans the console exporter printed (JSON objects, one after another)."""
    decoder, spans, at = json.JSONDecoder(), [], stdout.find("{")
    while at != -1:
        span, end = decoder.raw_decode(stdout, at)
        spans.append(span)
        at = stdout.find("{", end)
    return spans


def app_summary(
    proc: subprocess.CompletedProcess[str],
) -> tuple[str, dict[str, int], str, list[dict[str, Any]]]:
    """The example app's lines: the sampler, traces kept per root name, the ``ot`` values,
    and the spans exported before them."""
    lines = proc.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("SAMPLER="))
    kept = {m[1]: int(m[2]) for m in re.finditer(r"^KEPT (.+): (\d+) of \d+$", proc.stdout, flags=re.M)}
    (ot,) = [line.removeprefix("OT=") for line in lines if line.startswith("OT=")]
    return lines[first].removeprefix("SAMPLER="), kept, ot, exported("\n".join(lines[:first]))


def test_the_example_roots_are_decided_by_dsampler_under_opentelemetry_instrument() -> None:
    """examples/declarative: parent_based with a dsampler root configured by
    DSAMPLER_CONFIG: its rate (0.25 of the 300 checkouts, within 4 sigma), its rule (no
    health check kept), every child exported with its root."""
    proc = run(
        [instrument(), sys.executable, str(EXAMPLE / "app.py")],
        OTEL_CONFIG_FILE=str(EXAMPLE / "otel-config.yaml"),
        DSAMPLER_CONFIG=str(EXAMPLE / "sampling.yaml"),
        OTEL_TRACES_SAMPLER_ARG="0.9",  # not read on this path
    )
    sampler, kept, ot, spans = app_summary(proc)
    assert sampler.startswith(
        "ParentBased{root:DSampler{version=1,rate=0.25,hash=fnv1a,parent_based=True,rules=1,"
    )
    assert kept["GET /healthz"] == 0
    assert 75 - 4 * 7.5 <= kept["GET /checkout"] <= 75 + 4 * 7.5  # Binomial(300, 0.25)
    # DSampler states its fnv1a decisions: th of 0.25 and the rv of each trace's hash
    values = ot.split(",")
    assert len(values) == kept["GET /checkout"]
    assert all(re.fullmatch(r"th:c;rv:[0-9a-f]{14}", v) and int(v[-14:], 16) >= 0xC << 52 for v in values)
    names = [span["name"] for span in spans]
    assert names.count("SELECT orders") == names.count("GET /checkout") == kept["GET /checkout"]
    assert "Traceback" not in proc.stderr


def test_the_consistent_example_writes_th_on_every_exported_span() -> None:
    """dsampler_consistent at DSAMPLER_CONSISTENT_RATIO=0.25: every exported span, root
    and child, carries ot=th:c, and about a quarter of the 400 traces are kept."""
    proc = run(
        [instrument(), sys.executable, str(EXAMPLE / "app.py")],
        OTEL_CONFIG_FILE=str(EXAMPLE / "otel-config-consistent.yaml"),
        DSAMPLER_CONSISTENT_RATIO="0.25",
    )
    sampler, kept, ot, spans = app_summary(proc)
    root = "ComposableParentThreshold{root=ComposableTraceIDRatioBased{threshold=c, ratio=0.25}}"
    assert sampler.startswith("ParentBased{root:" + root)
    assert ot == "th:c"
    assert spans
    assert {span["context"]["trace_state"] for span in spans} == {"['{key=ot, value=th:c}']"}
    assert len(spans) == 2 * sum(kept.values())
    assert 100 - 4 * 8.7 <= sum(kept.values()) <= 100 + 4 * 8.7  # Binomial(400, 0.25)


@pytest.mark.parametrize(
    ("sampler", "variables", "expected"),
    [
        ("{dsampler: {}}", {}, f"DSampler{{version=1,rate={DEFAULT_RATE},hash=fnv1a,parent_based=False,"),
        (
            "{dsampler_consistent: {}}",
            {"DSAMPLER_CONSISTENT_RATIO": "0.5"},
            "ComposableParentThreshold{root=ComposableTraceIDRatioBased{threshold=8, ratio=0.5}}",
        ),
        (
            "{parent_based: {root: {jaeger_remote: {}}}}",
            {"OTEL_SERVICE_NAME": "checkout"},
            "ParentBased{root:JaegerRemoteSampler{service=checkout,endpoint=http://127.0.0.1:5778/sampling,"
            "polling_interval_s=60,hash=otel,parent_based=False}",
        ),
    ],
)
def test_the_configurator_in_code_builds_each_sampler(
    tmp_path: Path, sampler: str, variables: dict[str, str], expected: str
) -> None:
    """The SDK's configurator run in code (no opentelemetry-instrument) finds each name in
    opentelemetry_sampler and builds it from the environment."""
    assert configured(declarative(tmp_path, sampler), **variables).startswith(expected)


def test_an_invalid_variable_is_logged_and_the_default_rate_serves(tmp_path: Path) -> None:
    """DSAMPLER_CONSISTENT_RATIO=1.5: one warning naming it, the default ratio, not 100%."""
    path = declarative(tmp_path, "{dsampler_consistent: {}}")
    proc = run([sys.executable, "-c", CONFIGURE], OTEL_CONFIG_FILE=str(path), DSAMPLER_CONSISTENT_RATIO="1.5")
    assert f"ratio={DEFAULT_RATE}}}" in proc.stdout
    assert "DSAMPLER_CONSISTENT_RATIO: expected a number in [0, 1], got '1.5'" in proc.stderr


ADAPTIVE_APP = """\
import time
from opentelemetry import trace
sampler = trace.get_tracer_provider().sampler._root  # the DSampler under parent_based
tracer = trace.get_tracer("app")
started, roots = time.monotonic(), 0
while roots < 300 and time.monotonic() - started < 20:
    with tracer.start_as_current_span("root"):
        time.sleep(0.03)
    roots += 1
    if sampler.controller.episode and sampler.config.rate < 1.0:
        break
print("EPISODE=%s RATE=%s ROOTS=%d" % (sampler.controller.episode, sampler.config.rate, roots))
"""


def test_opentelemetry_instrument_feeds_the_adaptive_controller_of_a_parent_based_root(
    tmp_path: Path,
) -> None:
    """A DSAMPLER_CONFIG file with an adaptive: section, the DSampler the root of the
    file's parent_based: its span processor goes on the provider (30 ms roots against a
    10 ms P99 target: an episode, the rate x0.7), nothing warned about."""
    sampling = tmp_path / "sampling.yaml"
    sampling.write_text("adaptive:\n  target_traces_per_second: 100\n  p99_target: 10ms\n")
    app = tmp_path / "app.py"
    app.write_text(ADAPTIVE_APP)
    path = declarative(tmp_path, "{parent_based: {root: {dsampler: {}}}}")
    proc = run(
        [instrument(), sys.executable, str(app)], OTEL_CONFIG_FILE=str(path), DSAMPLER_CONFIG=str(sampling)
    )
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("EPISODE=")]
    episode, rate, roots = (field.partition("=")[2] for field in line.split())
    assert (episode, float(rate)) == ("True", pytest.approx(0.7)), line
    assert int(roots) < 300
    assert "cannot attach" not in proc.stderr
