"""The package version, its one source (pyproject.toml reads it from here); semantic
versioning, as docs/releases.md describes."""

__version__ = "0.2.0"
