"""Every code block of README.md and docs/*.md runs as written.

- ```python blocks run as a program in a fresh directory holding ``sampling.yaml`` (the
  README's configuration), ``app.py`` (a minimal application) and ``examples/`` (the
  repository's); exit 0 or the test fails.
- ```sh blocks run in bash (``set -euo pipefail``) in the same kind of directory, as a
  newcomer runs them: in a fresh virtualenv (one per test session, made by the
  :func:`fresh_venv` fixture with nothing but the README's install commands, run as
  written), first on PATH, in an environment with no ``OTEL_*`` variable, so a command
  that needs an exporter or a package must name it. ``pip install ARGS`` runs for real
  in that virtualenv, from the repository root (the clone the docs install from).
- ```text blocks run their ``$ command`` lines from the repository root and compare
  what follows, exactly, with what the command prints (stdout, then stderr).
- ```yaml blocks pass ``dsampler check`` (but Jaeger's and the Collector's configurations
  shown from ``examples/collectors/``, which ``make interop`` runs, and OpenTelemetry's
  declarative configuration files shown from ``examples/declarative/otel-*``, which
  tests/integration/test_declarative.py runs); ```json blocks parse.
- A block marked ``<!-- file: PATH -->`` on the line before it shows that repository
  file, exactly (another test runs the file: ``examples/prefork/`` under real servers).
- Any other language fails, as does a block with no way to run it: a block that truly
  cannot run here is marked ``<!-- not-run: why -->`` on the line before it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from dsampler.cli._main import main
from tests.conftest import PACKAGE, REPO

pytestmark = pytest.mark.slow

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
NOT_RUN = re.compile(r"^<!-- not-run: (\S.*?) -->$")
SHOWS_FILE = re.compile(r"^<!-- file: (\S+) -->$")
# Jaeger's, the Collector's and OpenTelemetry's declarative configurations, not dsampler's
ENGINE_CONFIGS = ("examples/collectors/", "examples/declarative/otel-")
SHELLS = {"sh", "bash", "shell", "console"}
LAUNCH = re.compile(r"opentelemetry-instrument python \S*app\.py")
BIN = Path(sys.executable).parent
# What the docs' `pip install .` installs from: the clone, or in the installed-wheel stage
# (.ci/installed.py), where REPO is a copy of the tests with no dsampler/, the unpacked sdist.
SOURCE = Path(os.environ.get("DSAMPLER_SOURCE", REPO))

APP = '''"""A minimal application for the docs' commands: one span, then what sampled it."""
from opentelemetry import trace

with trace.get_tracer("docs").start_as_current_span("GET /checkout"):
    pass
