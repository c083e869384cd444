"""The dsampler command: check and explain, through the real entry points."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dsampler import DSampler, RatioSampler
from dsampler.cli._main import main
from tests.conftest import REPO

pytestmark = pytest.mark.slow

BROKEN = sorted((REPO / "tests" / "data" / "broken").iterdir())
EXAMPLES = sorted((REPO / "examples" / "configs").iterdir())
DOC = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dsampler", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_reads_a_jaeger_strategies_file_as_serve_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Jaeger strategies file is checked as Jaeger's (not refused for dsampler's
    unknown keys): its summary, the warnings serve would log, and its refusals named by
    field and line, exit 2."""
    assert main(["check", "examples/fleet/strategies.json"]) == 0
    captured = capsys.readouterr()
    assert (
        captured.out
        == "examples/fleet/strategies.json: OK: Jaeger strategies: default probabilistic 0.1; 2 services\n"
    )
    assert captured.err == ""
    warned = tmp_path / "warned.json"
    warned.write_text('{"service_strategies": [{"service": "a", "type": "ratelimiting", "param": 0.5}]}')
    assert main(["check", str(warned)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{warned}: OK: Jaeger strategies: default probabilistic 0.001; 1 service\n"
    assert captured.err.startswith(
        f"dsampler check: {warned}: warning: service_strategies[0].param: 0.5 traces"
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"default_strategy": {"type": "probabilistic",\n "param": 2}}')
    assert main(["check", str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"dsampler check: {bad}: default_strategy.param: expected a number in [0, 1], got 2 (line 2)\n"
    )


def test_every_example_passes_check() -> None:
    """All configs in examples/ are valid: exit 0, one OK line each."""
    proc = run("check", *(str(p.relative_to(REPO)) for p in EXAMPLES))
    assert proc.returncode == 0, proc.stderr
    assert len([line for line in proc.stdout.splitlines() if ": OK: " in line]) == len(EXAMPLES)


def _documented_lines() -> list[str]:
    (block,) = [b for b in re.findall(r"```text\n(.*?)```", DOC, flags=re.S) if "tests/data/broken/" in b]
    return [line for line in block.strip().splitlines() if line]


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.name)
def test_broken_files_give_the_documented_messages(path: Path) -> None:
    """Each broken file exits 2 with exactly the lines docs/configuration.md shows."""
    relative = str(path.relative_to(REPO))
    proc = run("check", relative)
    assert proc.returncode == 2
    expected = [line for line in _documented_lines() if line.startswith(f"dsampler check: {relative}:")]
    assert expected, f"{relative} is not documented"
    assert proc.stderr.splitlines() == expected
    assert proc.stdout == ""


def test_every_broken_file_is_documented_and_every_documented_file_exists() -> None:
    """The documented list and tests/data/broken/ are the same set of files."""
    documented = {line.split(": ", 2)[1] for line in _documented_lines()}
    assert documented == {str(p.relative_to(REPO)) for p in BROKEN}


def test_mixed_valid_and_broken_files_exit_2_and_report_both() -> None:
    """A valid file still gets its OK line when another fails."""
    proc = run("check", "examples/configs/minimal.json", "tests/data/broken/typo.yaml", "missing.yaml")
    assert proc.returncode == 2
    assert "examples/configs/minimal.json: OK:" in proc.stdout
    assert "missing.yaml: cannot read the file: No such file or directory" in proc.stderr


def test_yaml_blocks_in_the_docs_are_valid_configs(tmp_path: Path) -> None:
    """Every ```yaml block of docs/configuration.md passes dsampler check."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOC, flags=re.S)
    assert len(blocks) >= 4
    paths = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"doc-{i}.yaml"
        path.write_text(block, encoding="utf-8")
        paths.append(str(path))
    assert main(["check", *paths]) == 0


def test_explain_matches_the_sampler() -> None:
    """explain's decision, hash and bound are the ones DSampler and RatioSampler use."""
    trace = 0x4BF92F3577B34DA6A3CE929D0E0E4736
    proc = run(
        "explain",
        "--config",
        "examples/configs/checkout.yaml",
        "--trace-id",
        f"{trace:x}",
        "--name",
        "GET /checkout",
        "--kind",
        "server",
    )
    assert proc.returncode == 0, proc.stderr
    out = dict(line.split(":", 1) for line in proc.stdout.splitlines())
    assert out["decided by"].strip() == "operations['GET /checkout'] (config version 1)"
    sampler = DSampler.from_file(REPO / "examples" / "configs" / "checkout.yaml", watch=False, resource={})
    decision = sampler.should_sample(None, trace, "GET /checkout").decision.name
    assert out["decision"].strip() == decision
    assert out["bound"].strip().startswith(f"0x{RatioSampler(0.5).bound:016x}")


def test_explain_with_attributes_and_resource() -> None:
    """--attr picks the tenant rule; --resource enables the canary rollout rule."""
    args = [
        "explain",
        "--config",
        "examples/configs/checkout.yaml",
        "--trace-id",
        "0af7651916cd43dd8448eb211c80319c",
    ]
    tenant = run(*args, "--name", "GET /", "--attr", "tenant=acme")
    assert "decided by: rules[1] (tenant under investigation)" in tenant.stdout
    assert "decision:   RECORD_AND_SAMPLE" in tenant.stdout
    canary = run(
        *args,
        "--name",
        "GET /",
        "--resource",
        "deployment.environment=canary",
        "--resource",
        "service.version=2.4.1",
    )
    assert "decided by: rules[3] (canary of the new version)" in canary.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--trace-id", "xyz"], "--trace-id: expected 1 to 32 hex digits, got 'xyz'"),
        (["--trace-id", "1" * 33], "--trace-id: expected 1 to 32 hex digits"),
        (["--trace-id", "1", "--kind", "sideways"], "--kind: expected one of internal, server"),
        (["--trace-id", "1", "--attr", "novalue"], "--attr: expected key=value, got 'novalue'"),
        (["--trace-id", "1", "--config", "tests/data/broken/typo.yaml"], "parent_base: unknown key"),
    ],
)
def test_explain_bad_arguments_exit_2_naming_the_option(extra: list[str], message: str) -> None:
    """Malformed trace IDs, kinds, attributes and configs are reported, exit 2."""
    base = {"--config": "examples/configs/minimal.json", "--name": "x"}
    args = ["explain"]
    for flag, value in base.items():
        if flag not in extra:
            args += [flag, value]
    proc = run(*args, *extra)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_console_script_and_version() -> None:
    """The installed `dsampler` script runs, and --version answers."""
    script = Path(sys.executable).parent / "dsampler"
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.startswith("dsampler ")


