"""How `citewatch run` watches its own records (``runtime.*``)."""

from __future__ import annotations

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["RuntimeSettings"]


class RuntimeSettings(Section):
    """How `citewatch run` watches its own records."""

    slow_record_seconds: float = Field(default=30.0, gt=0.0)
    """A record still being evaluated after this long is logged once (IDs only), counted in
    citewatch_slow_records_total, and makes /readyz answer 503 until it finishes."""
    worker_stuck_seconds: float = Field(default=120.0, gt=0.0)
    """The worker's event loop gone this long without a heartbeat (a stage keeping it busy)
    makes /healthz answer 503, so the liveness probe restarts the process."""
