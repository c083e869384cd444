"""The public names DESIGN.md promises are importable from ``dsampler`` and nothing leaks."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from inspect import ismodule

import pytest

import dsampler
from dsampler._entry_points import dsampler_sampler, parentbased_dsampler_sampler
from dsampler.remote._entry import jaeger_remote_sampler, parentbased_jaeger_remote_sampler
from tests.conftest import PACKAGE

PROMISED = {
    "AdaptiveController",
    "ConfigError",
    "DSampler",
    "SamplingConfig",
    "load_config",
    "DsamplerError",
    "JaegerRemoteSampler",
    "ParentBasedSampler",
    "PerOperationSampler",
    "RateLimitingSampler",
    "RatioSampler",
    "decide_batch",
    "fnv1a64",
    "fnv1a64_batch",
    "rate_to_bound",
}


def test_all_lists_exactly_what_is_exported() -> None:
    """``__all__`` names every public attribute, each importable, and the promised ones."""
    public = {
        name for name in dir(dsampler) if not name.startswith("_") and not ismodule(getattr(dsampler, name))
    }
    assert set(dsampler.__all__) - {"__version__"} == public
    assert set(dsampler.__all__) >= PROMISED
    for name in dsampler.__all__:
        assert getattr(dsampler, name) is not None


def test_config_error_is_a_value_error_and_a_dsampler_error() -> None:
    """Callers catching ValueError keep working; the field is machine-readable."""
    err = dsampler.ConfigError("rate", "expected a number in [0, 1], got 2")
    assert isinstance(err, ValueError)
    assert isinstance(err, dsampler.DsamplerError)
    assert (err.field, str(err)) == ("rate", "rate: expected a number in [0, 1], got 2")


def test_entry_points_are_registered() -> None:
    """The installed distribution registers the four OTEL_TRACES_SAMPLER names."""
    found = {
        ep.name: ep.load()
        for ep in entry_points(group="opentelemetry_traces_sampler")
        if ep.value.startswith("dsampler")
    }
    assert found == {
        "dsampler": dsampler_sampler,
        "parentbased_dsampler": parentbased_dsampler_sampler,
        "jaeger_remote": jaeger_remote_sampler,
        "parentbased_jaeger_remote": parentbased_jaeger_remote_sampler,
    }


def test_declarative_file_samplers_are_registered() -> None:
    """The installed distribution registers three names in the group the declarative
    configuration file looks sampler plugins up in."""
    from dsampler._declarative import dsampler_consistent_plugin, dsampler_plugin, jaeger_remote_plugin

    found = {
        ep.name: ep.load()
        for ep in entry_points(group="opentelemetry_sampler")
        if ep.value.startswith("dsampler")
    }
    assert found == {
        "dsampler": dsampler_plugin,
        "dsampler_consistent": dsampler_consistent_plugin,
        "jaeger_remote": jaeger_remote_plugin,
    }


def test_jaeger_module_exports_jaeger_clients_names() -> None:
    """dsampler.jaeger offers every sampler name jaeger-client's sampler module has."""
    from jaeger_client import sampler as jc

    import dsampler.jaeger as dj

    names = {
        "ConstSampler",
        "ProbabilisticSampler",
        "RateLimitingSampler",
        "GuaranteedThroughputProbabilisticSampler",
        "AdaptiveSampler",
        "RemoteControlledSampler",
        "Sampler",
    }
    assert names <= set(dj.__all__)
    assert all(hasattr(jc, name) for name in names)
    assert "sampler_from_config" in dj.__all__


OPTIONAL = ("numba", "numpy", "llvmlite", "grpc", "yaml", "jaeger_client", "matplotlib")


@pytest.mark.parametrize(
    "package", ["dsampler", *sorted(f"dsampler.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py"))]
)
def test_importing_a_package_imports_no_optional_dependency(package: str) -> None:
    """Each package's face, imported alone in a fresh interpreter, leaves the extras'
    modules unimported: they load where a feature needs them."""
    code = f"import sys, {package}; print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", package