def test_an_internal_error_exits_1_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug in a command is reported in one line with exit code 1, not a traceback."""
    from dsampler.cli import _check as check

    def broken(args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(check, "run", broken)
    assert main(["check", "whatever.yaml"]) == 1
    assert capsys.readouterr().err == "dsampler check: internal error: RuntimeError: boom\n"


def test_check_says_which_path_hashes_each_scheme_and_why(tmp_path: Path) -> None:
    """After the OK lines, one line per scheme the files name: the path that would hash
    it in this environment and why (here the JIT disabled by DSAMPLER_JIT=0)."""
    (tmp_path / "a.json").write_text('{"hash": "xxh3"}', encoding="utf-8")
    (tmp_path / "b.json").write_text('{"hash": "fnv1a"}', encoding="utf-8")
    (tmp_path / "c.json").write_text('{"hash": "otel", "rate": 0.5}', encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "dsampler", "check", "a.json", "b.json", "c.json", "b.json"],
        cwd=tmp_path,
        env={**os.environ, "DSAMPLER_JIT": "0"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[4:] == [
        "hashing xxh3: C (the xxhash library), no JIT",
        "hashing fnv1a: pure Python: disabled by DSAMPLER_JIT=0",
        "hashing otel: Python integer operations, no JIT needed",
    ]
