"""Which traces the judge sees, and its budgets (``sampling.*``)."""

from __future__ import annotations

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["SamplingSettings"]


class SamplingSettings(Section):
    """Which traces the judge sees."""

    rate: float = Field(default=0.1, ge=0.0, le=1.0)
    """Base sample rate, by a hash of trace_id."""
    priority_critical: bool = True
    """Judge every trace with an importance-3 cited claim (sampled_by=priority)."""
    priority_prescreen: bool = True
    """Judge every trace whose cited claims the pre-screen flags (sampled_by=priority)."""
    priority_new_generator_traces: int = Field(default=20, ge=0)
    """Judge the first N traces of each unseen generator model and prompt version."""
    generators_max_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    """Bytes of the table of generator models and prompt versions seen (for the first-N
    rule): each is a fixed-size digest (about 200 bytes, whatever the names' length), the
    least recently seen forgotten beyond it (and then counted as unseen again)."""
    requests_per_minute: int | None = Field(default=600, ge=1)
    """Judge requests per rolling minute; unset for no limit."""
    tokens_per_minute: int | None = Field(default=400_000, ge=1)
    """Judge tokens (input + output, estimated before the call) per rolling minute."""
    tokens_per_day: int | None = Field(default=None, ge=1)
    """Judge tokens per UTC day; unset for no limit."""
