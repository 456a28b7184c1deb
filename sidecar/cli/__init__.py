"""The `citewatch` command line, one module per command. Only this package prints or exits."""

from __future__ import annotations

from sidecar.cli._app import cli, main

__all__ = ["cli", "main"]
