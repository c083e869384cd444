"""Line numbers of refused fields: found in the composed document, along the fields'
own paths only, with the lines a walk of the whole document gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsampler import ConfigError
from dsampler.config._files import field_lines, parse_config_bytes, parse_document, with_lines
from dsampler.config._parse import parse_config
from dsampler.config._shape import render_step
from dsampler.config._yaml import compose_yaml
from tests.property.config_strategies import BAD, near_valid_documents
from tests.yaml_dump import dump_yaml

DOCUMENT = """\
rate: 0.1
operations:
  GET /a: 0.5
  "GET /b": {rate: 2, lower_bound_per_second: 1}
rules:
  - match: {span_name: [x, {prefx: y}]}
    action: drop
  - action: {sample: all}
a.b: 1
a:
  b: 2
"""


def whole_document_lines(root: Any) -> dict[str, int]:
    """Every key's and item's line, by a walk of the whole document (how the reader
    found them before it walked only the fields' paths)."""
    lines: dict[tuple[str | int, ...], int] = {}
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    lines[(*path, key.value)] = key.start_mark.line + 1
                    stack.append((value, (*path, key.value)))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[(*path, i)] = item.start_mark.line + 1
                stack.append((item, (*path, i)))
    return {render_path(parts): line for parts, line in lines.items()}


def render_path(parts: tuple[str | int, ...]) -> str:
    """The field path the parser reports for keys and indices: ``rules[0].action``."""
    path = ""
    for depth, part in enumerate(parts):
        path = render_step(path, depth, parts[0], part)
    return path


@pytest.mark.parametrize(
    "field",
    [
        "rate",
        "operations",
        "operations['GET /b'].rate",
        "rules[0].match.span_name[1].prefx",
        "rules[1].action.sample",
        "rules[2]",  # not in the document: nothing
        "a.b",  # a key with a dot, and a nested key, render alike: the walk's last one
        "nowhere.at.all",
    ],
)
def test_a_field_has_the_line_the_whole_document_gives(field: str) -> None:
    root = compose_yaml(DOCUMENT)
    everything = whole_document_lines(root)
    found = field_lines(root, [field])
    assert found.get(field) == everything.get(field)
    assert all(everything[path] == line for path, line in found.items())


def test_only_the_fields_paths_are_walked() -> None:
    """A refusal of the operations section looks at the top-level keys alone: no line
    of any operation is found."""
    root = compose_yaml(DOCUMENT)
    assert field_lines(root, ["operations"]) == {"operations": 2}
    assert field_lines(root, ["rules[1].action.sample"]) == {
        "rules": 5,
        "rules[1]": 8,
        "rules[1].action": 8,
        "rules[1].action.sample": 8,
    }


def test_each_problem_gets_the_line_of_its_field_or_of_the_nearest_above() -> None:
    problems = ConfigError.of(
        [
            ConfigError("operations['GET /b'].rate", "expected a number in [0, 1], got 2"),
            ConfigError("rules[1].action.sample.deeper", "made up"),
            ConfigError("<file>", "not in the document"),
        ]
    )
    located = with_lines(problems, compose_yaml(DOCUMENT))
    assert [e.problem for e in located.errors] == [
        "expected a number in [0, 1], got 2 (line 4)",
        "made up (line 8)",
        "not in the document",
    ]
    assert with_lines(problems, None) is problems  # nothing composed: as it was


def _as_before(data: bytes, name: str) -> list[str]:
    """The problems of a refused file as the reader gave them when it composed the
    whole document again and looked every key up (none: the file is valid)."""
    try:
        parse_config(parse_document(data, name, json_only=name.endswith(".json")))
    except ConfigError as exc:
        root = compose_yaml(data.decode("utf-8-sig"))
        lines = {} if root is None else whole_document_lines(root)
        out = []
        for problem in exc.errors:
            field = problem.field
            while field and field not in lines:
                cut = max(field.rfind("."), field.rfind("["))
                field = field[:cut] if cut > 0 else ""
            out.append(
                f"{problem.field}: {problem.problem}" + (f" (line {lines[field]})" if lines and field else "")
            )
        return out
    return []  # JSON made the broken field valid again ({1: 0.5} has the key "1")


@pytest.mark.parametrize("kind", sorted(BAD))
@settings(deadline=None, max_examples=5, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), suffix=st.sampled_from([".yaml", ".json"]))
def test_a_refused_file_names_the_lines_it_always_named(kind: str, suffix: str, data: st.DataObject) -> None:
    """Any valid configuration with one field broken, as YAML or JSON: the same problems,
    with the same lines, as a walk of the whole document gives."""
    doc, _ = data.draw(near_valid_documents(kind))
    raw = dump_yaml(doc) if suffix == ".yaml" else json.dumps(doc, default=str)
    try:
        parse_config_bytes(raw.encode(), "f" + suffix)
        problems = []
    except ConfigError as exc:
        problems = [f"{e.field}: {e.problem}" for e in exc.errors]
    assert problems == _as_before(raw.encode(), "f" + suffix)
