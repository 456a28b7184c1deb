"""The weekly quality report for the review meeting.

Built from evaluation records (a JSON Lines file or a directory of them) by
:func:`weekly_from_records`, or from the Prometheus HTTP API by
``sidecar.quality._prometheus.weekly_from_prometheus``; rendered to self-contained HTML
(inline SVG plots) and Markdown by ``sidecar.quality._render``.

Population figures (correctness, completeness) use the base sample only: priority-sampled
traces were chosen because they looked suspicious and would bias them. Series of different
judge backends are kept apart. "This week" is the seven days ending on ``end`` (UTC dates),
"last week" the seven before.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, timedelta

from schemas import EvaluationRecord
from sidecar.quality._stats import Estimate, mean_interval, wilson_interval

__all__ = [
    "CRITICAL_ORDER",
    "AppSection",
    "CriticalItem",
    "DayFigure",
    "JudgeCost",
    "WeeklyReport",
    "week_days",
    "weekly_from_records",
    "source_document",
]

logger = logging.getLogger(__name__)

CRITICAL_ORDER: tuple[str, ...] = (
    "judged_unsupported",
    "quote_not_found",
    "quote_in_injection",
    "invalid_citation",
    "uncited",
)
"""Critical reasons, most telling first: the order the top list is sorted in (every
``CriticalReason``)."""

_TEXT_LIMIT = 300


@dataclass(frozen=True, slots=True)
class DayFigure:
    """One metric on one day, with its interval and count."""

    day: date
    estimate: Estimate


@dataclass(frozen=True, slots=True)
class CriticalItem:
    """One critical claim left without support, listed once however many traces made it
    (the same redacted text for the same reason): ``traces`` of them from ``first_day`` to
    ``day``; the trace, claim, cited IDs, verdict, reason and evidence are the latest
    trace's. ``text`` is the redacted claim text."""

    trace_id: str
    claim_id: str
    day: date
    text: str
    citation_ids: tuple[str, ...]
    verdict: str | None
    reason: str
    verdict_reason: str | None
    evidence: str | None
    traces: int = 1
    first_day: date | None = None


@dataclass(frozen=True, slots=True)
class JudgeCost:
    """Judge calls of one model (for one app, or all apps) this week."""

    scope: str
    model: str
    requests: int
    errors: Estimate
    input_tokens: int
    output_tokens: int
    outcomes: dict[str, int] = field(default_factory=dict)


@dataclass
class AppSection:
    """Everything the report shows for one app."""

    app: str
    series: dict[str, list[DayFigure]] = field(default_factory=dict)
    weeks: dict[str, tuple[Estimate, Estimate]] = field(default_factory=dict)
    critical_counts: dict[str, int] = field(default_factory=dict)
    critical: list[CriticalItem] = field(default_factory=list)
    critical_total: int = 0
    top_sources: list[tuple[str, int]] = field(default_factory=list)
    traces: int = 0


@dataclass
class WeeklyReport:
    """The weekly report: per-app sections, judge cost and notes on what is missing."""

    end: date
    source: str
    apps: list[AppSection] = field(default_factory=list)
    judge: list[JudgeCost] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def days(self) -> list[date]:
        """The fourteen days covered, oldest first."""
        return week_days(self.end)

    @property
    def this_week(self) -> tuple[date, date]:
        """First and last day of this week."""
        return self.end - timedelta(days=6), self.end


def week_days(end: date) -> list[date]:
    """The fourteen days ending on ``end``: last week then this week."""
    return [end - timedelta(days=13 - i) for i in range(14)]


class _AppData:
    """Per-app accumulators while records stream by."""

    def __init__(self) -> None:
        self.values: dict[str, dict[date, list[float]]] = {}
        self.critical: dict[tuple[str, str], _CriticalGroup] = {}
        self.critical_counts: Counter[str] = Counter()
        self.sources: Counter[str] = Counter()
        self.judges: set[str] = set()
        self.traces = 0

    def add(self, metric: str, day: date, value: float) -> None:
        self.values.setdefault(metric, {}).setdefault(day, []).append(value)


@dataclass
class _CriticalGroup:
    """The traces that made one critical claim: how many, the first day, the latest one."""

    latest: CriticalItem
    stamp: float
    first_day: date
    traces: int = 1

    def add(self, item: CriticalItem, stamp: float) -> None:
        self.traces += 1
        self.first_day = min(self.first_day, item.day)
        if stamp > self.stamp:
            self.latest, self.stamp = item, stamp

    def item(self) -> CriticalItem:
        return replace(self.latest, traces=self.traces, first_day=self.first_day)


def _claim_key(reason: str, text: str) -> tuple[str, str]:
    """One critical claim whatever trace made it: its reason and its redacted text, with
    case and spacing ignored."""
    return reason, " ".join(text.split()).casefold()


class _JudgeData:
    def __init__(self) -> None:
        self.requests = 0
        self.errors = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.outcomes: Counter[str] = Counter()


def _day(record: EvaluationRecord) -> date:
    stamp = record.trace_timestamp
    return (stamp.astimezone(UTC) if stamp.tzinfo is not None else stamp).date()


