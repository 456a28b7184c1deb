"""The evaluation record v1: what citewatch emits for each trace it processed."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from schemas.judge import VerdictLabel
from schemas.trace import ClaimKind, Generator

__all__ = [
    "DATAMARK",
    "CitedSource",
    "ClaimPath",
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
    "ScreenOutcome",
    "SecurityEventKind",
    "Severity",
    "SuspectReason",
    "UnverifiedReason",
    "Versions",
    "EVALUATION_SCHEMA_VERSION",
    "EvidenceQuote",
    "unmarked_quote",
]

EVALUATION_SCHEMA_VERSION = "1"

DATAMARK = "\u02c6"
"""The character that joins the words of document text in a judge request ("datamarking",
U+02C6): the rubric lets the judge copy an evidence quote with or without it."""


def unmarked_quote(quote: str | None) -> str | None:
    """An evidence quote as people read it: each datamark a space, as the quote check reads
    it, and the runs of spaces that makes one. A quote without a datamark is unchanged."""
    if quote is None or DATAMARK not in quote:
        return quote
    return " ".join(quote.replace(DATAMARK, " ").split())


EvidenceQuote = Annotated[str | None, AfterValidator(unmarked_quote)]
"""An evidence quote in a record or review item: never carries datamarks, whatever the
judge copied (the quote check read them as spaces already)."""

CriticalReason = Literal[
    "uncited", "invalid_citation", "judged_unsupported", "quote_not_found", "quote_in_injection"
]
ResolvedBy = Literal["screen", "llm", "cache"]
"""What gave a claim its verdict: the offline screen, the LLM judge, or the verdict cache."""
NotJudgedReason = Literal["abstained", "suspect", "unverified", "judge_failed"]
"""Why a cited claim of a judged (sampled) trace has no verdict: the screen abstained (not
sure either way); the screen saw a conflict that no LLM resolved (``suspect``); a verdict
could not be trusted (``unverified``: an injection may have bought it, or its evidence quote
does not cover the claim); or the judge failed for the trace (error, refusal, open circuit,
budget). None of them is scored or critical; ``not_judged_detail`` says which kind."""
SuspectReason = Literal[
    "number", "date", "quantity", "negation", "antonym", "direction", "role", "other"
]
"""The kind of conflict the offline screen saw in a ``suspect`` claim (``other`` for a
conflict class outside this list)."""
UnverifiedReason = Literal["injection_influenced", "quote_incomplete"]
"""Why a verdict was not trusted: text addressed to a model in the claim's cited passages,
the question or the claim changed the verdict or left it unconfirmed once removed
(``injection_influenced``); or the evidence quote lacks part of the claim
(``quote_incomplete``)."""
ScreenOutcome = Literal["supported", "partial", "suspect", "abstained"]
"""What the offline screen said of a claim: its "unsupported" is recorded as ``suspect``."""
SecurityEventKind = Literal["injection_influenced"]
"""Security events counted per importance-3 claim (``citewatch_security_events_total``)."""
ClaimStatus = Literal["cited", "uncited", "invalid_citation", "not_factual"]
"""How a claim cites: at least one known source, none, only unknown IDs, or not factual."""
Severity = Literal["info", "warning", "critical"]
"""How much a deterministic finding matters."""
SampledBy = Literal["base", "priority"]
"""Why the judge saw a trace: the uniform base sample or a priority rule."""
RedactionType = Literal[
    "EMAIL", "PHONE", "CREDIT_CARD", "IBAN", "US_SSN", "IP_ADDRESS", "SECRET", "NATIONAL_ID"
]
"""The built-in redaction entity types (keys of ``redactions``, beside configured ones)."""


class FindingRecord(BaseModel):
    """A deterministic finding. Carries codes and IDs, never raw trace text."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Finding type, e.g. unknown_citation_id.")
    severity: Severity
    claim_id: str | None = None
    source_id: str | None = None
    detail: str = Field(default="", description="Codes and IDs only, no trace text.")


class ClaimPath(BaseModel):
    """Which stages looked at a claim and what each said; None for a stage that did not run."""

    model_config = ConfigDict(extra="forbid")

    screen: ScreenOutcome | None = Field(
        default=None, description="The offline screen's outcome; its unsupported is suspect."
    )
    llm: VerdictLabel | None = Field(
        default=None, description="The LLM judge's verdict after the evidence-quote check."
    )
    rejudge: VerdictLabel | None = Field(
        default=None,
        description="The LLM's second verdict, on the packet with the spans "
        "flagged as injection removed.",
    )
    agreed: bool | None = Field(
        default=None,
        description="Whether the stages that ran and gave a verdict agree; None "
        "when fewer than two did.",
    )


_DETAIL_VOCABULARY: dict[str, frozenset[str]] = {
    "suspect": frozenset(get_args(SuspectReason)),
    "unverified": frozenset(get_args(UnverifiedReason)),
}


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
    evidence_quote: EvidenceQuote = None
    critical_reason: CriticalReason | None = None
    resolved_by: ResolvedBy | None = Field(
        default=None, description="What gave the verdict: screen, llm or cache; None without one."
    )
    not_judged: NotJudgedReason | None = Field(
        default=None,
        description="Why a cited claim of a sampled trace has no verdict: abstained (the "
        "screen was not sure; never scored, never critical) or judge_failed.",
    )
    not_judged_detail: SuspectReason | UnverifiedReason | None = Field(
        default=None,
        description="For suspect, the screen's conflict class; for unverified, why the "
        "verdict was not trusted. None for the other reasons.",
    )
    critical_unjudged: bool = Field(
        default=False,
        description="An importance-3 cited claim the failing judge left without a verdict.",
    )
    derived: bool = Field(
        default=False,
        description="Derived from the answer's markers by citewatch (the trace carried no claims).",
    )
    path: ClaimPath | None = Field(
        default=None,
        description="What the screen, the LLM and the re-judge said; None "
        "when no stage looked at the claim.",
    )

    @model_validator(mode="after")
    def _detail_matches_reason(self) -> ClaimResult:
        allowed = _DETAIL_VOCABULARY.get(self.not_judged or "")
        if allowed is None:
            if self.not_judged_detail is not None:
                raise ValueError(
                    "not_judged_detail is set only for not_judged suspect or unverified"
                )
        elif self.not_judged_detail not in allowed:
            raise ValueError(
                f"not_judged {self.not_judged} needs a not_judged_detail from {sorted(allowed)}"
            )
        return self


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


class CitedSource(BaseModel):
    """A source some claim cites, by the document it comes from: its ID, title and URL as
    redaction left them (the weekly report ranks documents by URL, else title)."""

    model_config = ConfigDict(extra="forbid")

    source_id: str
    title: str = ""
    url: str | None = None


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
    cited_sources: list[CitedSource] = Field(
        default_factory=list,
        description="The cited sources that have a title or a URL, "
        "redacted; the claims' citation_ids name them by source_id.",
    )
    versions: Versions
