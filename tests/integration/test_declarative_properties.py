"""The properties written under dsampler's samplers in OTEL_CONFIG_FILE
(``dsampler: {rate: 0.25}``) are applied, though opentelemetry-configuration calls the
plugins with no argument: each run is the SDK's configurator in a real process, with a
real TracerProvider, counting the roots it samples."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dsampler._entry_points import DEFAULT_RATE

pytestmark = pytest.mark.slow

ROOTS = 2000
APP = f"""\
from opentelemetry import trace
from opentelemetry.sdk._configuration import _OTelSDKConfigurator
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_OTelSDKConfigurator().configure()
provider = trace.get_tracer_provider()
exporter = InMemorySpanExporter()
provider.add_span_processor(SimpleSpanProcessor(exporter))
tracer = trace.get_tracer("app")
for _ in range({ROOTS}):
    with tracer.start_as_current_span("GET /checkout"):
        pass
print("SAMPLER=" + provider.sampler.get_description())
print("KEPT=%d" % len(exporter.get_finished_spans()))
"""


def configured(tmp_path: Path, sampler: str, **variables: str) -> tuple[str, int, str]:
    """The sampler's description, the roots kept of :data:`ROOTS`, and stderr, for a
    declarative file whose tracer provider has ``sampler`` (YAML flow style)."""
    path = tmp_path / "otel-config.yaml"
    path.write_text(
        'file_format: "1.0"\n'
        "tracer_provider:\n"
        "  processors: [{simple: {exporter: {console: {}}}}]\n"
        f"  sampler: {sampler}\n"
    )
    app = tmp_path / "app.py"
    app.write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "DSAMPLER_"))}
    env.update(OTEL_CONFIG_FILE=str(path), **variables)
    proc = subprocess.run(
        [sys.executable, str(app)], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    description = re.search(r"^SAMPLER=(.*)$", proc.stdout, flags=re.M)
    kept = re.search(r"^KEPT=(\d+)$", proc.stdout, flags=re.M)
    assert description is not None, proc.stdout[-2000:]
    assert kept is not None, proc.stdout[-2000:]
    return description[1], int(kept[1]), proc.stderr


def test_a_rate_written_under_dsampler_is_the_rate_that_samples(tmp_path: Path) -> None:
    """``dsampler: {rate: 0.25}``: a quarter of the roots (Binomial(2000, 0.25) within 4
    sigma), not the default 0.1%; nothing is warned about."""
    description, kept, stderr = configured(tmp_path, "{dsampler: {rate: 0.25, hash: xxh3}}")
    assert description.startswith("DSampler{version=1,rate=0.25,hash=xxh3,parent_based=False,")
    assert abs(kept - ROOTS * 0.25) <= 4 * 19.4, kept
    assert "dsampler" not in stderr, stderr


def test_properties_under_parent_based_with_the_sdks_substitution(tmp_path: Path) -> None:
    """Under ``parent_based: {root: ...}``, a ``${RATE}`` the SDK substitutes (and types
    again: a number) is read as the SDK read it: half the roots."""
    sampler = "\n    parent_based:\n      root:\n        dsampler:\n          rate: ${RATE}"
    description, kept, stderr = configured(tmp_path, sampler, RATE="0.5")
    assert description.startswith("ParentBased{root:DSampler{version=1,rate=0.5,")
    assert abs(kept - ROOTS * 0.5) <= 4 * 22.4, kept
    assert "dsampler" not in stderr, stderr


def test_dsampler_written_twice_with_different_properties_is_named_and_the_default_serves(
    tmp_path: Path,
) -> None:
    """Two ``dsampler`` delegates with different rates: the SDK's calls do not say which
    is which, so one WARNING names it and the default rate serves (about 2 of 2,000)."""
    description, kept, stderr = configured(
        tmp_path,
        "{parent_based: {root: {dsampler: {rate: 0.25}}, remote_parent_sampled: {dsampler: {rate: 0.5}}}}",
    )
    assert description.startswith(f"ParentBased{{root:DSampler{{version=1,rate={DEFAULT_RATE},")
    assert kept <= 12, kept  # Binomial(2000, 0.001): mean 2
    message = (
        "dsampler: the properties written under dsampler in OTEL_CONFIG_FILE ignored for "
        "OTEL_CONFIG_FILE's dsampler sampler: dsampler: written 2 times with different properties"
    )
    assert stderr.count(message) == 2, stderr  # once per sampler built: the root and one delegate


def test_properties_decide_over_dsampler_config_which_is_named(tmp_path: Path) -> None:
    """Written properties and DSAMPLER_CONFIG: the properties sample; the variable is
    named at WARNING as ignored."""
    sampling = tmp_path / "sampling.yaml"
    sampling.write_text("rate: 1.0\n")
    description, kept, stderr = configured(
        tmp_path, "{dsampler: {rate: 0.25}}", DSAMPLER_CONFIG=str(sampling)
    )
    assert description.startswith("DSampler{version=1,rate=0.25,")
    assert abs(kept - ROOTS * 0.25) <= 4 * 19.4, kept
    assert stderr.count("dsampler: DSAMPLER_CONFIG ignored: the properties written under dsampler") == 1


@pytest.mark.parametrize(
    ("sampler", "expected"),
    [
        (
            "{dsampler_consistent: {ratio: 0.5}}",
            "ComposableParentThreshold{root=ComposableTraceIDRatioBased{threshold=8, ratio=0.5}}",
        ),
        (
            "{jaeger_remote: {endpoint: 'http://127.0.0.1:9/sampling', interval: 5000, "
            "initial_sampler: 0.5}}",
            "JaegerRemoteSampler{service=checkout,endpoint=http://127.0.0.1:9/sampling,"
            "polling_interval_s=5,hash=otel,parent_based=False}",
        ),
    ],
)
def test_the_other_plugins_read_their_properties_too(tmp_path: Path, sampler: str, expected: str) -> None:
    """``dsampler_consistent`` and ``jaeger_remote`` take theirs from the file as well:
    half the roots at ratio (or initial rate) 0.5."""
    description, kept, _ = configured(tmp_path, sampler, OTEL_SERVICE_NAME="checkout")
    assert description == expected
    assert abs(kept - ROOTS * 0.5) <= 4 * 22.4, kept
