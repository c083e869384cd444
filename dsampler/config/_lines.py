"""Where a refused field stands in its file: ``(line N)`` after each problem, found on
the error path only, along the paths of the fields the problems name."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from dsampler.config._shape import render_step
from dsampler.errors import ConfigError

_CUT: Final = re.compile(r"[.\[]")


def with_lines(exc: ConfigError, root: Any) -> ConfigError:
    """``exc`` with ``(line N)`` after each problem whose field (or the nearest field
    above it) stands in the composed document ``root`` (None: ``exc`` as it is)."""
    if root is None:
        return exc
    lines = field_lines(root, (problem.field for problem in exc.errors))
    out = []
    for problem in exc.errors:
        field = problem.field
        while field and field not in lines:
            cut = max(field.rfind("."), field.rfind("["))
            field = field[:cut] if cut > 0 else ""
        suffix = f" (line {lines[field]})" if field else ""
        out.append(ConfigError(problem.field, problem.problem + suffix))
    return ConfigError.of(out)


def field_lines(root: Any, fields: Iterable[str]) -> dict[str, int]:
    """Line (1-based) of each of ``fields`` and of the fields above them that stand in
    the composed document ``root``, by the path the parser names them with. The walk
    descends only into the paths above ``fields``, in document order."""
    import yaml

    wanted: set[str] = set()
    above: set[str] = set()  # the paths to descend into: proper beginnings of the fields
    for field in fields:
        wanted.add(field)
        above.update(field[: m.start()] for m in _CUT.finditer(field))
    wanted |= above
    mapping, sequence, scalar = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode
    lines: dict[str, int] = {}
    stack: list[tuple[Any, str, int, str | int]] = [(root, "", 0, "")]
    while stack:
        node, path, depth, top = stack.pop()
        if isinstance(node, mapping):
            children = [(key.value, key, value) for key, value in node.value if isinstance(key, scalar)]
        elif isinstance(node, sequence):
            children = [(i, item, item) for i, item in enumerate(node.value)]
        else:
            continue
        for part, marked, child in children:
            here = render_step(path, depth, top, part)
            if here in wanted:
                lines[here] = marked.start_mark.line + 1
                if here in above:
                    stack.append((child, here, depth + 1, part if depth == 0 else top))
    return lines
