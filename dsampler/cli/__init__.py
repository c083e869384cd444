"""The ``dsampler`` command: one module per subcommand; parsing and exit codes only."""
