"""The licence a user reads is the one the package declares."""

from __future__ import annotations

import re

from tests.conftest import REPO


def test_license_file_is_the_full_apache_2_text() -> None:
    """LICENSE holds the whole Apache License 2.0: title, all nine sections, the appendix."""
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "9. Accepting Warranty or Additional Liability." in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert "APPENDIX: How to apply the Apache License to your work." in text
    assert len(text.split()) > 1500  # the full text, not a notice


def test_pyproject_declares_apache_2_and_ships_the_file() -> None:
    """pyproject says Apache-2.0 (SPDX) and lists LICENSE among its license files."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib on Python 3.10
    project = text[text.index("[project]") : text.index("\n[", text.index("[project]"))]
    assert re.search(r'^license = "Apache-2.0"$', project, flags=re.M)
    assert re.search(r'^license-files = \["LICENSE"\]$', project, flags=re.M)
