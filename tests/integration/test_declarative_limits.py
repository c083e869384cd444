"""What opentelemetry-configuration does not let a sampler plugin do, as the docs state it
(docs/consistent-sampling.md, "From the declarative configuration file"). Each test
asserts today's behaviour of the installed version: when a version lifts a limit, the
test fails, and the docs (and perhaps dsampler's plugins) have something to change."""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.integration.test_declarative import CONFIGURE, configured, declarative, run

pytestmark = pytest.mark.slow

VERSION = version("opentelemetry-configuration")
LIFTED = f"opentelemetry-configuration {VERSION} lifted this limit: update the docs"

#: Plugins under the names the file's own samplers use, as a package could register them.
ENTRY_POINTS = """\
[opentelemetry_sampler]
probability/development = dsampler._declarative:dsampler_consistent_plugin
probability_development = dsampler._declarative:dsampler_consistent_plugin
jaeger_remote/development = dsampler._declarative:jaeger_remote_plugin
jaeger_remote_development = dsampler._declarative:jaeger_remote_plugin
"""


def plugins_under_the_files_names(tmp_path: Path) -> str:
    """A directory for PYTHONPATH holding an installed distribution's metadata that
    registers dsampler's factories under the file's own sampler names."""
    info = tmp_path / "site" / "dsampler_file_names-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dsampler-file-names\nVersion: 0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return str(info.parent)


def test_properties_are_not_passed_to_the_factory(tmp_path: Path) -> None:
    """``args_probe: {rate: 0.5}``: the factory is called with no argument (so dsampler's
    plugins read what is written under their name from the file themselves)."""
    site = tmp_path / "site"
    info = site / "args_probe-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: args-probe\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[opentelemetry_sampler]\nargs_probe = args_probe:probe\n")
    (site / "args_probe.py").write_text(
        "from opentelemetry.sdk.trace.sampling import ALWAYS_ON\n"
        "def probe(*args, **kwargs):\n"
        "    print('CALLED=%r %r' % (args, kwargs))\n"
        "    return ALWAYS_ON\n"
    )
    path = declarative(tmp_path, "{args_probe: {rate: 0.5, hash: xxh3}}")
    proc = run([sys.executable, "-c", CONFIGURE], OTEL_CONFIG_FILE=str(path), PYTHONPATH=str(site))
    assert "CALLED=() {}" in proc.stdout, f"{LIFTED}: {proc.stdout}"


def test_the_sdks_parse_that_dsampler_reads_properties_with_is_there(tmp_path: Path) -> None:
    """dsampler reads a plugin's properties with the package's own parse (its ``${VAR}``
    substitution and typing included), ``file._loader._parse_config_content``: still there,
    still giving the file's data."""
    from opentelemetry.configuration.file._loader import _parse_config_content

    path = declarative(tmp_path, "{dsampler: {rate: 0.5}}")
    data = _parse_config_content(path.read_text(), ".yaml", str(path))
    assert data["tracer_provider"]["sampler"] == {"dsampler": {"rate": 0.5}}


@pytest.mark.parametrize(
    "sampler",
    [
        "{probability/development: {ratio: 0.25}}",
        "{jaeger_remote/development: {endpoint: 'http://127.0.0.1:9', initial_sampler: {always_off: {}}}}",
    ],
)
def test_the_files_own_development_samplers_cannot_come_from_a_plugin(tmp_path: Path, sampler: str) -> None:
    """probability/development and jaeger_remote/development parse into typed fields the
    package does not build: a ConfigurationError, even with plugins of those names."""
    path = declarative(tmp_path, sampler)
    line = configured(path, PYTHONPATH=plugins_under_the_files_names(tmp_path))
    assert line.startswith("RAISED=ConfigurationError: Unsupported sampler type"), f"{LIFTED}: {line}"


def test_the_plugins_are_installed_where_the_refusal_is_checked(tmp_path: Path) -> None:
    """The metadata directory above really registers its names (else the test above would
    pass for the wrong reason)."""
    code = (
        "from importlib.metadata import entry_points\n"
        "print(sorted(e.name for e in entry_points(group='opentelemetry_sampler')))\n"
    )
    proc = run([sys.executable, "-c", code], PYTHONPATH=plugins_under_the_files_names(tmp_path))
    assert "'probability/development'" in proc.stdout
    assert "'jaeger_remote/development'" in proc.stdout


def test_composable_plugins_are_refused_under_composite_development(tmp_path: Path) -> None:
    """composite/development builds OpenTelemetry's own composables only."""
    line = configured(declarative(tmp_path, "{composite/development: {dsampler_consistent: {}}}"))
    assert line.startswith("RAISED=ConfigurationError: Unknown or unsupported experimental composable"), (
        f"{LIFTED}: {line}"
    )


def test_a_name_of_opentelemetry_traces_sampler_only_is_not_found(tmp_path: Path) -> None:
    """parentbased_dsampler is an OTEL_TRACES_SAMPLER name only."""
    line = configured(declarative(tmp_path, "{parentbased_dsampler: {}}"))
    assert line.startswith(
        "RAISED=ConfigurationError: Plugin 'parentbased_dsampler' not found in group 'opentelemetry_sampler'"
    ), f"{LIFTED}: {line}"


def test_processors_must_not_be_empty(tmp_path: Path) -> None:
    """A file with no processor fails the package's schema."""
    path = declarative(tmp_path, "{dsampler: {}}")
    path.write_text(path.read_text().replace("[{simple: {exporter: {console: {}}}}]", "[]"))
    assert configured(path).startswith("RAISED=ConfigurationError: Configuration does not match schema")


def test_otel_experimental_config_file_alone_is_ignored(tmp_path: Path) -> None:
    """Only OTEL_CONFIG_FILE is read: with OTEL_EXPERIMENTAL_CONFIG_FILE the SDK's
    environment path builds its default sampler, and dsampler is never asked."""
    path = declarative(tmp_path, "{dsampler: {}}")
    proc = run([sys.executable, "-c", CONFIGURE], OTEL_EXPERIMENTAL_CONFIG_FILE=str(path))
    assert "SAMPLER=ParentBased{root:AlwaysOnSampler," in proc.stdout, f"{LIFTED}: {proc.stdout}"


def test_the_files_resource_is_not_handed_to_the_sampler(tmp_path: Path) -> None:
    """The file's resource names the service; the sampler sees the environment's."""
    path = declarative(tmp_path, "{jaeger_remote: {}}")
    resource = "resource:\n  attributes: [{name: service.name, value: from-the-file}]\n"
    path.write_text(path.read_text() + resource)
    sampler = configured(path)
    assert sampler.startswith("JaegerRemoteSampler{service=unknown_service"), f"{LIFTED}: {sampler}"
