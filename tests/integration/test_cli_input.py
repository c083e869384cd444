"""The dsampler command under hostile use: closed pipes, standard input, the
environment's resource and a W3C parent, through real subprocesses and real pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsampler.cli._check import locate
from dsampler.errors import ConfigError
from tests.conftest import REPO

pytestmark = pytest.mark.slow

CHECKOUT = "examples/configs/checkout.yaml"
MINIMAL = "examples/configs/minimal.json"
TRACE = "0af7651916cd43dd8448eb211c80319c"


def run(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "dsampler", *args],
        cwd=REPO,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=120,
        check=False,
        env=full_env,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def closed_pipe_status(*args: str) -> int:
    """Exit status of `dsampler ARGS` whose stdout and stderr are a pipe nobody reads:
    the read end is closed before the process starts, so every write meets EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "dsampler", *args],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=write_end,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    return proc.returncode


# -- check: the exit status is the validation's, whatever happens to the output ------------


def test_check_of_a_bad_file_into_a_closed_pipe_exits_2() -> None:
    """`dsampler check bad.yaml` whose reader is gone still exits 2 (it exited 0)."""
    assert closed_pipe_status("check", "tests/data/broken/bad-values.yaml") == 2


def test_check_of_good_files_into_a_closed_pipe_exits_0() -> None:
    """Valid files whose OK lines cannot be written still exit 0, not 1 or 120."""
    assert closed_pipe_status("check", MINIMAL, CHECKOUT) == 0


def test_check_piped_into_head_exits_with_the_validation_status() -> None:
    """`dsampler check <2,000 good files> bad.yaml | head -1`: head leaves after one
    line, the remaining 2,000 lines meet a closed pipe, and the status is still 2."""
    files = " ".join([MINIMAL] * 2000)
    script = f"{sys.executable} -m dsampler check {files} tests/data/broken/typo.yaml 2>&1 | head -1"
    script += "; exit ${PIPESTATUS[0]}"
    proc = subprocess.run(
        ["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout.startswith(f"{MINIMAL}: OK: ")
    assert proc.stderr == ""  # no "Exception ignored ... BrokenPipeError"


def test_explain_into_a_closed_pipe_keeps_its_status() -> None:
    """explain's exit status is its own (0, or 2 for a bad argument) with no reader."""
    args = ["explain", "--config", CHECKOUT, "--name", "x"]
    assert closed_pipe_status(*args, "--trace-id", TRACE) == 0
    assert closed_pipe_status(*args, "--trace-id", "nothex") == 2


# -- check -: standard input ---------------------------------------------------------------


def test_check_dash_reads_yaml_from_stdin() -> None:
    """`dsampler check -` validates the YAML on standard input and names it <stdin>."""
    proc = run("check", "-", stdin=(REPO / CHECKOUT).read_bytes())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("<stdin>: OK: rate 0.05 (fnv1a), parent-based on, 4 rules")


def test_check_dash_reads_json_from_stdin_beside_files() -> None:
    """JSON on stdin is read too, and `-` mixes with file names in order."""
    proc = run("check", MINIMAL, "-", stdin=b'{"rate": 0.25}')
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stdout.splitlines()[1]
        == "<stdin>: OK: rate 0.25 (fnv1a), parent-based on, 0 rules, 0 operations, cap none"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "<stdin>: the file is empty"),
        (b"rate: 2\n", "<stdin>: rate: expected a number in [0, 1], got 2"),
        (b"rate: '0.1'\n", "<stdin>: rate: expected a number in [0, 1], got str '0.1'"),
        (b"rate: [0.1\n", "<stdin>: invalid YAML at line 2 column 1"),
        (b"\xff\xfe\x00garbage", "<stdin>: not UTF-8 text"),
        (b"- 1\n- 2\n", "<stdin>: expected a mapping at the top level, got list of 2"),
        (b"#" * (2 << 20), "<stdin>: document is larger than 1048576 bytes"),
    ],
    ids=["empty", "out-of-range", "wrong-type", "truncated", "binary", "list", "oversized"],
)
def test_check_dash_refuses_bad_stdin_naming_it(data: bytes, message: str) -> None:
    """Empty, invalid, wrongly typed, truncated, binary and 2 MiB inputs exit 2 with one
    line naming <stdin>."""
    proc = run("check", "-", stdin=data)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"dsampler check: {message}"), proc.stderr
    assert proc.stdout == ""


def test_check_dash_twice_is_refused() -> None:
    """Standard input can be read once: `check - -` exits 2 saying so."""
    proc = run("check", "-", "-", stdin=b"rate: 0.1\n")
    assert proc.returncode == 2
    assert "<stdin>: given more than once" in proc.stderr


def test_check_dash_with_stdin_closed_exits_2() -> None:
    """A process started with no standard input at all is told so, exit 2."""
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m dsampler check - <&-"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("dsampler check: <stdin>: cannot read standard input"), proc.stderr


