"""The citewatch Prometheus metric set, registered on an injected registry.

Every metric is prefixed ``citewatch_``. Label values stay bounded: the ``app`` label
comes from a configured allow-list, or without one from the first ``max_apps`` apps seen
(anything else is reported as ``other``), and trace
IDs travel only as exemplars on ``citewatch_critical_unsupported_claims_total``.
The names, labels and buckets here are a public contract documented in docs/metrics.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info

from exporters._children import Children as _Children
from schemas import (
    CriticalReason,
    EvaluationRecord,
    JudgeBackendName,
    SecurityEventKind,
    SuspectReason,
)
from schemas.vocabulary import (
    CircuitState,
    JudgeErrorKind,
    SampledSkipReason,
    SkipReason,
    Stage,
)

__all__ = [
    "CIRCUIT_STATES",
    "CRITICAL_REASONS",
    "UNJUDGED_REASONS",
    "JUDGE_LATENCY_BUCKETS",
    "OTHER_APP",
    "RATIO_BUCKETS",
    "STAGE_BUCKETS",
    "STAGES",
    "UNKNOWN_APP",
    "CitewatchMetrics",
]

logger = logging.getLogger(__name__)

OTHER_APP = "other"
"""The app label value of every app outside the allow-list."""

UNKNOWN_APP = "unknown"
"""The app label value of dead letters whose app could not be read."""

RATIO_BUCKETS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""0.1-wide buckets for 0..1 ratios; +Inf is added by the client."""

JUDGE_LATENCY_BUCKETS: tuple[float, ...] = (
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0,
)  # fmt: skip
"""LLM call latencies: from a cache-like 10 ms to a slow 80 s completion."""

STAGE_BUCKETS: tuple[float, ...] = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    80.0,
)  # fmt: skip
"""Pipeline stage durations: sub-millisecond checks up to a judge call."""

CRITICAL_REASONS: tuple[str, ...] = get_args(CriticalReason)
SUSPECT_REASONS: tuple[str, ...] = get_args(SuspectReason)
SECURITY_EVENT_KINDS: tuple[str, ...] = get_args(SecurityEventKind)
UNJUDGED_REASONS: tuple[str, ...] = (
    *get_args(JudgeErrorKind),
    *(reason for reason in get_args(SampledSkipReason) if reason not in get_args(JudgeErrorKind)),
    "other",
)
"""Why a failing judge left a critical claim unjudged: the judge error kind or skip reason;
anything else is reported as ``other``."""
SCREEN_JUDGE: JudgeBackendName = "lexical"
"""The ``judge`` label of verdicts the offline screen gave, also inside an LLM-judged trace."""
CIRCUIT_STATES: tuple[CircuitState, ...] = get_args(CircuitState)
STAGES: tuple[Stage, ...] = get_args(Stage)
TRACE_OUTCOMES: tuple[str, ...] = ("evaluated", "dead_lettered", "duplicate")
_UNSAMPLED = "none"


