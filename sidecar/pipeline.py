"""One trace through checks, redaction, the judge and scoring into an evaluation record.

The same pipeline serves `citewatch check`, the file source and the Kafka consumer; the
runtimes only differ in where traces come from and where records go.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, get_args

from schemas import (
    TRACE_SCHEMA_VERSION,
    ClaimPath,
    EvaluationRecord,
    JudgeRun,
    NotJudgedReason,
    SampledBy,
    SuspectReason,
    Trace,
    UnverifiedReason,
)
from schemas.vocabulary import SkipReason, Stage
from sidecar import __version__
from sidecar.checks import Analysis, Check, Finding, MarkerParser, analyse, default_checks
from sidecar.checks.derive import DerivedClaims, cut_findings, derive
from sidecar.checks.numbering import Numbered, number
from sidecar.config import Settings
from sidecar.scoring import ClaimVerdict, ScoreResult, score

__all__ = ["JudgeIdentity", "JudgeOutcome", "JudgeStage", "Pipeline", "TraceRedactor", "Withheld"]

logger = logging.getLogger(__name__)

Withheld = tuple[NotJudgedReason, SuspectReason | UnverifiedReason]
"""Why a claim the judge stage looked at has no verdict: the record's ``not_judged`` and
``not_judged_detail``."""


class TraceRedactor(Protocol):
    """Replaces sensitive values in a whole trace; returns it with counts per entity type."""

    def redact(self, trace: Trace) -> tuple[Trace, dict[str, int]]:
        """The redacted trace and how many values of each type were replaced."""
        ...


@dataclass(frozen=True)
class JudgeOutcome:
    """What the judge stage decided for one trace.

    ``verdicts`` holds every verdict it has (from the screen, the cache or the LLM), also
    when the LLM call failed; ``abstained`` the claims the screen was not sure about (not
    judged, never scored); ``withheld`` the claims given no verdict for another reason, each
    with its not_judged reason and detail (``suspect``: the screen alone saw a conflict;
    ``unverified``: a verdict that could not be trusted), never scored either;
    ``paths`` what each stage said of each claim it looked at; ``misattributed``
    (claim_id, source_id) pairs where a claim its citation does not support is supported by
    another retrieved source. A sampled trace the judge could not finish (error, open
    circuit, budget, shutdown) has ``failed`` set.
    """

    verdicts: dict[str, ClaimVerdict] | None = None
    run: JudgeRun | None = None
    sampled_by: str | None = None
    skip_reason: SkipReason | None = None
    abstained: tuple[str, ...] = ()
    misattributed: tuple[tuple[str, str], ...] = ()
    withheld: Mapping[str, Withheld] = field(default_factory=dict)
    paths: Mapping[str, ClaimPath] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """A sampled trace whose judge call did not complete."""
        return self.sampled_by is not None and (self.run is None or self.run.outcome != "ok")

    @property
    def failure(self) -> str | None:
        """Why the judge did not complete: the error kind or the skip reason."""
        if not self.failed:
            return None
        return self.run.outcome if self.run is not None else self.skip_reason


@dataclass(frozen=True)
class JudgeIdentity:
    """What a judge stage runs: its backend, model and rubric version (a metric series)."""

    backend: str
    model: str
    rubric_version: str


class JudgeStage(Protocol):
    """Decides whether to judge a (redacted) trace and, if so, returns checked verdicts."""

    @property
    def identity(self) -> JudgeIdentity:
        """The backend, model and rubric version the stage judges with."""
        ...

    async def judge(self, trace: Trace, analysis: Analysis) -> JudgeOutcome:
        """Never raises for a judge failure: the outcome carries the error instead."""
        ...

    async def aclose(self, deadline: float = 10.0) -> None:
        """Stop judging: give in-flight calls ``deadline`` seconds, then release the
        backend. Later traces are skipped with reason shutting_down."""
        ...


@dataclass
class Pipeline:
    """Evaluates traces. Collaborators are injected; all default to the deterministic path."""

    settings: Settings
    checks: list[Check] = field(default_factory=default_checks)
    redactor: TraceRedactor | None = None
    judge: JudgeStage | None = None
    on_stage: Callable[[Stage, float], None] | None = None
    """Receives (stage, seconds) for checks, redaction, judge and scoring of every trace."""
    on_record: Callable[[EvaluationRecord], None] | None = None
    """Receives every evaluation record built (e.g. the CLI's judge tally)."""
    on_redacted: Callable[[EvaluationRecord, Trace], None] | None = None
    """Receives every record with the redacted trace it was built from (the review queue
    takes its packets' cited passages from it); never the raw trace."""

    def __post_init__(self) -> None:
        self.parser = MarkerParser(self.settings.checks.marker_pattern)

    def number(self, trace: Trace) -> Numbered:
        """``trace`` with its markers parsed and its citations resolved by ID or by
        position, as ``citations.numbering`` says (see :mod:`sidecar.checks.numbering`)."""
        return number(trace, self.parser, self.settings.citations.numbering)

    def derive(self, trace: Trace) -> Trace:
        """``trace`` with claims derived from its markers when it carries none and
        ``claims.derive`` asks for it (see :mod:`sidecar.checks.derive`); its citations
        resolved as :meth:`number` does."""
        return self._derive(self.number(trace)).trace

    def _derive(self, numbered: Numbered) -> DerivedClaims:
        trace = numbered.trace
        claims, limits = self.settings.claims, self.settings.limits
        if trace.claims or claims.derive == "off":
            return DerivedClaims(trace)
        return derive(
            trace,
            self.parser,
            importance=claims.importance,
            max_claims=limits.max_claims,
            max_citations=limits.max_citations_per_claim,
            markers=numbered.scan.markers,
        )

    def analyse(
        self, trace: Trace, *, derived: bool = False, numbered: Numbered | None = None
    ) -> tuple[Analysis, list[Finding]]:
        """The deterministic part: markers, citations and every check's findings.

        ``derived`` says the claims of ``trace`` come from :meth:`derive`; ``numbered``
        is what :meth:`number` made of the trace (computed here when not given)."""
        if numbered is None:
            numbered = self.number(trace)
            trace = numbered.trace
        analysis = analyse(trace, self.parser, resolver=numbered.resolver, scan=numbered.scan)
        findings: list[Finding] = []
        if numbered.finding is not None:
            findings.append(numbered.finding)
        if derived:
            findings.append(Finding("claims_derived", "info", detail=f"claims={len(trace.claims)}"))
        for check in self.checks:
            try:
                findings.extend(check.run(analysis))
            except Exception:
                # One faulty check must not lose the trace; it is logged once and counted
                # as a check_error finding (citewatch_findings_total).
                logger.exception("check %s failed on trace %s", check.name, trace.trace_id)
                findings.append(Finding("check_error", "warning", detail=check.name))
        return analysis, findings

    def _timed(self, stage: Stage, started: float) -> float:
        now = time.perf_counter()
        if self.on_stage is not None:
            self.on_stage(stage, now - started)
        return now

    def _redact(self, trace: Trace) -> tuple[Trace, dict[str, int]]:
        if self.redactor is None:
            return trace, {}
        return self.redactor.redact(trace)

    async def evaluate(self, trace: Trace) -> EvaluationRecord:
        """Run the whole pipeline on one trace."""
        started = time.perf_counter()
        numbered = self.number(trace)
        derivation = self._derive(numbered)
        derived = derivation.trace is not numbered.trace
        trace = derivation.trace
        analysis, findings = self.analyse(trace, derived=derived, numbered=numbered)
        findings.extend(cut_findings(derivation, self.settings.limits.max_citations_per_claim))
        started = self._timed("checks", started)
        redacted, redactions = self._redact(trace)
        started = self._timed("redaction", started)
        outcome = JudgeOutcome()
        if self.judge is not None:
            # The judge sees the redacted claims too, never the raw ones.
            outcome = await self.judge.judge(redacted, analysis.with_trace(redacted))
            started = self._timed("judge", started)
        result = score(
            analysis,
            outcome.verdicts,
            self.settings.scoring,
            abstained=(*outcome.abstained, *outcome.withheld),
            judge_failed=outcome.failed,
            fabricated={
                f.claim_id for f in findings if f.code == "fabricated_quote" and f.claim_id
            },
        )
        findings.extend(
            Finding(
                "misattributed",
                "warning",
                claim_id=claim_id,
                source_id=source_id,
                detail="supported_by_uncited_source",
            )
            for claim_id, source_id in outcome.misattributed
        )
        findings.extend(_influenced(outcome))
        record = build_record(
            redacted, analysis, findings, result, outcome, redactions, derived=derived
        )
        redact_ids = getattr(self.redactor, "redact_record_ids", None)
        if redact_ids is not None:  # identifiers the checks read raw
            record = redact_ids(record, trace, redacted)
        self._timed("scoring", started)
        if self.on_record is not None:
            self.on_record(record)
        if self.on_redacted is not None:
            self.on_redacted(record, redacted)
        return record


def build_record(
    trace: Trace,
    analysis: Analysis,
    findings: list[Finding],
    result: ScoreResult,
    outcome: JudgeOutcome,
    redactions: dict[str, int],
    *,
    derived: bool = False,
) -> EvaluationRecord:
    """Assemble the evaluation record. ``trace`` is the redacted trace: its claim texts are
    the only trace text the record carries; ``derived`` marks its claims as derived."""
    critical = {c.claim_id: c.reason for c in result.critical}
    critical_unjudged = frozenset(result.critical_unjudged)
    abstained = frozenset(result.abstained_claim_ids)
    withheld = outcome.withheld
    failed = outcome.failed
    verdicts = outcome.verdicts
    paths = outcome.paths
    texts: dict[str, str] = {}
    cited: set[str] = set()  # the source IDs some claim cites
    for trace_claim in trace.claims:
        texts[trace_claim.id] = trace_claim.text
        cited.update(trace_claim.citation_ids)
    claims = []
    for item in analysis.claims:
        claim = item.claim
        claim_id = claim.id
        status = item.status
        # Fields left at their default (None, False, an empty list) are not passed:
        # validation fills them in at less cost, and the record and its JSON are the same.
        entry = {
            "claim_id": claim_id,
            "text": texts.get(claim_id, ""),
            "importance": claim.importance,
            "kind": claim.kind,
            "status": status,
            # Tuples and lists alike: validation builds the record's own lists.
            "citation_ids": claim.citation_ids,
        }
        if item.invalid_ids:
            entry["invalid_citation_ids"] = item.invalid_ids
        if item.prescreen:
            entry["prescreen_flags"] = item.prescreen
        if derived:
            entry["derived"] = True
        # Each lookup only when there is something to find: most traces have no verdicts,
        # paths or critical claims.
        verdict = verdicts.get(claim_id) if verdicts else None
        if verdict is not None:
            entry["verdict"] = verdict.verdict
            entry["verdict_reason"] = verdict.reason
            entry["evidence_quote"] = verdict.evidence_quote
            entry["resolved_by"] = verdict.resolved_by
        elif status == "cited":
            if claim_id in withheld:
                entry["not_judged"], entry["not_judged_detail"] = withheld[claim_id]
            elif claim_id in abstained:
                entry["not_judged"] = "abstained"
            elif failed:
                entry["not_judged"] = "judge_failed"
        if paths:
            path = paths.get(claim_id)
            if path is not None:
                entry["path"] = path
        if critical and claim_id in critical:
            entry["critical_reason"] = critical[claim_id]
        if critical_unjudged and claim_id in critical_unjudged:
            entry["critical_unjudged"] = True
        claims.append(entry)
    sampled_by = outcome.sampled_by if outcome.sampled_by in _SAMPLED_BY else None
    # One validation of the nested structure: the same checks as building each part as a
    # model, without a Python-level __init__ per claim and finding.
    return _validate_record(
        {
            "trace_id": trace.trace_id,
            "app": trace.app,
            "tenant": trace.tenant,
            "environment": trace.environment,
            "trace_timestamp": trace.timestamp,
            "evaluated_at": datetime.now(UTC),
            "generator": trace.generator,
            # Findings are read by attribute (their fields are the record's own names).
            "findings": findings,
            "claims": claims,
            "scores": {
                "validity": round(result.validity, 6),
                "correctness": _round(result.correctness),
                "completeness": _round(result.completeness),
                "overall": _round(result.overall),
                "marker_ids": analysis.marker_ids,
                "invalid_citation_ids": result.invalid_citation_ids,
                "critical_unsupported": len(result.critical),
                "critical_unjudged": len(result.critical_unjudged),
            },
            "judged": result.judged,
            "sampled_by": sampled_by,
            "skip_reason": outcome.skip_reason,
            "judge": outcome.run,
            "redactions": dict(redactions),
            "cited_sources": _cited_sources(trace, cited),
            "versions": {
                "citewatch": __version__,
                "trace_schema": TRACE_SCHEMA_VERSION,
                "rubric": outcome.run.rubric_version if outcome.run else None,
            },
        },
        from_attributes=True,
    )


_SAMPLED_BY = frozenset(get_args(SampledBy))
_validate_record: Callable[..., EvaluationRecord] = (
    EvaluationRecord.__pydantic_validator__.validate_python
)
"""``EvaluationRecord.model_validate`` without the keyword arguments it does not need."""


def _cited_sources(trace: Trace, cited: set[str]) -> list[dict[str, object]]:
    """The (redacted) trace's sources in ``cited`` that name a document, by title or URL."""
    return [
        {"source_id": s.id, "title": s.title, "url": s.url}
        for s in trace.sources
        if s.id in cited and (s.title or s.url)
    ]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _influenced(outcome: JudgeOutcome) -> list[Finding]:
    """``injection_influenced`` for each claim whose verdict its second opinion, judged
    without the flagged text, did not confirm; ``detail`` the two verdicts."""
    findings = []
    for claim_id, (_, detail) in outcome.withheld.items():
        if detail != "injection_influenced":
            continue
        path = outcome.paths.get(claim_id)
        first = path.llm if path is not None else None
        second = path.rejudge if path is not None else None
        findings.append(
            Finding(
                "injection_influenced",
                "warning",
                claim_id=claim_id,
                detail=f"first={first};without_flagged_text={second or 'none'}",
            )
        )
    return findings
