"""The tree is the architecture: imports point down the layers, nothing imports in a
circle, a package uses another through its face (its ``__init__``) and never touches
its underscore attributes, and modules and functions stay small. docs/design.md
draws the same layers."""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PACKAGE

#: Bottom to top; a unit may import its own layer's units (without a circle) and those below.
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer)
    for layer in (
        (
            "errors",
            "clock",
            "_validate",
            "_fork",
            "_held",
            "_lazy",
            "_log",
            "_poller",
            "_version",
        ),
        ("hashing",),
        ("config",),
        ("decision", "protocol"),
        ("consistent",),
        ("engine",),
        ("telemetry",),
        ("samplers",),
        ("adaptive", "remote"),
        ("serve", "jaeger"),
        ("_dsampler",),
        ("_entry_points", "_instrument", "_declarative"),
        ("",),  # the package's own face, dsampler/__init__.py
        ("cli",),  # the command line and its tools (bench, demo, simulate), beside the library
        ("__main__",),
    )
)
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 40


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES: dict[str, ast.Module] = {name: ast.parse(path.read_text()) for name, path in MODULES.items()}


def _unit(module: str) -> str:
    """The layered unit a module belongs to: its top-level package or module under dsampler."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _owner(module: str) -> str:
    """The top-level package that owns a module: ``""`` for the root package's own modules
    (its face, the ground and the composition)."""
    unit = _unit(module)
    return unit if (PACKAGE / unit).is_dir() else ""


def _package(module: str) -> str:
    """The package that holds a module (a package's __init__ is its own)."""
    path = MODULES[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve(target: str) -> str | None:
    """The module an import names (a name imported from a package is the package's face)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def _imports(module: str) -> Iterator[tuple[str, int]]:
    """Every dsampler module ``module`` imports, at any depth (lazy, TYPE_CHECKING), and
    the modules a package face maps its lazy names to."""
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "dsampler":
            for alias in node.names:
                found = _resolve(f"{node.module}.{alias.name}")
                if found is not None:
                    yield found, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "dsampler" and (found := _resolve(alias.name)):
                    yield found, node.lineno
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in MODULES
            and node.value.startswith("dsampler.")
            and MODULES[module].name == "__init__.py"
        ):
            yield node.value, node.lineno  # a lazy face's name -> module map


EDGES: dict[str, set[str]] = {m: {t for t, _ in _imports(m) if t != m} for m in MODULES}


def _layer(unit: str) -> int:
    for i, layer in enumerate(LAYERS):
        if unit in layer:
            return i
    raise AssertionError(f"dsampler.{unit} is in no layer of LAYERS: place it")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = itertools.count()

    def visit(v: str) -> None:
        index[v] = low[v] = next(counter)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_unit_has_a_layer() -> None:
    """A new package or top-level module is placed in the layers on purpose."""
    for module in MODULES:
        _layer(_unit(module))


def test_no_module_imports_in_a_circle() -> None:
    assert _cycles(EDGES) == []


def test_no_package_imports_in_a_circle() -> None:
    """Packages of one layer may use each other in one direction only."""
    packages: dict[str, set[str]] = defaultdict(set)
    for module, targets in EDGES.items():
        for target in targets:
            if _unit(module) != _unit(target):
                packages[_unit(module)].add(_unit(target))
    assert _cycles(packages) == []


def test_imports_point_down_the_layers() -> None:
    upward = [
        f"{module}:{line} imports {target}"
        for module in MODULES
        for target, line in _imports(module)
        if _layer(_unit(target)) > _layer(_unit(module))
    ]
    assert upward == []


def test_the_library_never_imports_the_command_line() -> None:
    """The tools (``dsampler.cli`` with bench, demo and simulate) sit beside the library:
    they import it, it never imports them."""
    found = [
        f"{module}:{line} imports {target}"
        for module in MODULES
        if _unit(module) not in ("cli", "__main__")
        for target, line in _imports(module)
        if _unit(target) == "cli"
    ]
    assert found == []


def _face_bypasses(module: str) -> Iterator[str]:
    """Imports (at any depth, ``TYPE_CHECKING`` and a face's lazy names included) of
    another package's underscore module: another package is used through its face. The
    ground modules are their own faces; the composition modules (``_dsampler`` and the
    entry points) are the root package's own, used by others through ``dsampler``."""
    for target, line in _imports(module):
        if _owner(target) == _owner(module) or _unit(target) in LAYERS[0]:
            continue
        if any(part.startswith("_") for part in target.split(".")[1:]):
            yield f"{module}:{line} imports {target}"


def test_packages_use_each_other_through_their_faces() -> None:
    found = [bypass for module in MODULES for bypass in _face_bypasses(module)]
    assert found == []


def _defined_private_names(package: str) -> set[str]:
    """Underscore names a package defines: attributes it assigns, slots, functions,
    classes and module globals of its modules."""
    names: set[str] = set()
    for module, tree in TREES.items():
        if _package(module) != package:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif (
                isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("_")
            ):
                names.add(node.value)  # __slots__ entries
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


PACKAGES = sorted({_package(m) for m in MODULES})
PRIVATE: dict[str, set[str]] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_accesses(module: str) -> Iterator[str]:
    """Reads of an underscore name that another dsampler package defines and this
    module's package does not (``self._store`` in a subclass counts: it is the base
    class's); underscore names imported from another package. Names no dsampler package
    defines (``namedtuple._replace``) are other libraries' public API."""
    if not PRIVATE:
        PRIVATE.update({package: _defined_private_names(package) for package in PACKAGES})
    package = _package(module)
    own = PRIVATE[package]
    elsewhere = set().union(*(names for p, names in PRIVATE.items() if p != package))
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and f"{package}.{node.attr}" in MODULES:
                continue  # a submodule of its own package
            if node.attr not in own and node.attr in elsewhere:
                yield f"{module}:{node.lineno} reads .{node.attr}"
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dsampler"):
            source = _resolve(node.module)
            for alias in node.names:
                foreign = source is not None and _package(source) != package
                if _private(alias.name) and f"{node.module}.{alias.name}" not in MODULES and foreign:
                    yield f"{module}:{node.lineno} imports {alias.name} from {node.module}"


def test_no_package_touches_another_packages_underscore_attributes() -> None:
    """Packages drive and read each other through public names (small protocols), never
    through another package's private attributes."""
    found = [access for module in MODULES for access in _private_accesses(module)]
    assert found == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_and_functions_stay_small(module: str) -> None:
    lines = len(MODULES[module].read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{module}: {lines} lines"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(TREES[module])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], f"{module}: functions over {MAX_FUNCTION_LINES} lines"


def test_the_checks_can_fail() -> None:
    """The circle finder, the private-access walk and the face check find what they are
    meant to."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    TREES["dsampler.telemetry._probe"] = ast.parse(
        "def f(x):\n    return x._owning\n"
        "import dsampler.engine._engine\n"
        "from dsampler.config import SamplingConfig, _model\n"
        "if TYPE_CHECKING:\n    from dsampler.decision._results import DROP\n"
        "from dsampler._dsampler import DSampler\n"
        "from dsampler._validate import check_rate\n"
        "from dsampler.telemetry._metrics import track\n"
    )
    MODULES["dsampler.telemetry._probe"] = MODULES["dsampler.telemetry._metrics"]
    try:
        assert list(_private_accesses("dsampler.telemetry._probe")) == [
            "dsampler.telemetry._probe:2 reads ._owning"
        ]
        assert sorted(_face_bypasses("dsampler.telemetry._probe")) == [
            "dsampler.telemetry._probe:3 imports dsampler.engine._engine",
            "dsampler.telemetry._probe:4 imports dsampler.config._model",
            "dsampler.telemetry._probe:6 imports dsampler.decision._results",
            "dsampler.telemetry._probe:7 imports dsampler._dsampler",
        ]
    finally:
        del TREES["dsampler.telemetry._probe"], MODULES["dsampler.telemetry._probe"]
