"""The package version, apart from its public names so that any module can read it.

The one source of the version: pyproject.toml reads it from here (``[tool.hatch.version]``).
Semantic versioning; docs/releases.md says what each kind of release may change.
"""

__version__ = "0.2.0"
