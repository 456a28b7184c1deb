"""`python -m sidecar.cli`: the same as the `citewatch` console script."""

from __future__ import annotations

from sidecar.cli._app import main

main()