# -- check: each problem names its file once ----------------------------------------------


def test_a_truncated_yaml_file_names_its_path_once(tmp_path: Path) -> None:
    """The YAML error of a truncated file gives the path once, then line and column."""
    path = tmp_path / "cut.yaml"
    path.write_text('rate: 0.1\nrules:\n  - match: {span_name: "GET /', encoding="utf-8")
    proc = run("check", str(path))
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.count(str(path)) == 1
    assert line.startswith(f"dsampler check: {path}: invalid YAML at line 3")


@pytest.mark.parametrize(
    ("problem", "expected"),
    [
        (ConfigError("f.yaml", "the file is empty"), "f.yaml: the file is empty"),
        (ConfigError("rate", "expected a number"), "f.yaml: rate: expected a number"),
        (ConfigError("f.yaml", "f.yaml: invalid YAML at line 3"), "f.yaml: invalid YAML at line 3"),
        (ConfigError("", "invalid YAML"), "f.yaml: invalid YAML"),
    ],
)
def test_locate_names_the_file_once(problem: ConfigError, expected: str) -> None:
    """File-level problems, field problems and texts repeating the path print it once."""
    assert locate("f.yaml", problem) == expected


# -- explain: the environment's resource, and a W3C parent ---------------------------------

EXPLAIN = ["explain", "--config", CHECKOUT, "--trace-id", TRACE, "--name", "GET /"]
CANARY = "decided by: rules[3] (canary of the new version)"


def test_explain_reads_otel_resource_attributes() -> None:
    """OTEL_RESOURCE_ATTRIBUTES selects the canary rule, as in the running application."""
    env = {"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=canary,service.version=2.4.1"}
    assert CANARY in run(*EXPLAIN, env=env).stdout
    assert CANARY not in run(*EXPLAIN).stdout


def test_explain_resource_option_overrides_the_environment() -> None:
    """--resource wins over OTEL_RESOURCE_ATTRIBUTES for the same key, as
    Resource.create(attributes) does; other keys still come from the environment."""
    env = {"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=canary,service.version=2.4.1"}
    assert CANARY not in run(*EXPLAIN, "--resource", "service.version=1.9", env=env).stdout
    assert CANARY in run(*EXPLAIN, "--resource", "service.version=2.0", env=env).stdout


def test_explain_with_malformed_otel_resource_attributes_decides_as_the_app() -> None:
    """A malformed variable is skipped by the SDK (with its warning), so explain still
    answers, exit 0, from the pairs the SDK could read."""
    env = {"OTEL_RESOURCE_ATTRIBUTES": "garbage,deployment.environment=canary,service.version=2.1"}
    proc = run(*EXPLAIN, env=env)
    assert proc.returncode == 0, proc.stderr
    assert CANARY in proc.stdout


PARENT = f"00-{TRACE}-00f067aa0ba902b7"


def test_explain_follows_a_sampled_and_an_unsampled_parent() -> None:
    """Under parent_based: true the decision is the parent's flag, whatever the rules."""
    base = ["explain", "--config", CHECKOUT, "--name", "GET /healthz", "--kind", "server"]
    sampled = run(*base, "--traceparent", PARENT + "-01")
    assert sampled.returncode == 0, sampled.stderr
    assert "decided by: the parent (parent_based: true; config version 1)" in sampled.stdout
    assert "decision:   RECORD_AND_SAMPLE" in sampled.stdout
    dropped = run(*base, "--traceparent", PARENT + "-00")
    assert "decision:   DROP" in dropped.stdout
    assert f"trace id:   {TRACE}" in dropped.stdout


