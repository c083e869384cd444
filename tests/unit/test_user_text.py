"""What users read names only what they can read too: no reference, in the package (code,
docstrings, CLI output, plot labels), docs/, the README or the examples, to documents the
repository does not ship (the design brief, the white paper as "the seed", research notes,
the shared folder, their section numbers). A figure is named by what it is: "D-Sampler
(Go) reports 0.27%", "dsampler's target"."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import PACKAGE, REPO

INTERNAL = re.compile(
    r"(?-i:(?<!docs/)DESIGN\.md)|\bthe seed\b|\bseed's\b|seed §|research notes?\b|"
    r"shared/(research|vectors|fixtures)|\.\./shared|/work/|§",
    re.IGNORECASE,
)
TEXT_SUFFIXES = {".py", ".md", ".txt", ".yaml", ".yml", ".json", ".ini", ".toml", ".cfg", ""}


def _user_facing() -> list[Path]:
    files = [REPO / "README.md", REPO / "CHANGELOG.md"]
    for folder in (PACKAGE, REPO / "docs", REPO / "examples"):
        files += [p for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix in TEXT_SUFFIXES]
    return [p for p in files if "__pycache__" not in p.parts]


def test_no_user_facing_text_cites_an_unshipped_document() -> None:
    files = _user_facing()
    assert len(files) > 100  # the walk found the package, the docs and the examples
    found = [
        f"{path}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INTERNAL.search(line)
    ]
    assert found == []


def test_the_pattern_finds_what_it_is_for() -> None:
    """Each kind of reference, as it was written before, is caught; ordinary uses of
    "seed" (a random seed, --seed, over the seeds) are not."""
    for line in [
        "The seed reports a 0.27% mean absolute error",
        "(the seed's MAE)",
        "Health policy (seed §4.4, all configurable)",
        "follows DESIGN.md's dual-factor law",
        "(A.5 of the research note: retry at the next tick)",
        "(research note, `shared/research/adaptive.md` §2)",
        "the golden vectors in `shared/vectors/fnv1a64.json`",
    ]:
        assert INTERNAL.search(line), line
    for line in ["random seed (default 0)", "each on 10 seeds, the largest over the seeds", "--seed 3"]:
        assert not INTERNAL.search(line), line
