"""Bounds on one trace (``limits.*``)."""

from __future__ import annotations

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["LimitsSettings"]


class LimitsSettings(Section):
    """Bounds on one trace, so no record costs more than a known amount. A trace beyond any
    of them is dead-lettered with the reason named here, before any stage sees it."""

    max_claims: int = Field(default=1_000, ge=1)
    """Claims in one trace; more is dead-lettered with reason too_many_claims."""
    max_sources: int = Field(default=1_000, ge=1)
    """Retrieved sources in one trace; more is dead-lettered with reason too_many_sources."""
    max_citations_per_claim: int = Field(default=100, ge=1)
    """Source IDs one claim cites; more is dead-lettered with reason too_many_citations."""
    max_text_chars: int = Field(default=65_536, ge=1)
    """Characters of any one string (answer, question, a passage, a claim, an unknown field);
    longer is dead-lettered with reason text_too_long."""
    max_number_chars: int = Field(default=64, ge=49, le=4_000)
    """Characters of one JSON number literal; longer is dead-lettered with reason
    number_too_long (Python refuses integers beyond 4300 digits anyway)."""
