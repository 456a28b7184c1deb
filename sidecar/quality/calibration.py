"""Judge calibration against human labels: agreement, kappa, confusion and false support.

Input is a set of claim-level label pairs (human, judge), read by :mod:`sidecar.quality.labels`.
Every pair carries the rubric version and judge model behind its judge label: one report
covers one series, and mixing series needs ``compare=True``.

The riskiest error is a claim people found unsupported that the judge called supported
(``unsupported->supported``): it hides exactly the failures citewatch exists to catch. It is
reported first, apart from the milder ``partial->supported``.

A judge may abstain (the offline screen does when it is not sure): a labelled claim that the
judge looked at and left without a verdict is a pair whose judge label is None. Agreement,
kappa and the confusion matrix are computed on the answered pairs; next to them the report
gives how often the judge abstained and, per verdict class, the share of its verdicts that
people agree with (precision), by which an abstaining judge is judged.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sidecar.quality._stats import Estimate, cohen_kappa, wilson_interval
from sidecar.quality.labels import LABELS, NOT_JUDGED_STATES, CalibrationError, LabelPair

__all__ = [
    "CalibrationReport",
    "GroupMetrics",
    "calibrate",
    "compute_metrics",
    "confusion_matrix",
]

logger = logging.getLogger(__name__)

_KAPPA_RESAMPLES = 500


@dataclass(frozen=True, slots=True)
class GroupMetrics:
    """Agreement figures of one group of pairs (everything, or one slice value)."""

    n: int
    matrix: tuple[tuple[int, ...], ...]
    agreement: Estimate
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    weighted_kappa: float | None
    unsupported_to_supported: Estimate
    partial_to_supported: Estimate
    abstained: Estimate = field(default_factory=lambda: wilson_interval(0, 0))
    """Share of the labelled claims the judge left without a verdict (n counts them all)."""
    precision: dict[str, Estimate] = field(default_factory=dict)
    """Per verdict class, the share of the judge's verdicts people agree with."""
    not_judged: dict[str, int] = field(default_factory=dict)
    """Labelled claims without a verdict, by state (abstained, suspect, unverified,
    judge_failed)."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping; the riskier false-support rate comes first."""
        return {
            "n": self.n,
            "unsupported_to_supported": self.unsupported_to_supported.as_dict(),
            "partial_to_supported": self.partial_to_supported.as_dict(),
            "abstained": self.abstained.as_dict(),
            "not_judged": dict(self.not_judged),
            "precision": {label: est.as_dict() for label, est in self.precision.items()},
            "exact_agreement": self.agreement.as_dict(),
            "kappa": self.kappa,
            "kappa_interval": [self.kappa_low, self.kappa_high],
            "weighted_kappa_linear": self.weighted_kappa,
            "confusion_matrix": {
                "rows": "human",
                "columns": "judge",
                "labels": list(LABELS),
                "counts": [list(row) for row in self.matrix],
            },
        }


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """Calibration of one judge series: overall, per importance and per slice."""

    rubric_version: str
    judge_model: str
    overall: GroupMetrics
    by_importance: dict[str, GroupMetrics] = field(default_factory=dict)
    by_slice: dict[str, dict[str, GroupMetrics]] = field(default_factory=dict)
    unmatched: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "rubric_version": self.rubric_version,
            "judge_model": self.judge_model,
            "unmatched_labels": self.unmatched,
            "overall": self.overall.as_dict(),
            "by_importance": {k: v.as_dict() for k, v in self.by_importance.items()},
            "by_slice": {
                name: {value: m.as_dict() for value, m in values.items()}
                for name, values in self.by_slice.items()
            },
        }


def confusion_matrix(pairs: Iterable[LabelPair]) -> tuple[tuple[int, ...], ...]:
    """3x3 counts, rows human and columns judge, both in :data:`LABELS` order; pairs the
    judge abstained on are left out."""
    index = {label: i for i, label in enumerate(LABELS)}
    counts = [[0] * len(LABELS) for _ in LABELS]
    for pair in pairs:
        if pair.judge is not None:
            counts[index[pair.human]][index[pair.judge]] += 1
    return tuple(tuple(row) for row in counts)