print("SAMPLER=" + trace.get_tracer_provider().sampler.get_description())
'''


def shell_prelude(venv: Path) -> str:
    """What every shell block runs first: the fresh virtualenv first on PATH (the system's
    directories after it, for bash's own tools), and ``pip install`` from the clone."""
    system = ":".join(d for d in ("/usr/local/bin", "/usr/bin", "/bin") if Path(d).is_dir())
    return f"""set -euo pipefail
export PATH={venv / "bin"}:{system}
pip() {{
    if [ "$1" != install ]; then echo "docs test: only pip install is supported" >&2; return 2; fi
    (cd {SOURCE} && command pip "$@" --quiet --disable-pip-version-check)
}}
"""


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    not_run: str | None  # the reason given by a not-run marker
    shows: str | None  # the repository file a file marker names

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}:{self.language or 'plain'}"


def blocks_of(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, language = opening.groups()
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        body = [line.removeprefix(indent) for line in lines[i + 1 : end]]
        before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker, shows = NOT_RUN.match(before), SHOWS_FILE.match(before)
        code = "\n".join(body) + "\n"
        found.append(Block(doc, i + 1, language, code, marker and marker[1], shows and shows[1]))
        i = end + 1
    return found


BLOCKS = [block for doc in DOCS for block in blocks_of(doc)]
RUNNABLE = [b for b in BLOCKS if b.not_run is None]


def readme_config() -> str:
    (config,) = [b.code for b in blocks_of(REPO / "README.md") if b.code.startswith("# sampling.yaml")]
    return config


def workdir(tmp_path: Path) -> Path:
    (tmp_path / "sampling.yaml").write_text(readme_config(), encoding="utf-8")
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "examples").symlink_to(REPO / "examples")  # paths as from the repository root
    return tmp_path


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(OTEL_TRACES_EXPORTER="none", OTEL_METRICS_EXPORTER="none", OTEL_LOGS_EXPORTER="none")
    return env


def run_python(block: Block, cwd: Path) -> None:
    (cwd / "block.py").write_text(block.code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "block.py"],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, f"{block.id} failed:\n{block.code}\n{proc.stdout}\n{proc.stderr}"


def newcomer_environment() -> dict[str, str]:
    """The test's environment without what a newcomer's shell would not have: no
    ``OTEL_*`` variable, no virtualenv or Python path of the test's own."""
    dropped = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTEST_CURRENT_TEST")
    return {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k not in dropped}


def run_shell(block: Block, cwd: Path, venv: Path) -> None:
    proc = subprocess.run(
        ["bash", "-c", shell_prelude(venv) + block.code],
        cwd=cwd,
        env=newcomer_environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{block.id} failed:\n{block.code}\n{output}"
    assert "does not provide the extra" not in output, f"{block.id}: an extra that does not exist\n{output}"
    assert "Traceback" not in output, f"{block.id}:\n{output}"
    assert "Couldn't recognize sampler" not in output, f"{block.id}:\n{output}"
    assert "Failed to auto initialize" not in output, f"{block.id}: the SDK was not configured\n{output}"
    launches = len(LAUNCH.findall(block.code))  # app.py, here or under examples/
    samplers = [line for line in proc.stdout.splitlines() if line.startswith("SAMPLER=")]
    assert len(samplers) == launches, f"{block.id}: app.py did not run\n{output}"
    fallback = [
        line
        for line in samplers
        if line.startswith(("SAMPLER=AlwaysOn", "SAMPLER=ParentBased{root:AlwaysOn"))
    ]
    assert not fallback, f"{block.id}: the SDK's fallback\n{output}"


def transcript(code: str) -> list[tuple[str, list[str]]]:
    """``$ command`` lines (with ``\\`` continuations) and the lines shown after each."""
    pairs: list[tuple[str, list[str]]] = []
    lines = code.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if not pairs:
                return []  # an output sample, not a transcript
            pairs[-1][1].append(lines[i])
            i += 1
            continue
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        pairs.append((command, []))
        i += 1
    return pairs


def _stable(lines: list[str]) -> list[str]:
    """The lines to compare: of ``dsampler check``'s ``hashing NAME: PATH`` lines, the
    name alone, since the path depends on what is installed (the ``jit`` extra or not)."""
    return [line.split(":", 1)[0] if line.startswith("hashing ") else line for line in lines if line]


def run_transcript(block: Block) -> bool:
    pairs = transcript(block.code)
    for command, shown in pairs:
        proc = subprocess.run(
            ["bash", "-c", f"export PATH={BIN}:$PATH; {command}"],
            cwd=REPO,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        printed = (proc.stdout + proc.stderr).splitlines()
        assert _stable(printed) == _stable(shown), f"{block.id}: `{command}` printed:\n{printed}"
    return bool(pairs)


def check_yaml(block: Block, cwd: Path) -> None:
    path = cwd / "block.yaml"
    path.write_text(block.code, encoding="utf-8")
    assert main(["check", str(path)]) == 0, f"{block.id} is not a valid configuration:\n{block.code}"


def install_block() -> Block:
    """The README's install commands: what a newcomer runs first."""
    (block,) = [
        b for b in blocks_of(REPO / "README.md") if b.language == "sh" and b.code.startswith("pip install -e")
    ]
    return block


@pytest.fixture(scope="session")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with nothing in it but what the README's install commands put there,
    run as written (about 20 s, once per session; every shell block then runs in it, one
    after another: under pytest-xdist, ``make test``'s ``--dist loadfile`` keeps this file
    on one worker)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is needed")
    venv = tmp_path_factory.mktemp("newcomer") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    run_shell(install_block(), workdir(tmp_path_factory.mktemp("install")), venv)
    return venv


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.id)
def test_code_block_runs_as_written(block: Block, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The block runs (or validates) exactly as a reader would copy it."""
    cwd = workdir(tmp_path)
    if block.shows is not None:
        # a file of the package is read from the package under test, which may be installed
        root = PACKAGE.parent if block.shows.startswith("dsampler/") else REPO
        shown = (root / block.shows).read_text(encoding="utf-8")
        assert block.code == shown, f"{block.id} differs from {block.shows}"
    if block.language == "python":
        run_python(block, cwd)
    elif block.language in SHELLS:
        venv = request.getfixturevalue("fresh_venv")  # made once, when first needed
        if block != install_block():  # which the fixture ran, as written, to make it
            run_shell(block, cwd, venv)
    elif block.language == "yaml" and not (block.shows or "").startswith(ENGINE_CONFIGS):
        check_yaml(block, cwd)
    elif block.language == "json":
        json.loads(block.code)
    elif block.shows is not None:
        pass  # shown as is; the file itself is run elsewhere
    elif block.language in {"text", ""}:
        run_transcript(block)  # an output sample without `$ ` lines has nothing to run
    else:
        pytest.fail(f"{block.id}: no runner for ```{block.language}; add one or mark the block not-run")


def test_the_docs_have_blocks_of_every_runnable_kind() -> None:
    """The collector sees the docs' blocks (a broken fence pattern would pass vacuously)."""
    languages = {b.language for b in RUNNABLE}
    assert {"python", "sh", "yaml", "text"} <= languages
    assert sum(b.language == "python" for b in RUNNABLE) >= 8
    assert any(transcript(b.code) for b in RUNNABLE if b.language == "text")


def test_not_run_markers_are_few_and_explained() -> None:
    """Every block skipped says why, and bare markers (which would not skip) are absent."""
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        bare = [line for line in text.splitlines() if "not-run" in line and not NOT_RUN.match(line.strip())]
        assert not [line for line in bare if line.strip().startswith("<!--")], f"{doc}: {bare}"
    assert len(BLOCKS) - len(RUNNABLE) <= 6


def test_transcripts_compare_every_line(tmp_path: Path) -> None:
    """A transcript whose shown output differs from what the command prints fails."""
    block = Block(
        REPO / "README.md", 1, "text", "$ dsampler check examples/configs/minimal.json\nwrong\n", None, None
    )
    with pytest.raises(AssertionError):
        run_transcript(block)


def test_the_shell_runner_fails_on_an_extra_that_does_not_exist(tmp_path: Path, fresh_venv: Path) -> None:
    """`pip install '.[yamll]'` is caught: pip only warns about unknown extras."""
    block = Block(REPO / "README.md", 1, "sh", "pip install -e '.[yaml,yamll]'\n", None, None)
    with pytest.raises(AssertionError, match="does not provide the extra"):
        run_shell(block, workdir(tmp_path), fresh_venv)


def test_the_shell_runner_is_a_newcomers_shell(tmp_path: Path, fresh_venv: Path) -> None:
    """The fresh virtualenv's python and dsampler come first, the test's own packages are
    not reachable, no OTEL_ variable is set: a zero-code command that does not name its
    exporter fails there, as it does for a newcomer (the distro's OTLP default)."""
    probe = (
        f'test "$(command -v python)" = {fresh_venv / "bin" / "python"}\n'
        "test -z \"$(env | grep '^OTEL_' || true)\"\n"
        "! python -c 'import pytest' 2>/dev/null\n"
        "dsampler --version\n"
    )
    (tmp_path / "probe").mkdir()
    run_shell(Block(REPO / "README.md", 1, "sh", probe, None, None), workdir(tmp_path / "probe"), fresh_venv)
    bare = (
        "pip install opentelemetry-distro\n"
        "OTEL_TRACES_SAMPLER=parentbased_dsampler opentelemetry-instrument python app.py\n"
    )
    (tmp_path / "bare").mkdir()
    with pytest.raises(AssertionError):
        run_shell(
            Block(REPO / "README.md", 1, "sh", bare, None, None), workdir(tmp_path / "bare"), fresh_venv
        )


def test_the_logger_table_lists_the_loggers_the_code_uses() -> None:
    """docs/user-guide.md's logger table names exactly the loggers dsampler creates."""
    used = set()
    for path in PACKAGE.rglob("*.py"):
        used |= set(re.findall(r'getLogger\("(dsampler[\w.]*)"\)', path.read_text(encoding="utf-8")))
    guide = (REPO / "docs" / "user-guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Logging") :]
    documented = set(re.findall(r"^\| `(dsampler[\w.]*)` \|", section, flags=re.M))
    assert used
    assert documented == used
