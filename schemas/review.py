"""The review item v1: the redacted packet of one claim routed to people for a label.

Items travel on the Kafka topic ``citewatch.review`` (keyed by ``item_id``) from every
replica of `citewatch run` to one review store, and are what the reviewers' page shows. Every
piece of trace text in an item comes from the redacted trace: the claim text and its cited
passages after redaction, never the raw ones.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.evaluation import (
    EvidenceQuote,
    NotJudgedReason,
    ResolvedBy,
    SampledBy,
    SuspectReason,
    UnverifiedReason,
)
from schemas.judge import VerdictLabel

__all__ = [
    "REVIEW_ITEM_SCHEMA_VERSION",
    "FailureType",
    "HumanLabelValue",
    "ReviewItem",
    "ReviewPassage",
    "ReviewReason",
    "ReviewRoute",
]

REVIEW_ITEM_SCHEMA_VERSION = "1"

ReviewRoute = Literal[
    "critical_unjudged",
    "injection_influenced",
    "unverified",
    "suspect",
    "abstained_critical",
    "disagreement",
]
"""The flag routes to the review queue, most urgent first: an importance-3 claim a failing
judge left unjudged; a verdict an injection may have bought; a verdict that could not be
trusted; a conflict the screen saw that no LLM resolved; an importance-3 claim the screen
abstained on; the screen and the LLM disagreeing."""
ReviewReason = Literal[ReviewRoute, "audit"]
"""Why a claim reaches people, most urgent first (the queue's priority order). ``audit`` is
the uniform random slice of judged claims, chosen by hash whatever else is true of them, so
that the judge's precision on live traffic can be estimated without the bias of reviewing
only what was flagged."""

FailureType = Literal[
    "wrong_number_or_date",
    "wrong_condition_or_scope",
    "negation_or_direction",
    "stale_source",
    "topic_only",
    "half_supported",
    "wrong_citation",
    "quote_out_of_context",
    "other",
]
"""What went wrong with a claim a reviewer did not find supported (optional on a label):
another number, date or quantity; another condition or scope; a flipped negation or
direction; a stale version of the source; the passage is only on the same topic; one half
of a compound claim; supported by another source than the one cited; a quote that does not
mean what the judge took it to mean."""

HumanLabelValue = Literal["supported", "partial", "unsupported", "skip"]
"""What a reviewer can answer: a verdict of the rubric, or ``skip`` (not this reviewer)."""


class ReviewPassage(BaseModel):
    """One passage the claim cites, redacted, with the judge's evidence quote located."""

    model_config = ConfigDict(extra="forbid")

    source_id: str
    title: str | None = None
    text: str = Field(description="The passage text after redaction.")
    quote_start: int | None = Field(
        default=None,
        description="Offset (code points) where the evidence quote starts in "
        "text; None when the quote is absent from this passage.",
    )
    quote_end: int | None = None


class ReviewItem(BaseModel):
    """One routed claim with everything a reviewer needs and nothing raw."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal["1"] = "1"
    item_id: str = Field(description="Hash of (trace_id, claim_id): one item per claim.")
    trace_id: str
    claim_id: str
    app: str
    day: date = Field(description="UTC day of the trace: the per-day caps count by it.")
    evaluated_at: datetime
    reasons: list[ReviewReason] = Field(
        description="Why it was routed, most urgent first; ``audit`` when in the audit slice."
    )
    priority: int = Field(description="Higher is reviewed first.")
    question: str = Field(default="", description="The question, after redaction.")
    claim_text: str = Field(description="The claim text, after redaction.")
    importance: int = Field(ge=1, le=3)
    citation_ids: list[str]
    passages: list[ReviewPassage]
    verdict: VerdictLabel | None = None
    verdict_reason: str | None = None
    evidence_quote: EvidenceQuote = None
    resolved_by: ResolvedBy | None = None
    not_judged: NotJudgedReason | None = None
    not_judged_detail: SuspectReason | UnverifiedReason | None = None
    path: dict[str, str | bool | None] = Field(
        default_factory=dict, description="What the screen, the LLM and the re-judge said."
    )
    critical_unjudged: bool = False
    sampled_by: SampledBy | None = None
    judge: str | None = Field(default=None, description="The judge backend of the trace.")
    judge_model: str | None = None
    rubric_version: str | None = None

    @property
    def audit(self) -> bool:
        """Whether the item is in the audit slice."""
        return "audit" in self.reasons
