"""The metrics of evaluated traces: traces by outcome, claims and their verdicts, the
per-trace ratios, critical and unjudged claims, findings, redactions; and the bounded
``app`` label they carry."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import get_args

from prometheus_client import CollectorRegistry, Counter, Histogram

from exporters._children import Children as _Children
from schemas import (
    CriticalReason,
    EvaluationRecord,
    JudgeBackendName,
    SecurityEventKind,
    SuspectReason,
    UnverifiedReason,
)
from schemas.vocabulary import JudgeErrorKind, SampledSkipReason

__all__ = [
    "CRITICAL_REASONS",
    "OTHER_APP",
    "RATIO_BUCKETS",
    "UNJUDGED_REASONS",
    "UNKNOWN_APP",
    "RecordMetrics",
]

logger = logging.getLogger(__name__)

OTHER_APP = "other"
"""The app label value of every app outside the allow-list."""

UNKNOWN_APP = "unknown"
"""The app label value of dead letters whose app could not be read."""

RATIO_BUCKETS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""0.1-wide buckets for 0..1 ratios; +Inf is added by the client."""

CRITICAL_REASONS: tuple[str, ...] = get_args(CriticalReason)
SUSPECT_REASONS: tuple[str, ...] = get_args(SuspectReason)
SECURITY_EVENT_KINDS: tuple[str, ...] = get_args(SecurityEventKind)
UNVERIFIED_REASONS: tuple[str, ...] = get_args(UnverifiedReason)
UNJUDGED_REASONS: tuple[str, ...] = (
    *get_args(JudgeErrorKind),
    *(reason for reason in get_args(SampledSkipReason) if reason not in get_args(JudgeErrorKind)),
    "other",
)
"""Why a failing judge left a critical claim unjudged: the judge error kind or skip reason;
anything else is reported as ``other``."""
SCREEN_JUDGE: JudgeBackendName = "lexical"
"""The ``judge`` label of verdicts the offline screen gave, also inside an LLM-judged trace."""
TRACE_OUTCOMES: tuple[str, ...] = ("evaluated", "dead_lettered", "duplicate")
_UNSAMPLED = "none"


