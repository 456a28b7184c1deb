"""What every runtime of `citewatch run` shares, the file and the Kafka one (``runtime.*``)."""

from __future__ import annotations

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["RuntimeSettings"]


class RuntimeSettings(Section):
    """What every runtime of `citewatch run` shares: how it watches its own records, how it
    stops, and how it keeps replayed traces from counting twice."""

    slow_record_seconds: float = Field(default=30.0, gt=0.0)
    """A record still being evaluated after this long is logged once (IDs only), counted in
    citewatch_slow_records_total, and makes /readyz answer 503 until it finishes."""
    worker_stuck_seconds: float = Field(default=120.0, gt=0.0)
    """The worker's event loop gone this long without a heartbeat (a stage keeping it busy)
    makes /healthz answer 503, so the liveness probe restarts the process."""
    shutdown_deadline_seconds: float = Field(default=20.0, gt=0.0)
    """How long in-flight work may take to finish after SIGTERM (formerly
    ``kafka.shutdown_deadline_seconds``)."""
    dedup_window: int = Field(default=100_000, ge=0)
    """How many recent trace_ids are remembered so replays are not counted twice (formerly
    ``kafka.dedup_window``)."""
    dedup_max_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    """Bytes of the window of recent trace_ids (about 190 per id); the oldest are forgotten
    beyond it or beyond dedup_window, whichever comes first (formerly
    ``kafka.dedup_max_bytes``)."""