def compute_metrics(pairs: Sequence[LabelPair], *, seed: int = 0) -> GroupMetrics:
    """Every agreement figure of ``pairs``; the kappa interval is a seeded bootstrap.

    Agreement figures count the answered pairs; ``abstained`` the pairs the judge looked
    at and gave no verdict (every state but judge_failed: a failed judge did not look);
    ``not_judged`` counts every state.
    """
    states: dict[str, int] = {}
    for pair in pairs:
        if pair.judge is None:
            state = pair.not_judged or "abstained"
            states[state] = states.get(state, 0) + 1
    labelled = len(pairs) - states.get("judge_failed", 0)
    pairs = [pair for pair in pairs if pair.judge is not None]
    matrix = confusion_matrix(pairs)
    n = len(pairs)
    agree = sum(matrix[i][i] for i in range(len(LABELS)))
    u, p, s = (LABELS.index(label) for label in ("unsupported", "partial", "supported"))
    low, high = _kappa_bootstrap(pairs, seed=seed)
    return GroupMetrics(
        n=n,
        matrix=matrix,
        agreement=wilson_interval(agree, n),
        kappa=cohen_kappa(matrix),
        kappa_low=low,
        kappa_high=high,
        weighted_kappa=cohen_kappa(matrix, weights="linear"),
        unsupported_to_supported=wilson_interval(matrix[u][s], sum(matrix[u])),
        partial_to_supported=wilson_interval(matrix[p][s], sum(matrix[p])),
        abstained=wilson_interval(labelled - n, labelled),
        precision={
            label: wilson_interval(matrix[j][j], sum(row[j] for row in matrix))
            for j, label in enumerate(LABELS)
        },
        not_judged={state: states[state] for state in NOT_JUDGED_STATES if state in states},
    )


def _kappa_bootstrap(pairs: Sequence[LabelPair], *, seed: int) -> tuple[float | None, float | None]:
    if len(pairs) < 10:
        return None, None
    rng = random.Random(seed)
    values = []
    for _ in range(_KAPPA_RESAMPLES):
        kappa = cohen_kappa(confusion_matrix(rng.choices(pairs, k=len(pairs))))
        if kappa is not None:
            values.append(kappa)
    if len(values) < _KAPPA_RESAMPLES // 2:
        return None, None
    values.sort()
    last = len(values) - 1
    cut = int(0.025 * last)
    return values[cut], values[last - cut]


def calibrate(
    pairs: Sequence[LabelPair], *, compare: bool = False, unmatched: int = 0
) -> list[CalibrationReport]:
    """One report per judge series (rubric version, judge model), largest first.

    Raises CalibrationError when ``pairs`` is empty, or spans more than one series and
    ``compare`` is False: figures of two rubrics or two models are not one population.
    """
    if not pairs:
        raise CalibrationError("no labelled claims to calibrate on")
    series: dict[tuple[str, str], list[LabelPair]] = {}
    for pair in pairs:
        series.setdefault(pair.series, []).append(pair)
    if len(series) > 1 and not compare:
        names = ", ".join(
            f"rubric {r} / model {m} ({len(v)} claims)" for (r, m), v in sorted(series.items())
        )
        raise CalibrationError(
            f"labels mix {len(series)} judge series ({names}); calibrate one series at a "
            "time, or pass --compare to show them side by side"
        )
    reports = []
    for (rubric, model), group in sorted(series.items(), key=lambda item: -len(item[1])):
        reports.append(_report(rubric, model, group, unmatched))
    logger.info("calibrated %d labelled claims in %d series", len(pairs), len(reports))
    return reports


def _report(rubric: str, model: str, pairs: list[LabelPair], unmatched: int) -> CalibrationReport:
    by_importance: dict[str, list[LabelPair]] = {}
    by_slice: dict[str, dict[str, list[LabelPair]]] = {}
    for pair in pairs:
        if pair.importance is not None:
            by_importance.setdefault(str(pair.importance), []).append(pair)
        dims = list(pair.slices)
        if pair.failure_type:
            dims.append(("failure_type", pair.failure_type))
        for name, value in dims:
            by_slice.setdefault(name, {}).setdefault(value, []).append(pair)
    return CalibrationReport(
        rubric_version=rubric,
        judge_model=model,
        overall=compute_metrics(pairs),
        by_importance={k: compute_metrics(v) for k, v in sorted(by_importance.items())},
        by_slice={
            name: {value: compute_metrics(group) for value, group in sorted(values.items())}
            for name, values in sorted(by_slice.items())
        },
        unmatched=unmatched,
    )
