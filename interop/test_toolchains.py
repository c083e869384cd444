"""Which toolchains this machine has, and so which scenarios run: always collected, so a
run of ``make interop`` never collects nothing (pytest's exit 5)."""

from __future__ import annotations

import shutil

from interop import build


def test_toolchains_are_reported() -> None:
    """Each component names what it needs; a missing tool is a skip reason, never an error."""
    for component in build.COMPONENTS.values():
        missing = build.missing_tools(component)
        assert missing == [tool for tool in component.tools if shutil.which(tool) is None]
        assert set(missing) <= set(component.tools)
