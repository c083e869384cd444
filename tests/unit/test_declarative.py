"""The opentelemetry_sampler factories of the declarative configuration file: called with
nothing (as opentelemetry-configuration does today) they read their variables; given
properties (keywords or one mapping) they read those; they never raise, never 100%."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import Sampler

from dsampler import ConfigError, DSampler
from dsampler._declarative import (
    CONFIG_VARIABLE,
    RATIO_VARIABLE,
    _built,
    _consistent_properties,
    _written_properties,
    dsampler_consistent_plugin,
    dsampler_plugin,
    jaeger_remote_plugin,
    properties_of,
)
from dsampler._entry_points import DEFAULT_RATE, parse_sampler_properties
from dsampler.consistent import threshold_of
from dsampler.consistent._composite import CompositeSampler
from dsampler.engine import Engine
from dsampler.remote import JaegerRemoteSampler

QUIET_ENDPOINT = "http://127.0.0.1:9/sampling"  # the discard port: refused at once, on loopback


@pytest.fixture(autouse=True)
def no_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a test does not set is unset: the variables these factories read, and the
    one they must not."""
    for name in (CONFIG_VARIABLE, RATIO_VARIABLE, "OTEL_TRACES_SAMPLER_ARG", "OTEL_CONFIG_FILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def closing() -> Iterator[list[Sampler]]:
    """Samplers to close when the test ends (file watchers, pollers)."""
    made: list[Sampler] = []
    yield made
    for sampler in made:
        close = getattr(sampler, "close", None)
        if close is not None:
            close()


@pytest.mark.parametrize(
    ("args", "keywords", "expected"),
    [
        ((), {}, {}),
        ((None,), {}, {}),
        (({},), {}, {}),
        (({"rate": 0.5},), {}, {"rate": 0.5}),
        ((), {"rate": 0.5}, {"rate": 0.5}),
        (({"rate": 0.5},), {"hash": "xxh3"}, {"rate": 0.5, "hash": "xxh3"}),
    ],
)
def test_properties_come_as_keywords_or_one_mapping(
    args: tuple[object, ...], keywords: dict[str, object], expected: dict[str, object]
) -> None:
    assert properties_of(args, keywords) == expected


@pytest.mark.parametrize(
    ("args", "keywords", "field", "message"),
    [
        (({}, {}), {}, "properties", "expected one mapping, got 2 arguments"),
        (("rate=0.5",), {}, "properties", "expected a mapping, got str 'rate=0.5'"),
        (({"rate": 0.5},), {"rate": 0.25}, "rate", "given twice"),
        (({1: 0.5},), {}, "properties", "expected names, got int 1"),
        (({f"k{i}": i for i in range(65)},), {}, "properties", "expected at most 64, got 65"),
    ],
)
def test_anything_else_is_refused_naming_what(
    args: tuple[object, ...], keywords: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        properties_of(args, keywords)
    assert (info.value.field, info.value.problem) == (field, message)


def test_dsampler_with_nothing_set_is_the_default_rate_deciding_every_span(closing: list[Sampler]) -> None:
    """Today's call: no argument, no variable. OTEL_TRACES_SAMPLER_ARG is not read."""
    sampler = dsampler_plugin()
    closing.append(sampler)
    assert isinstance(sampler, DSampler)
    assert (sampler.config.rate, sampler.config.hash, sampler.config.parent_based) == (
        DEFAULT_RATE,
        "fnv1a",
        False,
    )


def test_dsampler_reads_the_file_dsampler_config_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closing: list[Sampler]
) -> None:
    """DSAMPLER_CONFIG: the file decides everything (parent_based too, default true),
    and is watched."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.25\nrules: [{match: {span_name: GET /healthz}, action: drop}]\n")
    monkeypatch.setenv(CONFIG_VARIABLE, f" {path} ")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "0.9")
    sampler = dsampler_plugin()
    closing.append(sampler)
    assert isinstance(sampler, DSampler)
    assert (sampler.config.rate, len(sampler.config.rules), sampler.config.parent_based) == (0.25, 1, True)
    assert sampler.watcher is not None


@pytest.mark.parametrize(
    ("args", "keywords"),
    [((), {"rate": 0.5, "hash": "xxh3", "sampler_tags": True}), (({"rate": 0.5, "hash": "xxh3"},), {})],
)
def test_dsampler_properties_win_over_the_variable(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    closing: list[Sampler],
    args: tuple[object, ...],
    keywords: dict[str, object],
) -> None:
    """A version that passes properties: they decide, and DSAMPLER_CONFIG is not read."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.25\n")
    monkeypatch.setenv(CONFIG_VARIABLE, str(path))
    sampler = dsampler_plugin(*args, **keywords)
    closing.append(sampler)
    assert isinstance(sampler, DSampler)
    assert (sampler.config.rate, sampler.config.hash) == (0.5, "xxh3")
    assert sampler.watcher is None


