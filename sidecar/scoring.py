"""Validity, correctness, completeness, overall and critical claims, as DESIGN.md defines them.

- validity: distinct answer marker IDs that resolve / distinct marker IDs (0.0 without markers)
- correctness: mean verdict value over factual claims carrying at least one citation
- completeness: sum(importance x value) over cited claims / sum(importance) over factual claims
- overall: weighted sum from :class:`ScoringSettings`, only when the trace was judged

A factual claim citing only unknown IDs carries a citation but has nothing to be judged
against: it scores 0.0 without a judge.

A claim the offline screen abstained on is not judged: it leaves both the numerator and the
denominator of correctness and completeness (it is neither scored 0 nor counted as missing
support) and is never critical. A trace whose judged claims are all settled still gets
scores; when every cited claim abstained, the judge-dependent scores are None.

When the judge fails for a sampled trace, each cited importance-3 claim left without a
verdict is listed in ``critical_unjudged``: never silently dropped, but not reported as
unsupported either.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from schemas import CriticalReason, ResolvedBy, VerdictLabel
from sidecar.checks.analysis import Analysis
from sidecar.config import ScoringSettings

__all__ = ["ClaimVerdict", "CriticalClaim", "ScoreResult", "score", "verdict_value"]


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """A checked verdict on one claim and what resolved it.

    ``quote_not_found`` and ``quote_in_injection`` mark a supported or partial verdict
    downgraded to unsupported: its evidence quote is not in the cited passages, or only
    inside a span flagged as addressed to a model.
    """

    verdict: VerdictLabel
    reason: str = ""
    evidence_quote: str = ""
    quote_not_found: bool = False
    quote_in_injection: bool = False
    resolved_by: ResolvedBy = "llm"


@dataclass(frozen=True, slots=True)
class CriticalClaim:
    """An importance-3 claim left without support, and why."""

    claim_id: str
    reason: CriticalReason


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """The scores of one trace. Judge-dependent scores are None when not judged."""

    validity: float
    invalid_citation_ids: tuple[str, ...]
    correctness: float | None
    completeness: float | None
    overall: float | None
    critical: tuple[CriticalClaim, ...]
    unjudged_claim_ids: tuple[str, ...]
    ignored_verdict_ids: tuple[str, ...]
    abstained_claim_ids: tuple[str, ...] = ()
    critical_unjudged: tuple[str, ...] = ()

    @property
    def judged(self) -> bool:
        """Whether correctness and completeness could be computed."""
        return self.correctness is not None


def verdict_value(verdict: VerdictLabel, settings: ScoringSettings) -> float:
    """supported 1.0, partial the configured credit, unsupported 0.0."""
    if verdict == "supported":
        return 1.0
    if verdict == "partial":
        return settings.partial_credit
    return 0.0


def score(
    analysis: Analysis,
    verdicts: Mapping[str, ClaimVerdict] | None,
    settings: ScoringSettings,
    *,
    abstained: Collection[str] = (),
    judge_failed: bool = False,
    fabricated: Collection[str] = (),
) -> ScoreResult:
    """Score one analysed trace; ``verdicts`` maps claim_id to a checked verdict, or is None.

    ``abstained`` are claim IDs the screen declined to judge; ``judge_failed`` says the judge
    did not complete for a sampled trace (its critical claims without a verdict are then
    listed in ``critical_unjudged``). ``fabricated`` are claim IDs whose own quote (one the
    app's API gave with the citation) is not in the cited document: critical as
    ``quote_not_found`` for importance 3, whatever the judge says or whether it ran.

    Verdicts for unknown claim IDs are ignored and listed in ``ignored_verdict_ids``. A cited
    claim with no verdict leaves correctness and completeness unknown (None) and is listed in
    ``unjudged_claim_ids``: a partial judgement is never scored as if it were whole.
    """
    marker_ids = analysis.marker_ids
    invalid = analysis.invalid_marker_ids
    validity = (len(marker_ids) - len(invalid)) / len(marker_ids) if marker_ids else 0.0

    given = verdicts or {}
    ignored: tuple[str, ...] = ()
    if given:
        known_claims = {item.claim.id for item in analysis.claims}
        ignored = tuple(sorted(set(given) - known_claims))

    critical: list[CriticalClaim] = []
    unjudged: list[str] = []
    critical_unjudged: list[str] = []
    skipped: list[str] = []
    values: list[float] = []
    weighted = 0.0
    denominator = 0
    cited_judged = 0
    abstaining = frozenset(abstained)
    fabricating = frozenset(fabricated)
    for item in analysis.claims:
        status = item.status
        if status == "not_factual":
            continue
        claim = item.claim
        claim_id = claim.id
        importance = claim.importance
        verdict = given.get(claim_id) if given else None
        fabricated_quote = importance == 3 and status == "cited" and claim_id in fabricating
        if fabricated_quote:
            critical.append(CriticalClaim(claim_id, "quote_not_found"))
        if status == "cited" and verdict is None and claim_id in abstaining:
            skipped.append(claim_id)
            continue
        denominator += importance
        if status == "uncited":
            if importance == 3:
                critical.append(CriticalClaim(claim_id, "uncited"))
            continue
        if status == "invalid_citation":
            if importance == 3:
                critical.append(CriticalClaim(claim_id, "invalid_citation"))
            values.append(0.0)
            continue
        if verdict is None:
            unjudged.append(claim_id)
            if judge_failed and importance == 3:
                critical_unjudged.append(claim_id)
            continue
        cited_judged += 1
        value = verdict_value(verdict.verdict, settings)
        values.append(value)
        weighted += importance * value
        if importance == 3 and verdict.verdict == "unsupported" and not fabricated_quote:
            reason: CriticalReason = (
                "quote_not_found"
                if verdict.quote_not_found
                else "quote_in_injection"
                if verdict.quote_in_injection
                else "judged_unsupported"
            )
            critical.append(CriticalClaim(claim_id, reason))

    correctness: float | None = None
    completeness: float | None = None
    overall: float | None = None
    all_abstained = bool(skipped) and cited_judged == 0
    if verdicts is not None and not unjudged and not all_abstained:
        correctness = sum(values) / len(values) if values else None
        completeness = weighted / denominator if denominator else None
        if correctness is not None and completeness is not None:
            overall = (
                settings.weight_correctness * correctness
                + settings.weight_completeness * completeness
                + settings.weight_validity * validity
            )
    return ScoreResult(
        validity=validity,
        invalid_citation_ids=invalid,
        correctness=correctness,
        completeness=completeness,
        overall=overall,
        critical=tuple(critical),
        unjudged_claim_ids=tuple(unjudged) if verdicts is not None else (),
        ignored_verdict_ids=ignored,
        abstained_claim_ids=tuple(skipped),
        critical_unjudged=tuple(critical_unjudged),
    )
