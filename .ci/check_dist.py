"""make dist's checks: the release files hold what they should, and the sdist builds the
wheel the tree builds.

usage: check_dist.py DIST_DIR TREE_WHEEL_DIR

DIST_DIR holds the sdist and the wheel `python -m build` made from that sdist;
TREE_WHEEL_DIR the wheel `python -m build --wheel` made from the tree. Checked:

- the two wheels hold the same files with the same bytes (a user building from the sdist
  gets what the project tested);
- both are of the version dsampler/_version.py states (its one source);
- the wheel's dsampler/ holds exactly the files git tracks there (package data included,
  caches and strays not), and the sdist exactly the files git tracks (what the README and
  docs refer to is in it); skipped, saying so, outside a git checkout.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def version() -> str:
    """The version dsampler/_version.py assigns, read without importing the package."""
    tree = ast.parse((ROOT / "dsampler" / "_version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["__version__"]:
            return str(ast.literal_eval(node.value))
    raise SystemExit("dsampler/_version.py assigns no __version__")


def one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"{folder}: expected one {pattern}, found {[p.name for p in found]}")
    return found[0]


def wheel_contents(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as wheel:
        return {name: wheel.read(name) for name in wheel.namelist()}


def sdist_names(path: Path) -> set[str]:
    with tarfile.open(path) as sdist:
        names = {m.name.split("/", 1)[1] for m in sdist.getmembers() if m.isfile()}
    return names - {"PKG-INFO"}


def tracked() -> set[str] | None:
    """The files git tracks, or None outside a git checkout."""
    proc = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False)
    return set(proc.stdout.splitlines()) if proc.returncode == 0 else None


def same_files(label: str, found: set[str], expected: set[str]) -> list[str]:
    problems = []
    if found - expected:
        problems.append(f"{label}: ships files git does not track: {sorted(found - expected)}")
    if expected - found:
        problems.append(f"{label}: lacks files git tracks: {sorted(expected - found)}")
    return problems


def main(dist: Path, from_tree: Path) -> int:
    expected = version()
    sdist, wheel = one(dist, "*.tar.gz"), one(dist, "*.whl")
    tree_wheel = one(from_tree, "*.whl")
    problems = [
        f"{p.name}: not version {expected} (dsampler/_version.py)"
        for p in (sdist, wheel, tree_wheel)
        if not p.name.startswith(f"dsampler-{expected}")
    ]
    built, reference = wheel_contents(wheel), wheel_contents(tree_wheel)
    if built != reference:
        differ = sorted(n for n in built.keys() & reference.keys() if built[n] != reference[n])
        problems.append(
            f"the wheel from the sdist differs from the wheel from the tree: only in the sdist's "
            f"{sorted(built.keys() - reference.keys())}, only in the tree's "
            f"{sorted(reference.keys() - built.keys())}, other bytes {differ}"
        )
    files = tracked()
    if files is None:
        print("check_dist: not a git checkout: the file lists were not compared with git's")
    else:
        package = {n for n in built if n.startswith("dsampler/")}
        problems += same_files(wheel.name, package, {f for f in files if f.startswith("dsampler/")})
        problems += same_files(sdist.name, sdist_names(sdist), files | {"pyproject.toml"})
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    if not problems:
        identical = wheel.read_bytes() == tree_wheel.read_bytes()
        print(
            f"check_dist: {sdist.name} and {wheel.name} ({len(built)} files) are version {expected}; "
            f"the wheel from the sdist equals the wheel from the tree, file by file"
            f"{' and byte for byte' if identical else ''}; the sdist and the package hold what git tracks"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
