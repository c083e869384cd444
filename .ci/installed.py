"""The installed-wheel stage (make test-installed, in .ci/run): dsampler tested as users
install it.

usage: installed.py DIST_DIR [--full-bare X.Y] [--full-jit X.Y] [--only X.Y,...] [--keep]

DIST_DIR holds the sdist and the wheel make dist built. In a temporary directory outside
the clone:

1. the lean install (lean_install.py): the wheel alone, no extra, its size, what it
   brings, musllinux, the golden decisions;
2. for every CPython the wheel's classifiers claim, one fresh virtualenv: the wheel
   (never -e) with the test requirements (the dev extra, under constraints.txt). The
   whole suite runs once each way: without numba on --full-bare (default 3.13), with the
   jit extra added on --full-jit (default 3.12); every other Python runs the fast suite
   (-m "not slow") once, the first without numba, the next with the jit extra, and so on.
   The benchmarks' smoke run (benchmarks/test_scripts.py: the repository's scripts, not
   the package) is make test's alone.

The tests run from the unpacked sdist with its dsampler/ taken out, so only the installed
package can be imported (tests/conftest.py checks that it is the one installed). A
claimed Python that cannot be found is skipped with a line saying which and why; if none
is found the stage fails. Each step prints its time; a table of the runs ends the stage.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from subprocess import PIPE, STDOUT

import lean_install

ROOT = Path(__file__).resolve().parents[1]
PIP = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
CLEAN = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
PROBE = "import platform, sys; print(platform.python_implementation(), '%d.%d' % sys.version_info[:2])"
RUN_TIMEOUT_S = 40 * 60


@dataclass
class Run:
    python: str
    jit: bool
    full: bool
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    result: str = "not run"
    ok: bool = False

    def __str__(self) -> str:
        way = "with the jit extra" if self.jit else "without numba     "
        suite = "whole suite" if self.full else "fast suite "
        took = f"{minutes(self.seconds):>9} (CPU {minutes(self.cpu_seconds)})"
        return f"Python {self.python} {way} {suite} {took}  {self.result}"


def one(folder: Path, pattern: str) -> Path:
    (found,) = folder.glob(pattern)
    return found


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def cpu_seconds() -> float:
    """The CPU time of this process's children so far (each waited for, with theirs)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def claimed_pythons(wheel: Path) -> list[str]:
    """The X.Y of each 'Programming Language :: Python :: X.Y' classifier of the wheel."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(name).decode()
    found = re.findall(r"^Classifier: Programming Language :: Python :: (3\.\d+)$", text, flags=re.M)
    return sorted(found, key=lambda v: int(v.split(".")[1]))


def pyenv_versions() -> Path:
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    return Path(root) / "versions"


def find_python(version: str) -> tuple[str | None, str]:
    """CPython X.Y: python3.Y on PATH, else pyenv's newest X.Y.Z; else None and why."""
    candidates = [shutil.which(f"python{version}") or ""]
    installed = [p for p in pyenv_versions().glob(f"{version}.*") if re.fullmatch(r"\d+\.\d+\.\d+", p.name)]
    candidates += [str(p / "bin" / f"python{version}") for p in sorted(installed, reverse=True)]
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", PROBE], capture_output=True, text=True, check=False)
        if probe.stdout.split() == ["CPython", version]:
            return candidate, ""
    return None, f"no working python{version} on PATH, and none under {pyenv_versions()}/{version}.*"


def unpack(sdist: Path, root: Path) -> tuple[Path, Path]:
    """The sdist unpacked (the source tree) and a copy of it without dsampler/ (the tests')."""
    with tarfile.open(sdist) as archive:
        archive.extractall(root / "sdist", filter="data")
    (source,) = (root / "sdist").iterdir()
    tests = root / "tests"
    shutil.copytree(source, tests, ignore=lambda folder, _: ["dsampler"] if Path(folder) == source else [])
    return source, tests


def environment(venv: Path, source: Path) -> dict[str, str]:
    """The tests' environment: the virtualenv first on PATH, as activated, and told what
    it tests (tests/conftest.py) and where the docs' `pip install .` installs from."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", lean_install.PURELIB], capture_output=True, text=True, check=True
    ).stdout.strip()
    env.update(DSAMPLER_TESTED_PACKAGE=str(Path(site) / "dsampler"), DSAMPLER_SOURCE=str(source))
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def importable(python: str, *names: str) -> list[str]:
    """Which of the named top-level modules the virtualenv's python can import."""
    code = "import importlib.util as u, sys; print(*[n for n in sys.argv[1:] if u.find_spec(n)])"
    return subprocess.run(
        [python, "-c", code, *names], capture_output=True, text=True, check=True
    ).stdout.split()


