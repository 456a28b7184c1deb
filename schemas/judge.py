"""The judge's typed reply: one verdict per requested claim."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JudgeBackendName", "JudgeChoice", "JudgeResult", "JudgeVerdict", "VerdictLabel"]

VerdictLabel = Literal["supported", "partial", "unsupported"]

JudgeBackendName = Literal["openai-responses", "openai-chat", "lexical"]
"""The judge backends: the OpenAI Responses API, Chat Completions (any OpenAI-compatible
server), and the offline screen (``lexical``). The label of a run in records and metrics;
``sidecar.judge.registry`` binds each name to its builder."""

JudgeChoice = Literal[JudgeBackendName, "none"]
"""What the settings and the CLI accept as the judge: a backend, or ``none`` for no judge."""


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
