"""What the package declares: its licence, its version (one source, the changelog's
newest), its requirements, Project-URLs, classifiers and long description.

Read from the installed distribution's metadata, so the installed-wheel stage
(.ci/installed.py) checks the wheel's, and make test the editable install's.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from typing import Any

from packaging.requirements import Requirement
from packaging.version import Version

import dsampler
from tests.conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest needs tomli there
    import tomli as tomllib


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


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements() -> list[Requirement]:
    return [Requirement(text) for text in metadata.requires("dsampler") or []]


def test_the_version_has_one_source() -> None:
    """pyproject.toml names no version of its own: the metadata reads dsampler/_version.py,
    so the installed distribution's version is the package's, a MAJOR.MINOR.PATCH."""
    project = _pyproject()
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"] == {"path": "dsampler/_version.py"}
    assert metadata.version("dsampler") == dsampler.__version__
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", dsampler.__version__)


def test_the_changelog_heads_with_unreleased_then_this_version() -> None:
    """CHANGELOG.md: an Unreleased section first, then the releases newest first, the
    newest being the version the package says it is."""
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.M)
    assert headings[0] == ("Unreleased", "")
    releases = [tuple(int(n) for n in version.split(".")) for version, _ in headings[1:]]
    assert headings[1][0] == dsampler.__version__
    assert releases == sorted(releases, reverse=True)
    assert all(date for _, date in headings[1:])


def test_a_bare_install_brings_the_sdk_and_xxhash_and_nothing_heavier() -> None:
    """The distribution's own requirements (no extra): the OpenTelemetry API and SDK and
    xxhash. numba, llvmlite and numpy come with the jit extra only."""
    bare = {r.name.lower() for r in _requirements() if "extra" not in str(r.marker)}
    assert bare == {"opentelemetry-api", "opentelemetry-sdk", "xxhash"}
    jit = {r.name.lower() for r in _requirements() if r.marker and r.marker.evaluate({"extra": "jit"})}
    assert "numba" in jit


def test_no_requirement_pins_a_pre_release() -> None:
    """No requirement, of the package or of an extra, holds to one pre-release: the
    toolchain's pins live in constraints.txt, which only the Makefile reads."""
    for requirement in _requirements():
        for spec in requirement.specifier:
            assert not (spec.operator in {"==", "==="} and Version(spec.version).is_prerelease), requirement


def test_the_project_urls_lead_to_files_that_ship() -> None:
    """No host is known, so each Project-URL is a path in the repository (and the sdist),
    its #anchor a heading of that file."""
    urls = dict(entry.split(", ", 1) for entry in metadata.metadata("dsampler").get_all("Project-URL") or [])
    assert set(urls) == {"Documentation", "Changelog", "Source", "Issues"}
    for target in urls.values():
        path, _, anchor = target.partition("#")
        assert (REPO / path).is_file(), target
        headings = re.findall(r"^#+ (.+)$", (REPO / path).read_text(encoding="utf-8"), flags=re.M)
        slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
        assert not anchor or anchor in slugs, target


def test_the_classifiers_name_each_python_that_is_tested() -> None:
    """One classifier per supported CPython, 3.10 to 3.13, as requires-python says, and
    the interpreter running this among them."""
    classifiers = metadata.metadata("dsampler").get_all("Classifier") or []
    versions = {c.rsplit(" :: ", 1)[1] for c in classifiers if re.fullmatch(r".*Python :: 3\.\d+", c)}
    assert versions == {"3.10", "3.11", "3.12", "3.13"}
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in versions
    assert "Programming Language :: Python :: Implementation :: CPython" in classifiers
    assert metadata.metadata("dsampler")["Requires-Python"] == ">=3.10"


def test_the_long_description_reads_off_the_repository() -> None:
    """The long description is the README with nothing that resolves only inside the
    repository: no relative link or image, no HTML comment; the paths stay, as text."""
    description = metadata.metadata("dsampler").get_payload()  # type: ignore[attr-defined]
    assert isinstance(description, str)
    assert description.startswith("# dsampler\n")
    assert re.findall(r"\]\((?![a-z]+://)[^)]*\)", description) == []
    assert "<!--" not in description
    assert "(`docs/user-guide.md`)" in description