def weekly_from_records(
    records: Iterable[EvaluationRecord],
    *,
    end: date | None = None,
    top: int = 10,
) -> WeeklyReport:
    """Build the report from evaluation records; ``end`` defaults to the latest trace day.

    Records are read once; only the fourteen days ending on ``end`` are kept in memory.
    """
    kept = list(records) if end is None else None
    if end is None:
        assert kept is not None
        if not kept:
            return WeeklyReport(
                end=date.today(),
                source="evaluation records",
                notes=["no evaluation records were found"],
            )
        end = max(_day(r) for r in kept)
    first = end - timedelta(days=13)
    this_week_start = end - timedelta(days=6)
    apps: dict[str, _AppData] = {}
    judges: dict[tuple[str, str], _JudgeData] = {}
    outside = 0
    for record in kept if kept is not None else records:
        day = _day(record)
        if not first <= day <= end:
            outside += 1
            continue
        data = apps.setdefault(record.app, _AppData())
        data.traces += 1
        data.add("validity", day, record.scores.validity)
        run = record.judge
        if record.judged and record.sampled_by != "priority" and run is not None:
            data.judges.add(run.judge)
            for metric in ("correctness", "completeness"):
                value = getattr(record.scores, metric)
                if value is not None:
                    data.add(f"{metric}\t{run.judge}", day, value)
        if day < this_week_start:
            continue
        if run is not None:
            stats = judges.setdefault((record.app, f"{run.judge}/{run.model}"), _JudgeData())
            stats.requests += 1
            stats.errors += run.outcome != "ok"
            stats.outcomes[run.outcome] += 1
            stats.input_tokens += run.input_tokens
            stats.output_tokens += run.output_tokens
        documents = {s.source_id: s.url or s.title for s in record.cited_sources}
        for claim in record.claims:
            if claim.verdict == "unsupported":
                bad = set(claim.invalid_citation_ids)
                data.sources.update(
                    source_document(i, documents) for i in claim.citation_ids if i not in bad
                )
            if claim.critical_reason is None:
                continue
            data.critical_counts[claim.critical_reason] += 1
            item = CriticalItem(
                trace_id=record.trace_id,
                claim_id=claim.claim_id,
                day=day,
                text=_clip(claim.text),
                citation_ids=tuple(claim.citation_ids),
                verdict=claim.verdict,
                reason=claim.critical_reason,
                verdict_reason=_clip(claim.verdict_reason) if claim.verdict_reason else None,
                evidence=_clip(claim.evidence_quote) if claim.evidence_quote else None,
            )
            stamp = record.trace_timestamp.timestamp()
            key = _claim_key(claim.critical_reason, claim.text)
            group = data.critical.get(key)
            if group is None:
                data.critical[key] = _CriticalGroup(item, stamp, day)
            else:
                group.add(item, stamp)
    if outside:
        logger.info("%d records fall outside the two weeks ending %s", outside, end)
    report = WeeklyReport(end=end, source="evaluation records")
    for app in sorted(apps):
        report.apps.append(_section(app, apps[app], end, top))
    for (scope, model), stats in sorted(judges.items()):
        report.judge.append(
            JudgeCost(
                scope=scope,
                model=model,
                requests=stats.requests,
                errors=wilson_interval(stats.errors, stats.requests),
                input_tokens=stats.input_tokens,
                output_tokens=stats.output_tokens,
                outcomes=dict(sorted(stats.outcomes.items())),
            )
        )
    if not report.apps:
        report.notes.append(f"no evaluation records in the two weeks ending {end}")
    return report


def _section(app: str, data: _AppData, end: date, top: int) -> AppSection:
    section = AppSection(app=app, traces=data.traces)
    days = week_days(end)
    single_judge = len(data.judges) <= 1
    for metric in sorted(data.values, key=_metric_order):
        base, _, judge = metric.partition("\t")
        name = base if single_judge or not judge else f"{base} ({judge})"
        by_day = data.values[metric]
        section.series[name] = [
            DayFigure(day, mean_interval(by_day.get(day, []), seed=i)) for i, day in enumerate(days)
        ]
        last = [v for day in days[:7] for v in by_day.get(day, [])]
        this = [v for day in days[7:] for v in by_day.get(day, [])]
        section.weeks[name] = (mean_interval(last), mean_interval(this))
    section.critical_counts = {
        r: data.critical_counts[r] for r in CRITICAL_ORDER if data.critical_counts[r]
    }
    section.critical_total = sum(data.critical_counts.values())
    # Most telling reason first, then the claims most traces made, then the latest.
    groups = sorted(
        data.critical.values(), key=lambda g: (_rank(g.latest.reason), -g.traces, -g.stamp)
    )
    section.critical = [group.item() for group in groups[:top]]
    section.top_sources = data.sources.most_common(top)
    return section


def source_document(source_id: str, documents: Mapping[str, str]) -> str:
    """How the report names a cited source: its URL, else its title, else its ID marked as
    one (a per-trace ID such as S1 names no document)."""
    return documents.get(source_id) or f"{source_id} (ID only)"


def _rank(reason: str) -> int:
    return CRITICAL_ORDER.index(reason) if reason in CRITICAL_ORDER else len(CRITICAL_ORDER)


def _metric_order(metric: str) -> tuple[int, str]:
    base = metric.partition("\t")[0]
    order = ("validity", "correctness", "completeness")
    return (order.index(base) if base in order else len(order), metric)


def _clip(text: str | None) -> str:
    if text is None:
        return ""
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "\u2026"
