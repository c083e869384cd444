"""OTEL_TRACES_SAMPLER=dsampler through the real SDK configurator and opentelemetry-instrument."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dsampler._entry_points import DEFAULT_RATE

pytestmark = pytest.mark.slow

PRINT_SAMPLER = (
    "from opentelemetry import trace; p = trace.get_tracer_provider(); "
    "print('SAMPLER=' + p.sampler.get_description())"
)
CONFIGURE = (
    "from opentelemetry.sdk._configuration import _OTelSDKConfigurator; _OTelSDKConfigurator().configure(); "
)


def run(argv: list[str], sampler: str, arg: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(
        OTEL_TRACES_SAMPLER=sampler,
        OTEL_TRACES_EXPORTER="none",
        OTEL_METRICS_EXPORTER="none",
        OTEL_LOGS_EXPORTER="none",
        OTEL_SERVICE_NAME="configurator-test",
    )
    if arg is not None:
        env["OTEL_TRACES_SAMPLER_ARG"] = arg
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=True)


def sampler_line(proc: subprocess.CompletedProcess[str]) -> str:
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("SAMPLER=")]
    return line.removeprefix("SAMPLER=")


@pytest.mark.parametrize(
    ("sampler", "arg", "expected"),
    [
        ("dsampler", "0.25", "DSampler{version=1,rate=0.25,hash=fnv1a,parent_based=False,"),
        ("dsampler", "rate=0.5,hash=xxh3", "DSampler{version=1,rate=0.5,hash=xxh3,parent_based=False,"),
        ("dsampler", None, f"DSampler{{version=1,rate={DEFAULT_RATE},hash=fnv1a,parent_based=False,"),
        ("parentbased_dsampler", "0.1", "DSampler{version=1,rate=0.1,hash=fnv1a,parent_based=True,"),
    ],
)
def test_sdk_configurator_loads_the_entry_points(sampler: str, arg: str | None, expected: str) -> None:
    """The SDK's own configurator finds dsampler's entry points and passes the raw argument."""
    proc = run([sys.executable, "-c", CONFIGURE + PRINT_SAMPLER], sampler, arg)
    assert sampler_line(proc).startswith(expected)


@pytest.mark.parametrize("arg", ["1.5", "ten percent", "rate=0.1,typo=1"])
def test_malformed_argument_is_logged_and_not_full_sampling(arg: str) -> None:
    """The SDK falls back to 100% when a factory raises; dsampler warns and uses its default."""
    proc = run([sys.executable, "-c", CONFIGURE + PRINT_SAMPLER], "dsampler", arg)
    assert sampler_line(proc).startswith(f"DSampler{{version=1,rate={DEFAULT_RATE},hash=fnv1a,")
    assert "OTEL_TRACES_SAMPLER_ARG=" in proc.stderr
    assert "ignored" in proc.stderr
    assert "Failed to initialize sampler" not in proc.stderr  # the SDK never saw an exception


def test_opentelemetry_instrument_runs_an_app_with_dsampler(tmp_path: Path) -> None:
    """Zero-code: ``opentelemetry-instrument python app.py`` samples with dsampler."""
    instrument = shutil.which("opentelemetry-instrument", path=str(Path(sys.executable).parent))
    assert instrument is not None, "opentelemetry-instrument is part of the dev extra"
    app = tmp_path / "app.py"
    app.write_text(
        "from opentelemetry import trace\n"
        "tracer = trace.get_tracer('app')\n"
        "kept = 0\n"
        "for i in range(2000):\n"
        "    with tracer.start_as_current_span('work') as span:\n"
        "        kept += span.get_span_context().trace_flags.sampled\n"
        f"{PRINT_SAMPLER}\n"
        "print('KEPT=%d' % kept)\n"
    )
    proc = run([instrument, sys.executable, str(app)], "parentbased_dsampler", "0.5")
    assert sampler_line(proc).startswith("DSampler{version=1,rate=0.5,hash=fnv1a,parent_based=True,")
    kept = int(next(x for x in proc.stdout.splitlines() if x.startswith("KEPT=")).removeprefix("KEPT="))
    assert 1000 - 4 * 23 <= kept <= 1000 + 4 * 23  # 4 sigma of Binomial(2000, 0.5)


def test_configurator_with_a_config_file(tmp_path: Path) -> None:
    """``OTEL_TRACES_SAMPLER_ARG=config=PATH`` through the real configurator."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.125\nrules: [{match: {span_name: x}, action: drop}]\n")
    proc = run([sys.executable, "-c", CONFIGURE + PRINT_SAMPLER], "parentbased_dsampler", f"config={path}")
    assert sampler_line(proc).startswith(
        "DSampler{version=1,rate=0.125,hash=fnv1a,parent_based=True,rules=1,"
    )


