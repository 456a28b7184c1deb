"""The judge's typed reply: one verdict per requested claim."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JudgeResult", "JudgeVerdict", "VerdictLabel"]

VerdictLabel = Literal["supported", "partial", "unsupported"]


class JudgeVerdict(BaseModel):
    """The judge's verdict on one claim against the passages it cites."""

    model_config = ConfigDict(extra="forbid")

    claim_id: str = Field(description="The claim_id this verdict is for, exactly as given.")
    verdict: VerdictLabel = Field(description="supported, partial or unsupported.")
    evidence_quote: str = Field(
        description="A verbatim quote from one cited passage; empty when unsupported."
    )
    reason: str = Field(description="One or two sentences explaining the verdict.")


class JudgeResult(BaseModel):
    """The whole reply for one judged trace."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[JudgeVerdict]