def test_dsampler_config_property_loads_the_file(tmp_path: Path, closing: list[Sampler]) -> None:
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.125\n")
    sampler = dsampler_plugin(config=str(path))
    closing.append(sampler)
    assert isinstance(sampler, DSampler)
    assert sampler.config.rate == 0.125


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"rate": 1.5}, "rate: expected a number in [0, 1], got 1.5"),
        ({"ratio": 0.5}, "ratio: unknown property"),
    ],
)
def test_dsampler_bad_properties_are_ignored_as_a_whole(
    keywords: dict[str, object], named: str, caplog: pytest.LogCaptureFixture, closing: list[Sampler]
) -> None:
    """One warning naming the property; the default rate, not 100%."""
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = dsampler_plugin(hash="xxh3", **keywords)
    closing.append(sampler)
    assert isinstance(sampler, DSampler)
    assert (sampler.config.rate, sampler.config.hash) == (DEFAULT_RATE, "fnv1a")
    (record,) = caplog.records
    assert "properties ignored for OTEL_CONFIG_FILE's dsampler sampler" in record.getMessage()
    assert named in record.getMessage()


@pytest.mark.parametrize("written", [True, False])
def test_dsampler_file_saying_parent_based_is_honoured(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    closing: list[Sampler],
    written: bool,
) -> None:
    """The dsampler file's parent_based: decides, either way; false with a drop rule is
    named once at WARNING (traces can lose spans), true says nothing."""
    path = tmp_path / "sampling.yaml"
    path.write_text(
        f"rate: 0.5\nparent_based: {str(written).lower()}\n"
        "rules: [{match: {span_name: x}, action: drop}]\n"
    )
    monkeypatch.setenv(CONFIG_VARIABLE, str(path))
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        sampler = dsampler_plugin()
    closing.append(sampler)
    assert isinstance(sampler, DSampler)
    assert sampler.config.parent_based is written
    messages = [record.getMessage() for record in caplog.records]
    if written:
        assert messages == []
    else:
        (message,) = messages
        assert message.startswith(f"dsampler: {path}: parent_based is false and it has rules: ")
        assert message.endswith(f"write parent_based: true in {path} to keep traces whole")


def test_consistent_with_nothing_set_is_the_default_ratio() -> None:
    sampler = dsampler_consistent_plugin()
    assert isinstance(sampler, CompositeSampler)
    assert sampler.get_description() == (
        "ComposableParentThreshold{root=ComposableTraceIDRatioBased{threshold=ffbe76c8b43958, ratio=0.001}}"
    )


