"""The typed keywords of the public constructors and ``update()``: mypy --strict refuses
a misspelt or wrong-typed keyword and accepts right ones; the keys are the fields they
stand for; at run time the messages are as before; typing_extensions is for type
checkers only."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dsampler import AdaptiveController, ConfigError, DSampler, ManualClock
from dsampler.config import AdaptiveSettings, SamplingConfig
from dsampler.config._keywords import AdaptiveChanges, AdaptiveKeywords, SettingsKeywords
from dsampler.config._model import ConfigFields
from dsampler.config._parse import FIELDS
from tests.conftest import PACKAGE, REPO

CHECKING = ("TYPE_CHECKING", "typing.TYPE_CHECKING")

# Each line marked `# wrong: TEXT` must draw a mypy error containing TEXT; no other
# line may draw one.
CALLS = """\
from typing import Any

from dsampler import AdaptiveController, DSampler, JaegerRemoteSampler, PerOperationSampler
from dsampler.config import HealthPolicy, SamplingConfig

DSampler(rulez=[])  # wrong: Unexpected keyword argument "rulez"
DSampler(rate="0.2")  # wrong: Argument "rate" to "DSampler" has incompatible type "str"
DSampler(parent_based=1)  # wrong: has incompatible type "int"; expected "bool"
DSampler.from_file("sampling.yaml", rat=0.1)  # wrong: Unexpected keyword argument "rat"
DSampler.from_file("sampling.yaml", traces_per_second="5")  # wrong: incompatible type "str"
sampler = DSampler(
    rate=0.2,
    hash="xxh3",
    traces_per_second=None,
    operations={"checkout": 1.0, "search": {"rate": 0.1, "lower_bound_per_second": 1}},
    rules=[{"match": {"span_name": "GET /healthz"}, "action": "drop"}],
    adaptive={"target_traces_per_second": 50, "window": "5s"},
)
DSampler.from_file("sampling.yaml", strict=False, rate=0.5, remote=None)
sampler.update(rate=0.02, max_operations=100)
sampler.update(rat=0.02)  # wrong: Unexpected keyword argument "rat"
sampler.update(rules="drop")  # wrong: Argument "rules" to "update" of "DSampler" has incompatible type
settings: dict[str, Any] = {"rate": 0.1}
DSampler(**settings)
remote = JaegerRemoteSampler("svc", start=False)
remote.engine.update(rate=0.5)
remote.engine.update(rate="0.5")  # wrong: Argument "rate" to "update" of "Engine" has incompatible
AdaptiveController(50, window_s=5, health=HealthPolicy(), start=False)
AdaptiveController(50, window=5)  # wrong: Unexpected keyword argument "window"
AdaptiveController(50, tick_s="0.1")  # wrong: Argument "tick_s" to "AdaptiveController" has incompatible
controller = AdaptiveController(50, health=None, start=False)
controller.reconfigure(target_traces_per_second=80, p99_target_s=0.1)
controller.reconfigure(target="80")  # wrong: Unexpected keyword argument "target"
PerOperationSampler({"a": 0.5, "b": {"rate": 0.1}}, default_rate=0.01)
PerOperationSampler({"a": "0.5"})  # wrong: Dict entry 0 has incompatible type "str": "str"
SamplingConfig().evolve(rate=0.5, rules=(), version=3)
SamplingConfig().evolve(rules=[{"action": "drop"}])  # wrong: List item 0 has incompatible type
"""


def wanted(text: str) -> dict[int, str]:
    marks = (re.search(r"# wrong: (.*)$", line) for line in text.splitlines())
    return {n: m.group(1) for n, m in enumerate(marks, 1) if m}


@pytest.mark.slow
def test_mypy_reports_each_wrong_keyword_and_accepts_the_right_ones(tmp_path: Path) -> None:
    """mypy --strict (the project's settings, Python 3.10) on a file of calls: one error
    on each line marked wrong, naming the keyword or its type, and none elsewhere."""
    calls = tmp_path / "calls.py"
    calls.write_text(CALLS)
    command = [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml")]
    command += ["--cache-dir", str(tmp_path / "cache"), "--no-error-summary", "--hide-error-context"]
    command.append(str(calls))
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    errors: dict[int, list[str]] = {}
    for line in proc.stdout.splitlines():
        found = re.match(rf"{re.escape(str(calls))}:(\d+): error: (.*)", line)
        assert found is not None or ": note: " in line, line
        if found:
            errors.setdefault(int(found.group(1)), []).append(found.group(2))
    expected = wanted(CALLS)
    assert sorted(errors) == sorted(expected), proc.stdout
    for number, text in expected.items():
        assert any(text in message for message in errors[number]), (number, errors[number])
    assert proc.returncode == 1


def test_the_keywords_are_the_fields() -> None:
    """SettingsKeywords: the top-level keys update() and the file take; ConfigFields:
    SamplingConfig's fields (evolve()); AdaptiveChanges:
    AdaptiveSettings' fields, and AdaptiveKeywords the same but the target."""
    assert set(SettingsKeywords.__annotations__) == set(FIELDS)
    assert set(ConfigFields.__annotations__) == {f.name for f in dataclasses.fields(SamplingConfig)}
    adaptive = {f.name for f in dataclasses.fields(AdaptiveSettings)}
    assert set(AdaptiveChanges.__annotations__) | set(AdaptiveKeywords.__annotations__) == adaptive
    assert set(AdaptiveKeywords.__annotations__) == adaptive - {"target_traces_per_second"}


def test_at_run_time_the_messages_are_as_before() -> None:
    """Typed or not, a misspelt key is a ConfigError naming it with a suggestion, and a
    wrong type names the field and what it got."""
    with pytest.raises(ConfigError, match=r"rulez: unknown key; did you mean 'rules'\?"):
        DSampler(rulez=[])  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=r"^rate: expected a number in \[0, 1\], got str '0.2'$"):
        DSampler(rate="0.2")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"window: unknown key; did you mean 'window_s'\?"):
        AdaptiveController(50, window=5, clock=ManualClock())  # type: ignore[call-arg]


def test_typing_extensions_is_imported_for_type_checkers_only() -> None:
    """It is no dependency of dsampler: every import of it sits under TYPE_CHECKING."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        guarded = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and ast.unparse(block.test) in CHECKING
            for node in ast.walk(block)
        }
        for node in ast.walk(tree):
            names = [node.module] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if any((name or "").split(".")[0] == "typing_extensions" for name in names):
                assert id(node) in guarded, f"{path.relative_to(PACKAGE)}:{node.lineno}"
