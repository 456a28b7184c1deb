"""The evaluation record v1: what citewatch emits for each trace it processed."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.judge import VerdictLabel
from schemas.trace import ClaimKind, Generator

__all__ = [
    "ClaimResult",
    "ClaimStatus",
    "CriticalReason",
    "EvaluationRecord",
    "FindingRecord",
    "JudgeRun",
    "NotJudgedReason",
    "RedactionType",
    "ResolvedBy",
    "SampledBy",
    "Scores",
    "Severity",
    "Versions",
    "EVALUATION_SCHEMA_VERSION",
]

EVALUATION_SCHEMA_VERSION = "1"

CriticalReason = Literal[
    "uncited", "invalid_citation", "judged_unsupported", "quote_not_found", "quote_in_injection"
]
ResolvedBy = Literal["screen", "llm", "cache"]
"""What gave a claim its verdict: the offline screen, the LLM judge, or the verdict cache."""
NotJudgedReason = Literal["abstained", "judge_failed"]
"""Why a cited claim of a judged (sampled) trace has no verdict: the screen abstained (not
sure either way), or the judge failed for the trace (error, refusal, open circuit, budget)."""
ClaimStatus = Literal["cited", "uncited", "invalid_citation", "not_factual"]
"""How a claim cites: at least one known source, none, only unknown IDs, or not factual."""
Severity = Literal["info", "warning", "critical"]
"""How much a deterministic finding matters."""
SampledBy = Literal["base", "priority"]
"""Why the judge saw a trace: the uniform base sample or a priority rule."""
RedactionType = Literal["EMAIL", "PHONE", "CREDIT_CARD", "IBAN", "US_SSN", "IP_ADDRESS", "SECRET",
                        "NATIONAL_ID"]
"""The built-in redaction entity types (keys of ``redactions``, beside configured ones)."""


class FindingRecord(BaseModel):
    """A deterministic finding. Carries codes and IDs, never raw trace text."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Finding type, e.g. unknown_citation_id.")
    severity: Severity
    claim_id: str | None = None
    source_id: str | None = None
    detail: str = Field(default="", description="Codes and IDs only, no trace text.")


class ClaimResult(BaseModel):
    """Everything citewatch concluded about one claim."""

    model_config = ConfigDict(extra="forbid")

    claim_id: str
    text: str = Field(description="The claim text, after redaction.")
    importance: int = Field(ge=1, le=3)
    kind: ClaimKind
    status: ClaimStatus
    citation_ids: list[str]
    invalid_citation_ids: list[str] = Field(default_factory=list)
    prescreen_flags: list[str] = Field(default_factory=list)
    verdict: VerdictLabel | None = Field(default=None, description="None when not judged.")
    verdict_reason: str | None = None
    evidence_quote: str | None = None
    critical_reason: CriticalReason | None = None
    resolved_by: ResolvedBy | None = Field(
        default=None, description="What gave the verdict: screen, llm or cache; None without one."
    )
    not_judged: NotJudgedReason | None = Field(
        default=None,
        description="Why a cited claim of a sampled trace has no verdict: abstained (the "
        "screen was not sure; never scored, never critical) or judge_failed.",
    )
    critical_unjudged: bool = Field(
        default=False,
        description="An importance-3 cited claim the failing judge left without a verdict.",
    )
    derived: bool = Field(default=False, description="Derived from the answer's markers "
                          "by citewatch (the trace carried no claims).")


class Scores(BaseModel):
    """The three metrics kept apart, and the weighted overall score."""

    model_config = ConfigDict(extra="forbid")

    validity: float = Field(ge=0.0, le=1.0)
    correctness: float | None = Field(default=None, description="None when not judged.")
    completeness: float | None = Field(default=None, description="None when not judged.")
    overall: float | None = Field(default=None, description="None when not judged.")
    marker_ids: list[str] = Field(default_factory=list)
    invalid_citation_ids: list[str] = Field(default_factory=list)
    critical_unsupported: int = 0
    critical_unjudged: int = Field(
        default=0, description="Importance-3 cited claims left unjudged by a failing judge."
    )


class JudgeRun(BaseModel):
    """Metadata of the judge call behind the verdicts, if any."""

    model_config = ConfigDict(extra="forbid")

    judge: str = Field(description="Backend: openai-responses, openai-chat or lexical.")
    model: str
    rubric_version: str
    outcome: str = Field(description="ok, or the kind of judge error.")
    input_tokens: int = 0
    output_tokens: int = 0
    latency_seconds: float = 0.0
    cached_claims: int = 0
    screened_claims: int = Field(
        default=0, description="Claims the offline screen resolved without the LLM."
    )
    error: str | None = None


class Versions(BaseModel):
    """Versions behind the record, so series can be kept apart."""

    model_config = ConfigDict(extra="forbid")

    citewatch: str
    trace_schema: str
    evaluation_schema: str = EVALUATION_SCHEMA_VERSION
    rubric: str | None = None


class EvaluationRecord(BaseModel):
    """One evaluated trace, keyed by trace_id on the evaluations topic."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal["1"] = "1"
    trace_id: str
    app: str
    tenant: str | None = None
    environment: str | None = None
    trace_timestamp: datetime
    evaluated_at: datetime
    generator: Generator
    findings: list[FindingRecord]
    claims: list[ClaimResult]
    scores: Scores
    judged: bool = False
    sampled_by: SampledBy | None = None
    skip_reason: str | None = Field(default=None, description="Why the judge did not run.")
    judge: JudgeRun | None = None
    redactions: dict[str, int] = Field(default_factory=dict, description="Counts per type.")
    versions: Versions
