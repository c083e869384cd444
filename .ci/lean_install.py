"""The lean install, the installed-wheel stage's first check (installed.py): the wheel
alone, no extra, in a fresh virtualenv, as `pip install dsampler` gives it.

- dsampler and its dependencies take less than 40 MiB of site-packages (counted as du
  counts, pip's own files aside) and bring no numba, llvmlite or numpy;
- the requirements resolve for musllinux_1_2_x86_64 (Alpine) from binary wheels only;
- the install decides the golden vectors (golden_decisions.py, run by its own python).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIMIT_MIB = 40
HEAVY = {"numba", "llvmlite", "numpy"}
MUSL = "musllinux_1_2_x86_64"
NAMES = (
    "import importlib.metadata as m; print(*sorted({d.metadata['Name'].lower() for d in m.distributions()}))"
)
PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"


def output(argv: list[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


def disk_bytes(folder: Path) -> int:
    """What du counts: the blocks of every file under folder."""
    return sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def installs_lean(python: str, root: Path, wheel: Path) -> list[str]:
    """Install the bare wheel into a fresh virtualenv under root; the problems found."""
    venv = root / "lean"
    subprocess.run([python, "-m", "venv", "--upgrade-deps", str(venv)], check=True)
    inside = str(venv / "bin" / "python")
    site = Path(output([inside, "-c", PURELIB]))
    before, pip_names = disk_bytes(site), set(output([inside, "-c", NAMES]).split())
    subprocess.run(
        [inside, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)], check=True
    )
    added = disk_bytes(site) - before
    names = set(output([inside, "-c", NAMES]).split()) - pip_names
    print(
        f"lean install: {added / 2**20:.1f} MiB of site-packages for {len(names)} distributions:",
        *sorted(names),
    )
    problems = []
    if added >= LIMIT_MIB * 2**20:
        problems.append(
            f"the bare wheel's site-packages is {added / 2**20:.1f} MiB, not under {LIMIT_MIB} MiB"
        )
    if names & HEAVY:
        problems.append(f"the bare wheel brings {sorted(names & HEAVY)}")
    return problems


def resolves_for_musl(python: str, root: Path, wheel: Path) -> list[str]:
    """pip download for musllinux, binaries only: the problems found."""
    version = output([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    dest = root / "musl"
    argv = [python, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--only-binary=:all:"]
    argv += ["--platform", MUSL, "--python-version", version, "--dest", str(dest), str(wheel)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return [f"the bare wheel does not resolve for {MUSL} with binaries only:\n{proc.stderr.strip()}"]
    wheels = sorted(p.name for p in dest.iterdir())
    print(f"lean install: resolves for {MUSL}, Python {version}, binaries only:", *wheels)
    return []


def check(python: str, root: Path, wheel: Path, vectors: Path) -> list[str]:
    """The lean install's problems (none: it passed); prints what it measured."""
    started = time.monotonic()
    problems = installs_lean(python, root, wheel) + resolves_for_musl(python, root, wheel)
    decide = [str(root / "lean" / "bin" / "python"), str(HERE / "golden_decisions.py"), str(vectors)]
    proc = subprocess.run(decide, cwd=root, capture_output=True, text=True, check=False)
    print(proc.stdout.strip())
    if proc.returncode != 0:
        problems.append(f"the bare install decides wrong or fails:\n{proc.stderr.strip()}")
    print(f"lean install: checked in {time.monotonic() - started:.0f} s")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit("usage: lean_install.py PYTHON ROOT WHEEL VECTORS_DIR")
    root, wheel, vectors = (Path(a).resolve() for a in sys.argv[2:])
    found = check(sys.argv[1], root, wheel, vectors)
    print(*found, sep="\n", file=sys.stderr)
    sys.exit(1 if found else 0)
