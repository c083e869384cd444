"""The YAML reader's own resolver answers as PyYAML's would."""

from __future__ import annotations

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from dsampler.config._yaml import _safe_loader

_WORDS = [
    "true",
    "False",
    "no",
    "~",
    "null",
    "",
    "0x1F",
    "0o17",
    "010",
    "1e3",
    "-.5",
    ".inf",
    ".NaN",
    "12:30",
]
_MORE = ["2026-12-01", "2026-12-01T09:00:00Z", "<<", "=", "+3", "1_000", "0b101", "-", "."]


@given(st.one_of(st.sampled_from(_WORDS + _MORE), st.text(max_size=12)), st.booleans(), st.booleans())
@example("", True, False)
def test_a_scalar_resolves_to_the_tag_pyyaml_gives(value: str, plain: bool, quoted: bool) -> None:
    loader = _safe_loader(yaml)("")
    try:
        for kind, text in ((yaml.ScalarNode, value), (yaml.MappingNode, None), (yaml.SequenceNode, None)):
            implicit = (plain, quoted)
            assert loader.resolve(kind, text, implicit) == yaml.resolver.BaseResolver.resolve(
                loader, kind, text, implicit
            )
    finally:
        loader.dispose()
