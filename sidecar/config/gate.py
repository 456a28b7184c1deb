"""The release gate (``gate.*``)."""

from __future__ import annotations

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["GateSettings"]


class GateSettings(Section):
    """The release gate (`citewatch gate`)."""

    tolerance: float = Field(default=0.03, ge=0.0, le=1.0)
    """How far the candidate's mean overall score may fall below the baseline's before the
    gate fails. Derive it from measured judge variance: `citewatch stability` re-judges a
    fixed slice several times and suggests about 2 x sqrt(2) x the spread of the run means,
    so judge noise alone rarely fails a release."""
