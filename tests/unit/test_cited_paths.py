"""What the docs, the README and the code's docstrings and comments cite exists: every
repository path (``dsampler/config/_store.py``, ``docs/adaptive.md``) and every dsampler
name they point a reader to (``:class:`~dsampler.config.SamplingConfig```,
``dsampler.adaptive._tap``). A rename that leaves a reference behind fails here."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

# The repository's tree, which the installed-wheel stage's copy of the tests has without
# dsampler/: make test checks it.
pytestmark = pytest.mark.skipif(not (REPO / "dsampler").is_dir(), reason="no source tree beside the tests")

#: A repository path: a top-level folder of the repository, then more of the path; not
#: part of a longer path (``/etc/dsampler/...``, ``opentelemetry-sdk/tests/...``).
PATH = re.compile(r"(?<![\w./-])(?:dsampler|tests|docs|benchmarks|examples|interop|\.ci)/[\w./*-]*[\w*]")
#: A name in a docstring's cross-reference role, or any dotted name through a private module.
ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj):`~?(dsampler(?:\.\w+)*)`")
PRIVATE = re.compile(r"(?<![\w.])(dsampler(?:\.\w+)*\._\w+(?:\.\w+)*)")
#: Paths of other projects, cited as theirs, and names made up on purpose.
ELSEWHERE = {
    "tests/test_sampler.py",  # jaeger-client-python's own suite, run against dsampler
    "dsampler.telemetry._probe",  # the architecture test's own probe of its checks
}


def _texts() -> Iterator[tuple[Path, str]]:
    yield REPO / "README.md", (REPO / "README.md").read_text(encoding="utf-8")
    for folder, suffix in (("docs", ".md"), ("dsampler", ".py"), ("tests", ".py"), ("benchmarks", ".py")):
        for path in sorted((REPO / folder).rglob(f"*{suffix}")):
            if "__pycache__" not in path.parts and path != Path(__file__):  # its probes are made up
                yield path, path.read_text(encoding="utf-8")
    for folder in ("examples", "interop"):
        for path in sorted((REPO / folder).rglob("*")):
            skipped = {"__pycache__", "node_modules"} & set(path.parts)
            if path.suffix in {".py", ".md"} and not skipped:
                yield path, path.read_text(encoding="utf-8")


def _exists(cited: str) -> bool:
    """A repository path, a glob of paths (``otel-*``) or the prefix of one (``otel-``)."""
    pattern = cited if cited.endswith("*") else cited + "*"
    return (REPO / cited).exists() or any(REPO.glob(pattern.replace("**", "*")))


def _resolves(name: str) -> bool:
    """``name`` is a dsampler module, or an attribute reached from one (a class's
    instance attribute counts when its class sets it)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for j, part in enumerate(parts[i:]):
            if hasattr(found, part):
                found = getattr(found, part)
            elif isinstance(found, type) and j == len(parts) - i - 1:
                return _sets(found, part)
            else:
                return False
        return True
    return False


def _sets(cls: type, attribute: str) -> bool:
    """``cls`` (or a base) assigns ``self.<attribute>`` or declares it in its slots."""
    import inspect

    for klass in cls.__mro__:
        if attribute in getattr(klass, "__slots__", ()) or attribute in getattr(klass, "__annotations__", {}):
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"self\.{attribute}\s*(:[^=]*)?=", source):
            return True
    return False


def _citations() -> tuple[list[str], list[str]]:
    paths, names = [], []
    for path, text in _texts():
        where = path.relative_to(REPO)
        for number, line in enumerate(text.splitlines(), 1):
            for cited in PATH.findall(line):
                if cited not in ELSEWHERE and not _exists(cited):
                    paths.append(f"{where}:{number}: {cited}")
            for cited in ROLE.findall(line) + PRIVATE.findall(line):
                if cited not in ELSEWHERE and not _resolves(cited):
                    names.append(f"{where}:{number}: {cited}")
    return paths, names


CITED = _citations()


def test_every_cited_path_exists() -> None:
    assert CITED[0] == []


def test_every_cited_dsampler_name_exists() -> None:
    assert CITED[1] == []


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("see `dsampler/config/_store.py` and docs/a.md.", ["dsampler/config/_store.py", "docs/a.md"]),
        ("config=/etc/dsampler/sampling.yaml", []),
        ("opentelemetry-sdk/tests/trace/test_x.py", []),
        ("(tests/data/README.md)", ["tests/data/README.md"]),
        ("shown from ``examples/declarative/otel-*``, which", ["examples/declarative/otel-*"]),
    ],
)
def test_the_path_pattern_finds_repository_paths_only(line: str, found: list[str]) -> None:
    assert PATH.findall(line) == found


def test_the_name_check_can_fail() -> None:
    assert _resolves("dsampler.config.SamplingConfig")
    assert _resolves("dsampler.DSampler.update")
    assert not _resolves("dsampler.config._no_such_module")
    assert not _resolves("dsampler.DSampler.no_such_method")
    assert ROLE.findall(":class:`~dsampler.config.SamplingConfig`") == ["dsampler.config.SamplingConfig"]