def test_explain_ignores_the_parent_when_not_parent_based(tmp_path: Path) -> None:
    """With parent_based: false a sampled parent is reported and not followed."""
    config = tmp_path / "c.yaml"
    config.write_text("rate: 0.0\nparent_based: false\n", encoding="utf-8")
    proc = run("explain", "--config", str(config), "--name", "x", "--traceparent", PARENT + "-01")
    assert proc.returncode == 0, proc.stderr
    assert "not followed (parent_based: false)" in proc.stdout
    assert "decided by: default" in proc.stdout
    assert "decision:   DROP" in proc.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            [],
            "--trace-id: needed: default rate samples at rate 0.05 by a hash of the trace ID; "
            "give --trace-id HEX or --traceparent HEADER",
        ),
        (["--traceparent", "garbage"], "--traceparent: expected version-traceid-parentid-flags"),
        (["--traceparent", PARENT.upper() + "-01"], "--traceparent: trace-id: expected 32 lowercase"),
        (["--traceparent", f"00-{TRACE}-{'0' * 16}-01"], "--traceparent: parent-id: all zeros"),
        (["--traceparent", PARENT + "-1"], "--traceparent: flags: expected 2 lowercase hex digits"),
        (["--traceparent", PARENT + "-01" + "x" * 100_000], "--traceparent: expected at most 512"),
        (["--traceparent", PARENT + "-01", "--trace-id", "1"], "--trace-id: differs from the trace-id"),
        (["--trace-id", "f" * 100_000], "--trace-id: expected 1 to 32 hex digits"),
        (["--trace-id", TRACE, "--resource", "=v"], "--resource: expected key=value, got '=v'"),
        (["--trace-id", TRACE, "--kind", "3"], "--kind: expected one of internal"),
    ],
    ids=[
        "no-id",
        "garbage",
        "uppercase",
        "zero-parent",
        "short-flags",
        "oversized",
        "both",
        "long-id",
        "bad-resource",
        "wrong-kind",
    ],
)
def test_explain_refuses_bad_parents_and_ids_naming_the_option(extra: list[str], message: str) -> None:
    """Missing, malformed, oversized, conflicting and wrongly typed inputs exit 2 with
    one short line naming the option."""
    proc = run("explain", "--config", CHECKOUT, "--name", "x", *extra)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"dsampler explain: {message}"), proc.stderr
    assert len(proc.stderr) < 300


@pytest.mark.parametrize(
    ("span", "decision"),
    [
        (["--name", "GET /healthz", "--kind", "server"], "decision:   DROP (the rule drops every match)"),
        (["--name", "GET /", "--attr", "tenant=acme"], "decision:   RECORD_AND_SAMPLE"),
        (
            ["--name", "process a.batch", "--kind", "consumer"],
            "decision:   RECORD_AND_SAMPLE while its token",
        ),
    ],
    ids=["drop-rule", "rate-1", "rate-limit"],
)
def test_explain_needs_no_trace_id_where_the_decision_does_not_hash_one(
    span: list[str], decision: str
) -> None:
    """A drop rule, a rate of 1 and a rate limit are explained without --trace-id, saying
    that none is needed; no hash or bound of a made-up trace ID is shown."""
    proc = run("explain", "--config", CHECKOUT, *span)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "trace id:   none given; this decision does not depend on one"
    assert any(line.startswith(decision) for line in lines), lines
    assert not [line for line in lines if line.startswith(("hash:", "bound:"))]


def test_explain_words_every_decision_as_opentelemetry_does() -> None:
    """Every decision line starts with RECORD_AND_SAMPLE or DROP, for a rate, a drop
    rule, a rate limit and a parent."""
    cases = [
        ["--trace-id", TRACE, "--name", "GET /checkout"],
        ["--trace-id", TRACE, "--name", "GET /healthz", "--kind", "server"],
        ["--trace-id", TRACE, "--name", "process a.batch", "--kind", "consumer"],
        ["--trace-id", TRACE, "--name", "GET /", "--attr", "tenant=acme"],
        ["--traceparent", PARENT + "-01", "--name", "GET /"],
    ]
    for extra in cases:
        proc = run("explain", "--config", CHECKOUT, *extra)
        (decision,) = [line for line in proc.stdout.splitlines() if line.startswith("decision:")]
        assert decision.split()[1] in {"RECORD_AND_SAMPLE", "DROP"}, decision


def test_check_of_more_than_64_mib_of_files_is_refused_at_once_in_one_line(tmp_path: Path) -> None:
    """65 files of 1 MiB (sparse: no disk written): a minute or more of parsing, refused
    before any file is read, naming the way past; --no-limit checks each (here each one
    is 1 MiB of NUL bytes, refused as invalid YAML)."""
    names = []
    for i in range(65):
        path = tmp_path / f"config-{i}.yaml"
        with path.open("wb") as handle:
            handle.truncate(1 << 20)
        names.append(str(path))
    out = subprocess.run(
        [sys.executable, "-m", "dsampler", "check", *names],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "dsampler check: expected at most 64 MiB of files to check at once (about a minute), got 65.0 MiB "
        "in 65 files; check fewer at once, or --no-limit to check them all"
    ]
    assert out.stdout == ""
    out = subprocess.run(
        [sys.executable, "-m", "dsampler", "check", "--no-limit", *names[:3], *names[:62]],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert len(lines) == 65
    assert all(line.startswith("dsampler check: ") and "control characters" in line for line in lines)


def test_a_control_character_in_yaml_is_one_line_naming_where() -> None:
    """PyYAML's own text for it is two lines, the second 'in "<unicode string>", position N'."""
    out = subprocess.run(
        [sys.executable, "-m", "dsampler", "check", "-"],
        input=b"rate: 0.1\nx: \x01y\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.decode().splitlines() == [
        "dsampler check: <stdin>: invalid YAML at line 2 column 4: unacceptable character #x0001: "
        "control characters are not allowed"
    ]