def test_consistent_ratio_from_the_variable_writes_th_on_sampled_spans(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DSAMPLER_CONSISTENT_RATIO=0.25: th:c on every sampled root and child, through a
    real provider."""
    monkeypatch.setenv(RATIO_VARIABLE, " 0.25 ")
    provider = TracerProvider(sampler=dsampler_consistent_plugin())
    tracer = provider.get_tracer("test")
    sampled = 0
    for _ in range(400):
        with tracer.start_as_current_span("root") as root, tracer.start_as_current_span("child") as child:
            if root.get_span_context().trace_flags.sampled:
                sampled += 1
                assert threshold_of(root.get_span_context().trace_state) == 0xC << 52
                assert child.get_span_context().trace_state.get("ot") == "th:c"
            else:
                assert not child.get_span_context().trace_flags.sampled
    assert 100 - 4 * 8.7 <= sampled <= 100 + 4 * 8.7  # Binomial(400, 0.25)


def test_consistent_properties_and_precision() -> None:
    sampler = dsampler_consistent_plugin({"ratio": 0.1, "precision": 4})
    assert "threshold=e666, ratio=0.1" in sampler.get_description()


@pytest.mark.parametrize(
    ("variable", "keywords", "named"),
    [
        ("1.5", {}, "DSAMPLER_CONSISTENT_RATIO: expected a number in [0, 1], got '1.5'"),
        ("nan", {}, "DSAMPLER_CONSISTENT_RATIO: expected a number in [0, 1], got NaN"),
        ("a quarter", {}, "DSAMPLER_CONSISTENT_RATIO: expected a number in [0, 1], got 'a quarter'"),
        (None, {"ratio": 0.5, "precision": 15}, "precision: expected an integer in [1, 14], got 15"),
        (None, {"rate": 0.5}, "rate: unknown property; expected ratio or precision"),
    ],
)
def test_consistent_bad_input_is_logged_and_the_default_ratio_serves(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    variable: str | None,
    keywords: dict[str, object],
    named: str,
) -> None:
    if variable is not None:
        monkeypatch.setenv(RATIO_VARIABLE, variable)
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = dsampler_consistent_plugin(**keywords)
    assert "ratio=0.001}" in sampler.get_description()
    (record,) = caplog.records
    assert named in record.getMessage()
    assert "sampling at the ratio 0.001" in record.getMessage()


def test_jaeger_remote_with_nothing_set_polls_the_local_agent(
    monkeypatch: pytest.MonkeyPatch, closing: list[Sampler]
) -> None:
    """The specification's defaults; the service name from OTEL_SERVICE_NAME; every span
    decided by the strategy (the file's parent_based: wraps it for children)."""
    monkeypatch.setenv("OTEL_SERVICE_NAME", "checkout")
    sampler = jaeger_remote_plugin()
    closing.append(sampler)
    assert isinstance(sampler, JaegerRemoteSampler)
    assert (sampler.endpoint, sampler.service_name) == ("http://127.0.0.1:5778/sampling", "checkout")
    assert (sampler.poller.interval_s, sampler.config.rate, sampler.config.parent_based) == (
        60.0,
        0.001,
        False,
    )


def test_jaeger_remote_properties(closing: list[Sampler], caplog: pytest.LogCaptureFixture) -> None:
    """The file's jaeger_remote/development names; a bad one left out with one warning."""
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = jaeger_remote_plugin(
            {"endpoint": QUIET_ENDPOINT, "interval": 5000, "initial_sampler": {"always_on": {}}},
            bogus=1,
        )
    closing.append(sampler)
    assert isinstance(sampler, JaegerRemoteSampler)
    assert (sampler.endpoint, sampler.poller.interval_s, sampler.config.rate) == (QUIET_ENDPOINT, 5.0, 1.0)
    # The poller's thread may already have logged its refused first poll (dsampler.remote):
    # the plugin's own warning is the one under test.
    (record,) = [r for r in caplog.records if r.name == "dsampler.otel"]
    assert {r.name for r in caplog.records} <= {"dsampler.otel", "dsampler.remote"}
    assert "properties ignored for OTEL_CONFIG_FILE's jaeger_remote sampler: bogus: unknown property" in (
        record.getMessage()
    )


def test_a_sampler_that_cannot_be_built_becomes_an_engine_at_the_default_rate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken() -> Sampler:
        raise RuntimeError("no threads left")

    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        sampler = _built("OTEL_CONFIG_FILE's dsampler sampler", broken)
    assert isinstance(sampler, Engine)
    assert sampler.config.rate == DEFAULT_RATE
    assert "OTEL_CONFIG_FILE's dsampler sampler could not be built; sampling at 0.001" in caplog.text


class Hostile(dict[str, object]):
    """A mapping whose items raise: what a broken caller could hand over."""

    def items(self) -> Any:
        raise RuntimeError("no")

    def keys(self) -> Any:
        raise RuntimeError("no")


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
# no "config": a generated path would be watched wherever it points
NAMES = st.sampled_from(["rate", "hash", "sampler_tags", "ratio", "precision", "interval", "x"])
ARGS = st.lists(VALUES | st.dictionaries(NAMES, VALUES, max_size=4) | st.just(Hostile()), max_size=2)


def expected(
    parse: Callable[[dict[str, object]], Any], args: list[object], keywords: dict[str, object]
) -> Any:
    """What the properties ask for when they are valid, else None (the defaults)."""
    try:
        return parse(properties_of(tuple(args), keywords))
    except Exception:
        return None


@settings(max_examples=150, deadline=None)
@given(args=ARGS, keywords=st.dictionaries(NAMES, VALUES, max_size=4))
def test_the_factories_never_raise_and_serve_the_default_unless_asked(
    args: list[object], keywords: dict[str, object]
) -> None:
    """Whatever they are called with: a sampler, at the rate asked for when the
    properties are valid, else at the default rate (never 100% unasked)."""
    sampler = dsampler_plugin(*args, **keywords)
    asked = expected(lambda given: parse_sampler_properties(given) if given else None, args, keywords)
    assert isinstance(sampler, DSampler)
    assert sampler.config.rate == (asked.rate if asked else DEFAULT_RATE)
    sampler.close()
    consistent = dsampler_consistent_plugin(*args, **keywords)
    ratio = expected(lambda given: _consistent_properties(given)[0] if given else None, args, keywords)
    assert consistent.get_description().endswith(f"ratio={DEFAULT_RATE if ratio is None else ratio}}}}}")
    # jaeger_remote: never with a generated endpoint (no traffic off this machine)
    remote = jaeger_remote_plugin(*args, **{**keywords, "endpoint": QUIET_ENDPOINT})
    assert isinstance(remote, JaegerRemoteSampler)
    assert remote.endpoint in (QUIET_ENDPOINT, "http://127.0.0.1:5778/sampling")
    remote.close()


def otel_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sampler: str) -> Path:
    """A declarative file whose tracer provider's sampler is ``sampler``, named by
    OTEL_CONFIG_FILE."""
    path = tmp_path / "otel-config.yaml"
    path.write_text(
        'file_format: "1.0"\ntracer_provider:\n  processors: [{simple: {exporter: {console: {}}}}]\n'
        f"  sampler: {sampler}\n"
    )
    monkeypatch.setenv("OTEL_CONFIG_FILE", str(path))
    return path


@pytest.mark.parametrize(
    ("sampler", "expected"),
    [
        ("{dsampler: {rate: 0.25}}", {"rate": 0.25}),
        ("{dsampler: }", {}),
        ("{parent_based: {root: {dsampler: }, local_parent_sampled: {dsampler: {}}}}", {}),
        ("{always_on: {}}", None),
        (
            "{parent_based: {root: {dsampler: {rate: 0.5}}, local_parent_sampled: {dsampler: {rate: 0.5}}}}",
            {"rate": 0.5},
        ),
        ("{parent_based: {remote_parent_not_sampled: {dsampler_consistent: {ratio: 0.5}}}}", None),
    ],
)
def test_the_properties_written_in_otel_config_file_are_found_where_parent_based_puts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sampler: str, expected: object
) -> None:
    otel_config(tmp_path, monkeypatch, sampler)
    assert _written_properties("dsampler") == expected


