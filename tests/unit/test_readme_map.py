"""The README's map of the tree ("What is here") matches the tree: a row for every
package of the library and every top-level folder a contributor opens, and no row for
a path that is gone."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

# The repository's tree, which the installed-wheel stage's copy of the tests has without
# dsampler/: make test checks it.
pytestmark = pytest.mark.skipif(not (REPO / "dsampler").is_dir(), reason="no source tree beside the tests")

ROW = re.compile(r"^\| `([^`]+)` \|", re.MULTILINE)
FOLDERS = ("tests/", "benchmarks/", "interop/", "docs/", "examples/")


def _rows() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## What is here", 1)[1].split("\n## ", 1)[0]
    return ROW.findall(section)


def test_every_package_and_folder_has_a_row() -> None:
    packages = sorted(
        f"{path.parent.relative_to(REPO)}/" for path in (REPO / "dsampler").glob("*/__init__.py")
    )
    assert sorted({*packages, "dsampler/", *FOLDERS} - set(_rows())) == []


def test_every_row_names_a_path_that_exists() -> None:
    rows = _rows()
    assert len(rows) > 10
    assert [row for row in rows if not (REPO / row).exists()] == []