def run_tests(run: Run, python: str, tests: Path, env: dict[str, str]) -> None:
    """pytest from the tests' copy, as make test runs it; the run's time and last line."""
    argv = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", "--dist", "loadfile"]
    argv += ([] if run.full else ["-m", "not slow"]) + ["tests"]
    print(f"\n=== {run}: {' '.join(argv[1:])}", flush=True)
    started, cpu, last = time.monotonic(), cpu_seconds(), ""
    with subprocess.Popen(
        argv, cwd=tests, env=env, stdout=PIPE, stderr=STDOUT, text=True, start_new_session=True
    ) as proc:
        watchdog = threading.Timer(RUN_TIMEOUT_S, os.killpg, (proc.pid, signal.SIGKILL))
        watchdog.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            last = line.strip() or last
        code = proc.wait()
        if not watchdog.is_alive():
            last = f"killed after {minutes(RUN_TIMEOUT_S)}, with its workers"
        watchdog.cancel()
    run.seconds, run.cpu_seconds = time.monotonic() - started, cpu_seconds() - cpu
    run.result, run.ok = last.strip("= "), code == 0
    print(f"=== {run}", flush=True)


def run_one_python(
    version: str, python: str, root: Path, dist: tuple[Path, Path, Path], runs: list[Run]
) -> None:
    """A fresh virtualenv: the wheel and the test requirements without numba, the tests
    (if this Python has a run without numba); the jit extra added (or installed with the
    rest, where there is no run without numba), the tests again (if it has a run with it)."""
    wheel, source, tests = dist
    venv, constraints = root / f"py{version}", ["-c", str(source / "constraints.txt")]
    inside = str(venv / "bin" / "python")
    mine = [r for r in runs if r.python == version]
    bare, jit = (next((r for r in mine if r.jit == j), None) for j in (False, True))
    extras = "dev" if bare is not None else "dev,jit"
    started = time.monotonic()
    subprocess.run([python, "-m", "venv", "--upgrade-deps", str(venv)], check=True)
    subprocess.run([inside, *PIP, *constraints, f"{wheel}[{extras}]"], check=True)
    print(
        f"Python {version}: {wheel.name}[{extras}] installed in {minutes(time.monotonic() - started)}",
        flush=True,
    )
    env = environment(venv, source)
    heavy = importable(inside, "numba", "llvmlite")
    if bare is not None and heavy:
        bare.result = f"{' and '.join(heavy)} installed by the wheel or the dev extra: no run without numba"
    elif bare is not None:
        run_tests(bare, inside, tests, env)
    if jit is None:
        return
    if bare is not None:
        started = time.monotonic()
        subprocess.run([inside, *PIP, *constraints, f"{wheel}[dev,jit]"], check=True)
        print(f"Python {version}: the jit extra added in {minutes(time.monotonic() - started)}", flush=True)
    if importable(inside, "numba"):
        run_tests(jit, inside, tests, env)
    else:
        jit.result = "the jit extra installed no numba"


def plan(found: list[str], full_bare: str, full_jit: str) -> list[Run]:
    """One run per Python found (two where only one is): the whole suite once each way,
    where asked if found, else on the newest (without numba) and the oldest (with the jit
    extra); each other Python runs the fast suite, alternately with and without numba, so
    that the stage stays within CI's time."""
    bare_full = full_bare if full_bare in found else found[-1]
    jit_full = full_jit if full_jit in found else found[0]
    if bare_full == jit_full:
        return [Run(bare_full, False, True), Run(jit_full, True, True)]
    others = [v for v in found if v not in (bare_full, jit_full)]
    runs = [Run(v, k % 2 == 1, False) for k, v in enumerate(others)]
    runs += [Run(bare_full, False, True), Run(jit_full, True, True)]
    return sorted(runs, key=lambda r: found.index(r.python))


def report(runs: list[Run], lean: list[str], skipped: list[str], seconds: float) -> int:
    print("\n=== the installed-wheel stage")
    for line in [*map(str, runs), *skipped, *lean]:
        print(line)
    ok = all(r.ok for r in runs) and not lean
    verdict = "passed" if ok else "FAILED"
    print(f"installed-wheel stage {verdict} in {minutes(seconds)} (CPU {minutes(cpu_seconds())})")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path)
    parser.add_argument("--full-bare", default="3.13")
    parser.add_argument("--full-jit", default="3.12")
    parser.add_argument(
        "--only", help="X.Y,...: of the claimed Pythons, test these alone (a developer's loop)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    started = time.monotonic()
    wheel, sdist = one(args.dist, "*.whl"), one(args.dist, "*.tar.gz")
    pythons, skipped = {}, []
    for version in claimed_pythons(wheel):
        pythons[version], why = find_python(version)
        if args.only and version not in args.only.split(","):
            pythons[version], why = None, "not among --only's"
        if why:
            skipped.append(f"SKIPPED: Python {version}, which the wheel claims, is not tested here: {why}")
            print(skipped[-1], file=sys.stderr, flush=True)
    found = [v for v, p in pythons.items() if p]
    if not found:
        print(f"installed-wheel stage FAILED: none of {sorted(pythons)} was found", file=sys.stderr)
        return 1
    root = Path(tempfile.mkdtemp(prefix="dsampler-installed-"))
    assert ROOT not in root.parents, f"{root} is inside the clone"
    try:
        source, tests = unpack(sdist, root)
        lean_python = pythons.get("3.12") or pythons[found[-1]]
        lean = lean_install.check(str(lean_python), root, wheel, source / "tests" / "data" / "vectors")
        runs = plan(found, args.full_bare, args.full_jit)
        for version in found:
            run_one_python(version, str(pythons[version]), root, (wheel, source, tests), runs)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return report(runs, lean, skipped, time.monotonic() - started)


if __name__ == "__main__":
    sys.exit(main())