def test_without_otel_config_file_nothing_is_read() -> None:
    assert _written_properties("dsampler") is None


@pytest.mark.parametrize(
    ("sampler", "problem"),
    [
        (
            "{parent_based: {root: {dsampler: {rate: 0.5}}, local_parent_sampled: {dsampler: {rate: 0.1}}}}",
            "dsampler: written 2 times with different properties, and the SDK does not say which "
            "one it builds",
        ),
        (None, "OTEL_CONFIG_FILE: cannot read"),
    ],
)
def test_properties_that_cannot_be_told_apart_or_read_are_named_and_the_default_serves(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    closing: list[Sampler],
    sampler: str | None,
    problem: str,
) -> None:
    """One WARNING naming the problem and the properties; the default rate, not 100%."""
    if sampler is None:
        monkeypatch.setenv("OTEL_CONFIG_FILE", str(tmp_path / "gone.yaml"))
    else:
        otel_config(tmp_path, monkeypatch, sampler)
    with caplog.at_level(logging.WARNING, logger="dsampler.otel"):
        made = dsampler_plugin()
    closing.append(made)
    assert isinstance(made, DSampler)
    assert made.config.rate == DEFAULT_RATE
    (record,) = caplog.records
    assert record.getMessage().startswith(
        "dsampler: the properties written under dsampler in OTEL_CONFIG_FILE ignored for "
        f"OTEL_CONFIG_FILE's dsampler sampler: {problem}"
    ), record.getMessage()


def test_properties_passed_by_the_sdk_are_taken_and_the_file_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closing: list[Sampler]
) -> None:
    """A version that passes the properties: those decide, whatever the file says."""
    otel_config(tmp_path, monkeypatch, "{dsampler: {rate: 0.25}}")
    made = dsampler_plugin(rate=0.5)
    closing.append(made)
    assert isinstance(made, DSampler)
    assert made.config.rate == 0.5
