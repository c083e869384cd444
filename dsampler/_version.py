"""The package version, apart from its public names so that any module can read it."""

__version__ = "0.1.0"
