"""Which claims of an evaluated trace go to people, and the packet each one carries.

A claim is routed when the pipeline is unsure of it or it matters most (the flag routes of
:data:`schemas.ReviewRoute`, each on or off in ``review.routes``), and independently when a
hash of (trace_id, claim_id) puts a judged claim in the audit slice (``review.audit_rate``).
The audit choice never looks at flags or verdicts, so the audited claims are a uniform
random sample of judged claims: the judge's precision on them estimates its precision on
live traffic without the bias of reviewing only what was flagged.

Packets are built from the redacted trace the judge saw and the evaluation record: nothing
raw. Per-day caps are the store's (one count across every replica feeding it).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import get_args

from schemas import ClaimResult, EvaluationRecord, ReviewItem, ReviewReason, Trace
from sidecar.config import ReviewSettings

__all__ = [
    "PRIORITY",
    "RoutingClaim",
    "audit_point",
    "item_id",
    "locate_quote",
    "route_claim",
    "route_record",
]

_REASONS: tuple[ReviewReason, ...] = get_args(ReviewReason)
PRIORITY: dict[str, int] = {reason: 10 * (len(_REASONS) - i) for i, reason in enumerate(_REASONS)}
"""Base priority of each reason (most urgent highest); an item's priority is that of its
most urgent reason plus its importance."""

_AUDIT_SPACE = float(1 << 64)


def item_id(trace_id: str, claim_id: str) -> str:
    """The item's ID: one per claim, the same on every replica and every replay."""
    digest = hashlib.sha256(f"review\0{trace_id}\0{claim_id}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def audit_point(trace_id: str, claim_id: str) -> float:
    """Where the claim falls in [0, 1) for the audit slice: uniform over claims, and
    independent of the judge's trace sampler (which hashes the trace_id alone)."""
    digest = hashlib.sha256(f"audit\0{trace_id}\0{claim_id}".encode("utf-8", "surrogatepass"))
    return int.from_bytes(digest.digest()[:8], "big") / _AUDIT_SPACE


@dataclass(frozen=True, slots=True)
class RoutingClaim:
    """What routing reads of one claim of an evaluation record."""

    claim_id: str
    importance: int
    verdict: str | None
    not_judged: str | None
    not_judged_detail: str | None
    critical_unjudged: bool
    agreed: bool | None
    injection_influenced: bool

    @classmethod
    def of(cls, claim: ClaimResult, *, influenced: bool = False) -> RoutingClaim:
        """The routing view of ``claim``; ``influenced``: a trace finding says an injection
        changed or left unconfirmed its verdict."""
        path = claim.path
        detail = claim.not_judged_detail
        return cls(
            claim_id=claim.claim_id,
            importance=claim.importance,
            verdict=claim.verdict,
            not_judged=claim.not_judged,
            not_judged_detail=detail,
            critical_unjudged=claim.critical_unjudged,
            agreed=path.agreed if path is not None else None,
            injection_influenced=influenced or detail == "injection_influenced",
        )


def route_claim(
    claim: RoutingClaim, *, trace_id: str, settings: ReviewSettings
) -> list[ReviewReason]:
    """The reasons ``claim`` is routed for, most urgent first (empty: not routed)."""
    flags: dict[str, bool] = {
        "critical_unjudged": claim.critical_unjudged,
        "injection_influenced": claim.injection_influenced,
        "unverified": claim.not_judged == "unverified",
        "suspect": claim.not_judged == "suspect",
        "abstained_critical": claim.not_judged == "abstained" and claim.importance == 3,
        "disagreement": claim.agreed is False,
    }
    enabled = set(settings.routes)
    reasons: list[ReviewReason] = [r for r in _REASONS if flags.get(r) and r in enabled]
    if (
        claim.verdict is not None
        and settings.audit_rate > 0.0
        and audit_point(trace_id, claim.claim_id) < settings.audit_rate
    ):
        reasons.append("audit")
    return reasons


def route_record(
    record: EvaluationRecord, redacted: Trace | None, settings: ReviewSettings
) -> list[ReviewItem]:
    """The review items of one evaluated trace. ``redacted`` is the redacted trace the
    record was built from: the only source of the passages' text (None: the items carry
    the cited source IDs without text, as from an evaluation file alone)."""
    influenced = {
        f.claim_id
        for f in record.findings
        if f.code == "injection_influenced" and f.claim_id is not None
    }
    items = []
    for claim in record.claims:
        view = RoutingClaim.of(claim, influenced=claim.claim_id in influenced)
        reasons = route_claim(view, trace_id=record.trace_id, settings=settings)
        if reasons:
            items.append(build_item(record, claim, redacted, reasons))
    return items


def build_item(
    record: EvaluationRecord,
    claim: ClaimResult,
    redacted: Trace | None,
    reasons: Sequence[ReviewReason],
) -> ReviewItem:
    """The packet of one routed claim."""
    invalid = set(claim.invalid_citation_ids)
    passages: list[dict[str, object]] = []
    if redacted is None:
        passages = [
            {"source_id": source_id, "text": ""}
            for source_id in dict.fromkeys(claim.citation_ids)
            if source_id not in invalid
        ]
    sources = {source.id: source for source in redacted.sources} if redacted else {}
    for source_id in dict.fromkeys(claim.citation_ids):
        source = sources.get(source_id)
        if source is None:
            continue
        span = locate_quote(claim.evidence_quote, source.text) if claim.evidence_quote else None
        passages.append(
            {
                "source_id": source_id,
                "title": source.title,
                "text": source.text,
                "quote_start": span[0] if span else None,
                "quote_end": span[1] if span else None,
            }
        )
    run = record.judge
    path = claim.path.model_dump() if claim.path is not None else {}
    return ReviewItem.model_validate(
        {
            "item_id": item_id(record.trace_id, claim.claim_id),
            "trace_id": record.trace_id,
            "claim_id": claim.claim_id,
            "app": record.app,
            "day": record.trace_timestamp.date(),
            "evaluated_at": record.evaluated_at,
            "reasons": list(reasons),
            "priority": PRIORITY[reasons[0]] + claim.importance,
            "question": redacted.question if redacted is not None else "",
            "claim_text": claim.text,
            "importance": claim.importance,
            "citation_ids": claim.citation_ids,
            "passages": passages,
            "verdict": claim.verdict,
            "verdict_reason": claim.verdict_reason,
            "evidence_quote": claim.evidence_quote,
            "resolved_by": claim.resolved_by,
            "not_judged": claim.not_judged,
            "not_judged_detail": claim.not_judged_detail,
            "path": path,
            "critical_unjudged": claim.critical_unjudged,
            "sampled_by": record.sampled_by,
            "judge": run.judge if run else None,
            "judge_model": run.model if run else None,
            "rubric_version": (run.rubric_version if run else None) or record.versions.rubric,
        }
    )


_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_QUOTE_EDGES = " \t\n\"'`\u201c\u201d\u2018\u2019"


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` normalised as the quote check does (NFKC, quotes and dashes folded,
    whitespace collapsed, lower case), with the offset in ``text`` of each character."""
    out: list[str] = []
    where: list[int] = []
    space = True
    for index, char in enumerate(text):
        if char.isspace():
            if not space:
                out.append(" ")
                where.append(index)
            space = True
            continue
        space = False
        for piece in unicodedata.normalize("NFKC", char).translate(_FOLD).lower():
            out.append(piece)
            where.append(index)
    return "".join(out), where


def locate_quote(quote: str, text: str) -> tuple[int, int] | None:
    """The span of ``text`` (code-point offsets) that the evidence ``quote`` matches after
    the quote check's normalisation, or None."""
    needle, _ = _folded(quote.strip(_QUOTE_EDGES))
    needle = needle.strip()
    if not needle:
        return None
    haystack, where = _folded(text)
    start = haystack.find(needle)
    if start < 0:
        return None
    end = start + len(needle) - 1
    return where[start], where[end] + 1


def routed_reasons(items: Iterable[ReviewItem]) -> dict[str, int]:
    """How many of ``items`` carry each reason (for summaries and tests)."""
    counts: dict[str, int] = {}
    for item in items:
        for reason in item.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    return counts