class CitewatchMetrics:
    """All citewatch metrics on one registry; the pipeline reports through these methods.

    Series that alerts watch with ``increase()`` (traces, invalid citation IDs and critical
    unsupported claims per allow-listed app and ``other``) are created at zero here, so the
    first event is seen as an increase rather than as a brand-new series, which
    ``increase()`` cannot see.
    """

    def __init__(
        self,
        *,
        registry: CollectorRegistry,
        apps: Iterable[str] = (),
        max_apps: int = 0,
        version: str = "",
        rubric_version: str = "",
        judge_model: str = "",
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
        self.judge_requests = Counter(
            "citewatch_judge_requests",
            "Judge calls, by model and outcome.",
            ["model", "outcome"],
            registry=registry,
        )
        self.judge_latency = Histogram(
            "citewatch_judge_latency_seconds",
            "Judge call latency.",
            ["model"],
            buckets=JUDGE_LATENCY_BUCKETS,
            registry=registry,
        )
        self.judge_tokens = Counter(
            "citewatch_judge_tokens",
            "Tokens used by judge calls, by model and type (input, output).",
            ["model", "type"],
            registry=registry,
        )
        self.judge_skips = Counter(
            "citewatch_judge_skips",
            "Traces not judged, by reason.",
            ["reason"],
            registry=registry,
        )
        self.judge_cache_hits = Counter(
            "citewatch_judge_cache_hits",
            "Claim verdicts served from the judge cache.",
            registry=registry,
        )
        self.judge_quote_not_found = Counter(
            "citewatch_judge_quote_not_found",
            "Supported or partial verdicts whose evidence quote was not in the cited passages.",
            registry=registry,
        )
        self.circuit_state = Gauge(
            "citewatch_judge_circuit_state",
            "Judge circuit breaker: 1 for the current state, 0 for the others.",
            ["state"],
            registry=registry,
        )
        self.consumer_lag = Gauge(
            "citewatch_consumer_lag_records",
            "Records behind: end offset minus committed offset, per partition.",
            ["topic", "partition"],
            registry=registry,
        )
        self.last_processed = Gauge(
            "citewatch_last_processed_timestamp_seconds",
            "Unix time at which the last record was processed.",
            registry=registry,
        )
        self.slow_records = Counter(
            "citewatch_slow_records",
            "Records still in evaluation after runtime.slow_record_seconds.",
            registry=registry,
        )
        self.slow_in_progress = Gauge(
            "citewatch_slow_records_in_progress",
            "Records in evaluation for longer than runtime.slow_record_seconds right now.",
            registry=registry,
        )
        self.stage_duration = Histogram(
            "citewatch_stage_duration_seconds",
            "Processing time per pipeline stage.",
            ["stage"],
            buckets=STAGE_BUCKETS,
            registry=registry,
        )
        # Exposed as the gauge citewatch_build_info (always 1, the values as labels).
        self.build_info = Info(
            "citewatch_build",
            "Always 1; labels name the running version, rubric version and judge model.",
            registry=registry,
        )
        # Children of the metrics updated per record, resolved once per label set.
        self._traces = _Children(self.traces)
        self._dead_letters = _Children(self.dead_letters)
        self._claims = _Children(self.claims)
        self._claim_verdicts = _Children(self.claim_verdicts)
        self._claims_abstained = _Children(self.claims_abstained)
        self._claims_suspect = _Children(self.claims_suspect)
        self._security_events = _Children(self.security_events)
        self._critical_unsupported = _Children(self.critical_unsupported)
        self._critical_unjudged = _Children(self.critical_unjudged)
        self._findings = _Children(self.findings)
        self._validity = _Children(self.validity)
        self._correctness = _Children(self.correctness)
        self._completeness = _Children(self.completeness)
        self._invalid_citation_ids = _Children(self.invalid_citation_ids)
        self._redactions = _Children(self.redactions)
        self._judge_requests = _Children(self.judge_requests)
        self._judge_latency = _Children(self.judge_latency)
        self._judge_tokens = _Children(self.judge_tokens)
        self._judge_skips = _Children(self.judge_skips)
        self._stage_duration = _Children(self.stage_duration)
        self.set_build_info(version=version, rubric_version=rubric_version,
                            judge_model=judge_model)
        self.set_circuit_state("closed")
        # Starts at creation time, so a consumer that never processes a record still reads as
        # stalled ten minutes later instead of as "last processed in 1970".
        self.last_processed.set_to_current_time()
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
            elif (claim.not_judged_detail == "injection_influenced"
                  and claim.importance == 3):
                self._security_events(app, "injection_influenced").inc(
                    exemplar={"trace_id": record.trace_id})
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
                self._correctness(app, judge, sampled_by).observe(
                    scores.correctness
                )
            if scores.completeness is not None:
                self._completeness(app, judge, sampled_by).observe(
                    scores.completeness
                )
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

    def judge_request(
        self,
        *,
        model: str,
        outcome: str,
        latency_seconds: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """Count one judge call with its outcome, latency and token usage."""
        self._judge_requests(model, outcome).inc()
        self._judge_latency(model).observe(latency_seconds)
        if input_tokens > 0:
            self._judge_tokens(model, "input").inc(input_tokens)
        if output_tokens > 0:
            self._judge_tokens(model, "output").inc(output_tokens)

    def judge_skip(self, reason: SkipReason) -> None:
        """Count a trace the judge did not see, with the reason (sampling, budget, circuit)."""
        self._judge_skips(reason).inc()

    def judge_cache_hit(self, count: int = 1) -> None:
        """Count claim verdicts served from the cache."""
        self.judge_cache_hits.inc(count)

    def quote_not_found(self) -> None:
        """Count a verdict downgraded because its evidence quote was not found."""
        self.judge_quote_not_found.inc()

    def set_build_info(self, *, version: str, rubric_version: str, judge_model: str) -> None:
        """Name what is running: set once the judge stage is built (it knows its rubric
        version and model); empty strings when there is no judge."""
        self.build_info.info(
            {"version": version, "rubric_version": rubric_version, "judge_model": judge_model}
        )

    def set_circuit_state(self, state: CircuitState) -> None:
        """Set the circuit breaker state gauge to ``closed``, ``open`` or ``half_open``.

        Never raises (the judge reports through this while it works): an unknown state is
        logged and leaves the gauge as it was.
        """
        if state not in CIRCUIT_STATES:
            logger.warning("ignoring unknown judge circuit state %r", state)
            return
        for name in CIRCUIT_STATES:
            self.circuit_state.labels(state=name).set(1 if name == state else 0)

    def set_lag(self, topic: str, partition: int, lag: int) -> None:
        """Record the consumer lag of one partition (end offset minus committed offset)."""
        self.consumer_lag.labels(topic=topic, partition=str(partition)).set(lag)

    def mark_processed(self, timestamp: float) -> None:
        """Record the unix time at which the last record was processed."""
        self.last_processed.set(timestamp)

    def slow_record(self) -> None:
        """Count a record that crossed the slow-record threshold (once per record)."""
        self.slow_records.inc()

    def set_slow_in_progress(self, count: int) -> None:
        """Set how many records are in evaluation beyond the slow-record threshold."""
        self.slow_in_progress.set(count)

    def observe_stage(self, stage: Stage, seconds: float) -> None:
        """Record the duration of one pipeline stage for one trace."""
        self._stage_duration(stage).observe(seconds)


def _unjudged_reason(record: EvaluationRecord) -> str:
    """The judge error kind or skip reason behind unjudged claims, from a bounded set."""
    if record.judge is not None and record.judge.outcome != "ok":
        reason = record.judge.outcome
    else:
        reason = record.skip_reason or "other"
    return reason if reason in UNJUDGED_REASONS else "other"