class RecordMetrics:
    """The metrics each evaluated or dead-lettered record updates, per ``app`` label.

    Series that alerts watch with ``increase()`` (traces, invalid citation IDs, critical and
    unjudged claims per allow-listed or admitted app and ``other``) are created at zero here,
    so a claim after a scrape is seen as an increase. A first event before the next scrape is
    still a series first seen at 1: the alert rules count such a series whole (see
    docs/metrics.md).
    """

    def __init__(
        self, *, registry: CollectorRegistry, apps: Iterable[str] = (), max_apps: int = 0
    ) -> None:
        self._apps: set[str] = set(apps)
        # Without an allow-list, the first max_apps apps seen are admitted, then no more.
        self._admit = 0 if self._apps else max_apps
        self._apps_lock = threading.Lock()
        self.traces = Counter(
            "citewatch_traces",
            "Traces consumed, by outcome.",
            ["app", "outcome"],
            registry=registry,
        )
        self.dead_letters = Counter(
            "citewatch_dead_letters",
            "Records sent to the dead-letter topic, by reason.",
            ["reason"],
            registry=registry,
        )
        self.claims = Counter(
            "citewatch_claims",
            "Claims checked, by importance and deterministic status.",
            ["app", "importance", "status"],
            registry=registry,
        )
        self.claim_verdicts = Counter(
            "citewatch_claim_verdicts",
            "Judge verdicts on claims, by importance, verdict, judge backend and sample.",
            ["app", "importance", "verdict", "judge", "sampled_by"],
            registry=registry,
        )
        self.validity = Histogram(
            "citewatch_citation_validity_ratio",
            "Per-trace citation validity: resolving marker IDs / distinct marker IDs.",
            ["app"],
            buckets=RATIO_BUCKETS,
            registry=registry,
        )
        self.correctness = Histogram(
            "citewatch_correctness_ratio",
            "Per judged trace: mean verdict value over cited claims.",
            ["app", "judge", "sampled_by"],
            buckets=RATIO_BUCKETS,
            registry=registry,
        )
        self.completeness = Histogram(
            "citewatch_completeness_ratio",
            "Per judged trace: importance-weighted supported share of all factual claims.",
            ["app", "judge", "sampled_by"],
            buckets=RATIO_BUCKETS,
            registry=registry,
        )
        self.critical_unsupported = Counter(
            "citewatch_critical_unsupported_claims",
            "Importance-3 claims without support, by reason; exemplar carries trace_id.",
            ["app", "reason"],
            registry=registry,
        )
        self.critical_unjudged = Counter(
            "citewatch_critical_unjudged_claims",
            "Importance-3 cited claims of sampled traces a failing judge left without a "
            "verdict, by failure; exemplar carries trace_id.",
            ["app", "reason"],
            registry=registry,
        )
        self.claims_abstained = Counter(
            "citewatch_claims_abstained",
            "Cited claims of judged traces the offline screen abstained on (not judged).",
            ["app", "importance"],
            registry=registry,
        )
        self.claims_suspect = Counter(
            "citewatch_claims_suspect",
            "Cited claims the offline screen alone saw conflict with their sources (not "
            "judged, never critical, routed to review), by the conflict's class.",
            ["app", "reason"],
            registry=registry,
        )
        self.claims_unverified = Counter(
            "citewatch_claims_unverified",
            "Cited claims whose verdict was withheld as untrustworthy (not judged, never "
            "critical, routed to review), by importance and reason.",
            ["app", "importance", "reason"],
            registry=registry,
        )
        self.security_events = Counter(
            "citewatch_security_events",
            "Importance-3 claims a security event touched, by kind (injection_influenced: "
            "the LLM's verdict was not confirmed without the text flagged as addressed to a "
            "model); exemplar carries trace_id.",
            ["app", "kind"],
            registry=registry,
        )
        self.findings = Counter(
            "citewatch_findings",
            "Findings on evaluated traces, by code and severity.",
            ["app", "code", "severity"],
            registry=registry,
        )
        self.invalid_citation_ids = Counter(
            "citewatch_invalid_citation_ids",
            "Citation marker IDs that resolve to no retrieved source.",
            ["app"],
            registry=registry,
        )
        self.redactions = Counter(
            "citewatch_redactions",
            "Sensitive spans replaced by placeholders, by entity type.",
            ["entity_type"],
            registry=registry,
        )
        # Children of the metrics updated per record, resolved once per label set.
        self._traces = _Children(self.traces)
        self._dead_letters = _Children(self.dead_letters)
        self._claims = _Children(self.claims)
        self._claim_verdicts = _Children(self.claim_verdicts)
        self._claims_abstained = _Children(self.claims_abstained)
        self._claims_suspect = _Children(self.claims_suspect)
        self._claims_unverified = _Children(self.claims_unverified)
        self._security_events = _Children(self.security_events)
        self._critical_unsupported = _Children(self.critical_unsupported)
        self._critical_unjudged = _Children(self.critical_unjudged)
        self._findings = _Children(self.findings)
        self._validity = _Children(self.validity)
        self._correctness = _Children(self.correctness)
        self._completeness = _Children(self.completeness)
        self._invalid_citation_ids = _Children(self.invalid_citation_ids)
        self._redactions = _Children(self.redactions)
        for app in (*sorted(self._apps), OTHER_APP):
            self._zero_series(app)

    def _zero_series(self, app: str) -> None:
        for outcome in TRACE_OUTCOMES:
            self.traces.labels(app=app, outcome=outcome)
        for reason in CRITICAL_REASONS:
            self.critical_unsupported.labels(app=app, reason=reason)
        for reason in UNJUDGED_REASONS:
            self.critical_unjudged.labels(app=app, reason=reason)
        for reason in SUSPECT_REASONS:
            self.claims_suspect.labels(app=app, reason=reason)
        for kind in SECURITY_EVENT_KINDS:
            self.security_events.labels(app=app, kind=kind)
        for importance in ("1", "2", "3"):
            for reason in UNVERIFIED_REASONS:
                self.claims_unverified.labels(app=app, importance=importance, reason=reason)
        self.invalid_citation_ids.labels(app=app)

    def app_label(self, app: str, *, admit: bool = True) -> str:
        """The ``app`` label value for ``app``: itself if allow-listed (or admitted as one of
        the first ``max_apps`` apps seen when there is no allow-list), else ``other``.
        ``admit=False`` only looks: an unreadable record must not take a place."""
        if app in self._apps:
            return app
        if not admit or self._admit <= 0 or app in (OTHER_APP, UNKNOWN_APP):
            return OTHER_APP
        with self._apps_lock:
            if app not in self._apps and self._admit > 0:
                self._admit -= 1
                self._apps.add(app)
                self._zero_series(app)
                logger.info("app label %r admitted (%d more may be)", app, self._admit)
        return app if app in self._apps else OTHER_APP

    def observe_record(self, record: EvaluationRecord) -> None:
        """Count one evaluated trace: claims, verdicts, ratios, critical findings, redactions."""
        app = self.app_label(record.app)
        self._traces(app, "evaluated").inc()
        judge = record.judge.judge if record.judge is not None else ""
        sampled_by = record.sampled_by or _UNSAMPLED
        unjudged_reason = _unjudged_reason(record)
        for claim in record.claims:
            importance = str(claim.importance)
            self._claims(app, importance, claim.status).inc()
            if claim.verdict is not None and record.judged:
                self._claim_verdicts(
                    app,
                    importance,
                    claim.verdict,
                    SCREEN_JUDGE if claim.resolved_by == "screen" else judge,
                    sampled_by,
                ).inc()
            if claim.not_judged == "abstained":
                self._claims_abstained(app, importance).inc()
            elif claim.not_judged == "suspect" and claim.not_judged_detail is not None:
                self._claims_suspect(app, claim.not_judged_detail).inc()
            elif claim.not_judged == "unverified" and claim.not_judged_detail is not None:
                self._claims_unverified(app, importance, claim.not_judged_detail).inc(
                    exemplar={"trace_id": record.trace_id}
                )
                if claim.not_judged_detail == "injection_influenced" and claim.importance == 3:
                    self._security_events(app, "injection_influenced").inc(
                        exemplar={"trace_id": record.trace_id}
                    )
            if claim.critical_reason is not None:
                self._critical_unsupported(app, claim.critical_reason).inc(
                    exemplar={"trace_id": record.trace_id}
                )
            if claim.critical_unjudged:
                self._critical_unjudged(app, unjudged_reason).inc(
                    exemplar={"trace_id": record.trace_id}
                )
        for finding in record.findings:
            self._findings(app, finding.code, finding.severity).inc()
        scores = record.scores
        self._validity(app).observe(scores.validity)
        if record.judged:
            if scores.correctness is not None:
                self._correctness(app, judge, sampled_by).observe(scores.correctness)
            if scores.completeness is not None:
                self._completeness(app, judge, sampled_by).observe(scores.completeness)
        if scores.invalid_citation_ids:
            self._invalid_citation_ids(app).inc(len(scores.invalid_citation_ids))
        for entity_type, count in record.redactions.items():
            if count > 0:
                self._redactions(entity_type).inc(count)

    def trace_duplicate(self, app: str) -> None:
        """Count a replayed trace that was already counted."""
        self._traces(self.app_label(app), "duplicate").inc()

    def dead_letter(self, reason: str, app: str = UNKNOWN_APP) -> None:
        """Count a record sent to the dead-letter topic; ``app`` is ``unknown`` if unreadable."""
        label = UNKNOWN_APP if app == UNKNOWN_APP else self.app_label(app, admit=False)
        self._dead_letters(reason).inc()
        self._traces(label, "dead_lettered").inc()


def _unjudged_reason(record: EvaluationRecord) -> str:
    """The judge error kind or skip reason behind unjudged claims, from a bounded set."""
    if record.judge is not None and record.judge.outcome != "ok":
        reason = record.judge.outcome
    else:
        reason = record.skip_reason or "other"
    return reason if reason in UNJUDGED_REASONS else "other"
