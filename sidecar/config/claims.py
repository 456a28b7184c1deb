"""Claims derived from the answer, for traces that carry none (``claims.*``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["ClaimsSettings", "DeriveMode"]


DeriveMode = Literal["off", "sentences"]


class ClaimsSettings(Section):
    """Claims derived from the answer's markers, for traces that carry no claims."""

    derive: DeriveMode = "sentences"
    """sentences: a trace without claims gets one claim per answer sentence, citing the
    markers in it (a sentence without markers is an uncited claim; questions and lead-ins
    none); such claims are marked derived. off: such a trace is only checked for markers
    and gets the finding no_claims."""
    importance: int = Field(default=2, ge=1, le=3)
    """Importance of every derived claim (1 minor, 2 relevant, 3 critical: an uncited
    critical claim pages, so 3 only for apps where every sentence matters)."""