ADAPTIVE_APP = """\
import time
from opentelemetry import trace
sampler = trace.get_tracer_provider().sampler
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


def adaptive_file(tmp_path: Path) -> Path:
    """Room for every root (100/s against about 33/s: rate 1), P99 target 10 ms."""
    path = tmp_path / "sampling.yaml"
    path.write_text("adaptive:\n  target_traces_per_second: 100\n  p99_target: 10ms\n")
    return path


def test_opentelemetry_instrument_feeds_the_adaptive_controller_latency(tmp_path: Path) -> None:
    """Zero-code with an adaptive: section: roots of 30 ms against a 10 ms P99 target
    start a latency episode and the health policy's rate x0.7 (1.0 -> 0.7), as with the
    span processor attached by hand; nothing is warned about."""
    instrument = shutil.which("opentelemetry-instrument", path=str(Path(sys.executable).parent))
    assert instrument is not None
    app = tmp_path / "app.py"
    app.write_text(ADAPTIVE_APP)
    arg = f"config={adaptive_file(tmp_path)}"
    proc = run([instrument, sys.executable, str(app)], "parentbased_dsampler", arg)
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("EPISODE=")]
    episode, rate, roots = (field.partition("=")[2] for field in line.split())
    assert (episode, float(rate)) == ("True", pytest.approx(0.7)), line
    assert int(roots) < 300
    assert "cannot attach" not in proc.stderr


def test_configured_outside_opentelemetry_instrument_says_once_it_cannot_attach(tmp_path: Path) -> None:
    """The configurator run in code (no auto-instrumentation, no pre-instrument step):
    one WARNING saying the controller sees no latency and how to attach it by hand."""
    arg = f"config={adaptive_file(tmp_path)}"
    proc = run([sys.executable, "-c", CONFIGURE + PRINT_SAMPLER], "parentbased_dsampler", arg)
    assert sampler_line(proc).startswith("DSampler{")
    assert proc.stderr.count("cannot attach the adaptive controller's span processor") == 1
    assert "provider.add_span_processor(provider.sampler.controller.span_processor())" in proc.stderr


EPISODE_APP = """\
import time
from opentelemetry import trace
sampler = trace.get_tracer_provider().sampler
tracer = trace.get_tracer("app")

def roots(seconds, until):
    started = time.monotonic()
    while time.monotonic() - started < 30 and not until():
        with tracer.start_as_current_span("root"):
            time.sleep(seconds)

roots(0.03, lambda: sampler.controller.episode and sampler.config.rate < 1.0)
print("DURING=%s" % sampler.config.rate)
roots(0.0, lambda: not sampler.controller.episode and sampler.config.rate == 1.0)
print("AFTER=%s" % sampler.config.rate)
"""


def test_opentelemetry_instrument_tells_a_latency_episode_that_cuts_the_rate(tmp_path: Path) -> None:
    """Zero-code, roots of 30 ms against a 10 ms P99 target: the rate goes 1.0 -> 0.7
    and one WARNING (shown with no logging configured) names the cause and x0.7; fast
    roots again: the rate is back at 1.0 and one WARNING says the episode is over."""
    instrument = shutil.which("opentelemetry-instrument", path=str(Path(sys.executable).parent))
    assert instrument is not None
    path = tmp_path / "sampling.yaml"
    path.write_text(
        "adaptive:\n  target_traces_per_second: 100000\n  p99_target: 10ms\n  health: {cooldown: 1s}\n"
    )
    app = tmp_path / "app.py"
    app.write_text(EPISODE_APP)
    proc = run([instrument, sys.executable, str(app)], "parentbased_dsampler", f"config={path}")
    assert "DURING=0.7" in proc.stdout, proc.stdout + proc.stderr
    assert "AFTER=1.0" in proc.stdout, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("dsampler: adaptive:")]
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith(
        "dsampler: adaptive: root-span P99 is above p99_target (10 ms): the health policy multiplies "
        "the sampling rate by 0.7 until it is back under"
    )
    assert lines[1].startswith("dsampler: adaptive: the latency episode is over after ")
