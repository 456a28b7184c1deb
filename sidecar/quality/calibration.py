"""Judge calibration against human labels: agreement, kappa, confusion and false support.

Input is a set of claim-level label pairs (human, judge). They come either from one labels
file carrying both labels, or from a human-labels file joined with evaluation records by
(trace_id, claim_id). Every pair carries the rubric version and judge model behind its
judge label: one report covers one series, and mixing series needs ``compare=True``.

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

import csv
import json
import logging
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas import ClaimResult, EvaluationRecord, VerdictLabel
from sidecar.errors import CitewatchError
from sidecar.quality._io import RecordReadError, read_records
from sidecar.quality._stats import Estimate, cohen_kappa, wilson_interval

__all__ = [
    "LABELS",
    "CalibrationError",
    "CalibrationReport",
    "GroupMetrics",
    "HumanLabel",
    "LabelPair",
    "calibrate",
    "compute_metrics",
    "confusion_matrix",
    "join_evaluations",
    "load_evaluations",
    "load_labels",
    "pairs_from_labels",
    "parse_label",
]

logger = logging.getLogger(__name__)

LABELS: tuple[VerdictLabel, ...] = ("unsupported", "partial", "supported")
"""The ordered label scale: the order weighted kappa uses."""

UNKNOWN = "unknown"
_ALIASES = {"partially_supported": "partial", "partially supported": "partial",
            "not_supported": "unsupported", "not supported": "unsupported"}
_CORE_COLUMNS = frozenset({
    "case_id", "trace_id", "claim_id", "human_label", "judge_label", "importance",
    "failure_type", "rubric_version", "judge_model", "claim_text", "passages", "citation_ids",
})
_KAPPA_RESAMPLES = 500
_ABSTAINED = frozenset({"abstained", "abstain", "none", "not_judged"})


class CalibrationError(CitewatchError):
    """Labels cannot be read or joined, or would mix two judge series in one report."""

    reason = "calibration"


@dataclass(frozen=True, slots=True)
class LabelPair:
    """One claim labelled by people and by the judge."""

    case_id: str
    claim_id: str
    human: VerdictLabel
    judge: VerdictLabel | None
    """None: the judge abstained on this claim."""
    importance: int | None = None
    failure_type: str | None = None
    rubric_version: str = UNKNOWN
    judge_model: str = UNKNOWN
    slices: tuple[tuple[str, str], ...] = ()

    @property
    def series(self) -> tuple[str, str]:
        """(rubric_version, judge_model): pairs of one report share it."""
        return (self.rubric_version, self.judge_model)


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

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping; the riskier false-support rate comes first."""
        return {
            "n": self.n,
            "unsupported_to_supported": self.unsupported_to_supported.as_dict(),
            "partial_to_supported": self.partial_to_supported.as_dict(),
            "abstained": self.abstained.as_dict(),
            "precision": {label: est.as_dict() for label, est in self.precision.items()},
            "exact_agreement": self.agreement.as_dict(),
            "kappa": self.kappa,
            "kappa_interval": [self.kappa_low, self.kappa_high],
            "weighted_kappa_linear": self.weighted_kappa,
            "confusion_matrix": {
                "rows": "human", "columns": "judge", "labels": list(LABELS),
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


def parse_label(value: Any, *, where: str) -> VerdictLabel:
    """A verdict label from free-form input; raises CalibrationError naming ``where``."""
    text = str(value).strip().lower() if value is not None else ""
    text = _ALIASES.get(text, text)
    if text not in LABELS:
        raise CalibrationError(f"{where}: label {text or '(empty)'!r} is not one of "
                               f"{', '.join(LABELS)}")
    return text


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

    Agreement figures count the answered pairs; ``abstained`` counts all of them.
    """
    labelled = len(pairs)
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
        precision={label: wilson_interval(matrix[j][j], sum(row[j] for row in matrix))
                   for j, label in enumerate(LABELS)},
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
        names = ", ".join(f"rubric {r} / model {m} ({len(v)} claims)"
                          for (r, m), v in sorted(series.items()))
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


# -- reading -----------------------------------------------------------------------------


def _read_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Rows of a CSV or JSON Lines file, each with a 'file:line' location."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"cannot read {path}: {exc.strerror}") from None
    rows: list[tuple[str, dict[str, Any]]] = []
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson") or text.lstrip().startswith("{"):
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CalibrationError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise CalibrationError(f"{path}:{number}: expected a JSON object")
            rows.append((f"{path}:{number}", row))
        return rows
    reader = csv.DictReader(text.splitlines())
    for number, row in enumerate(reader, start=2):
        rows.append((f"{path}:{number}", {k.strip(): v for k, v in row.items() if k}))
    return rows


def _text(row: Mapping[str, Any], key: str) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _importance(row: Mapping[str, Any], where: str) -> int | None:
    value = _text(row, "importance")
    if value is None:
        return None
    try:
        importance = int(float(value))
    except ValueError:
        raise CalibrationError(f"{where}: importance {value!r} is not 1, 2 or 3") from None
    if importance not in (1, 2, 3):
        raise CalibrationError(f"{where}: importance {importance} is not 1, 2 or 3")
    return importance


def _slices(row: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    found = []
    for key, value in row.items():
        if key in _CORE_COLUMNS or value is None or isinstance(value, (dict, list)):
            continue
        text = str(value).strip()
        if text:
            found.append((key, text))
    return tuple(sorted(found))


@dataclass(frozen=True, slots=True)
class HumanLabel:
    """One row of a labels file, before it is paired with a judge label."""

    where: str
    case_id: str
    claim_id: str
    human: VerdictLabel
    judge: VerdictLabel | None
    importance: int | None
    failure_type: str | None
    rubric_version: str | None
    judge_model: str | None
    slices: tuple[tuple[str, str], ...]
    row: Mapping[str, Any]
    abstained: bool = False
    """The judge_label column says the judge abstained ("abstained")."""


def load_labels(path: str | Path) -> list[HumanLabel]:
    """Read a labels file (CSV or JSON Lines). Raises CalibrationError on a bad row."""
    labels = []
    for where, row in _read_rows(Path(path)):
        case_id = _text(row, "case_id") or _text(row, "trace_id")
        claim_id = _text(row, "claim_id")
        if case_id is None or claim_id is None:
            raise CalibrationError(f"{where}: case_id (or trace_id) and claim_id are required")
        judge_raw = _text(row, "judge_label")
        abstained = judge_raw is not None and judge_raw.lower() in _ABSTAINED
        if abstained:
            judge_raw = None
        labels.append(HumanLabel(
            where=where,
            case_id=case_id,
            claim_id=claim_id,
            human=parse_label(row.get("human_label"), where=f"{where} human_label"),
            judge=parse_label(judge_raw, where=f"{where} judge_label") if judge_raw else None,
            importance=_importance(row, where),
            failure_type=_text(row, "failure_type"),
            rubric_version=_text(row, "rubric_version"),
            judge_model=_text(row, "judge_model"),
            slices=_slices(row),
            row=row,
            abstained=abstained,
        ))
    return labels


def pairs_from_labels(labels: Iterable[HumanLabel]) -> list[LabelPair]:
    """Pairs from labels files that carry the judge label themselves.

    Raises CalibrationError naming the first row without a judge label.
    """
    pairs = []
    for label in labels:
        if label.judge is None and not label.abstained:
            raise CalibrationError(f"{label.where}: no judge_label (pass --evaluations to "
                                   "take judge verdicts from evaluation records)")
        pairs.append(LabelPair(
            case_id=label.case_id, claim_id=label.claim_id, human=label.human,
            judge=label.judge, importance=label.importance, failure_type=label.failure_type,
            rubric_version=label.rubric_version or UNKNOWN,
            judge_model=label.judge_model or UNKNOWN, slices=label.slices,
        ))
    return pairs


def load_evaluations(path: str | Path) -> list[EvaluationRecord]:
    """Evaluation records from a JSON Lines file. Raises CalibrationError on a bad line."""
    try:
        return list(read_records([Path(path)], strict=True))
    except RecordReadError as exc:
        raise CalibrationError(str(exc)) from None


def _abstained(record: EvaluationRecord, claim: ClaimResult) -> bool:
    """The judge ran on the trace without an error and left this cited claim unjudged, or
    said so in the claim's reason."""
    if (claim.verdict_reason or "").startswith("abstained"):
        return True
    ran = record.judged and (record.judge is None or record.judge.outcome == "ok")
    return ran and bool(set(claim.citation_ids) - set(claim.invalid_citation_ids))


def path_slice(claim: ClaimResult) -> str:
    """Which stages gave the claim its outcome, as a calibration slice: ``screen`` (the
    screen settled it), ``llm`` (the LLM alone), ``screen_agreed`` / ``screen_disagreed``
    (both gave a verdict), ``rejudged`` (a second opinion without flagged text), ``cache``,
    or ``not_judged_<reason>``."""
    path = claim.path
    return path_name(claim.not_judged, claim.resolved_by,
                     rejudge=path.rejudge if path is not None else None,
                     agreed=path.agreed if path is not None else None)


def path_name(not_judged: str | None, resolved_by: str | None, *, rejudge: object,
              agreed: object) -> str:
    """:func:`path_slice` from the fields a record or a review item carries."""
    if not_judged is not None:
        return f"not_judged_{not_judged}"
    if rejudge is not None:
        return "rejudged"
    if resolved_by in ("screen", "cache"):
        return resolved_by
    if isinstance(agreed, bool):
        return "screen_agreed" if agreed else "screen_disagreed"
    return "llm"


def join_evaluations(
    labels: Iterable[HumanLabel], records: Iterable[EvaluationRecord]
) -> tuple[list[LabelPair], int]:
    """Pair human labels with judged claims by (trace_id, claim_id).

    Returns the pairs and the number of labels with no judged claim to pair with. A cited
    claim the judge looked at and left without a verdict pairs with judge None (abstained).
    The labels' case_id is taken as the trace_id; the app becomes a slice.
    """
    judged: dict[tuple[str, str], tuple[EvaluationRecord, ClaimResult]] = {}
    for record in records:
        for claim in record.claims:
            if claim.verdict is not None or _abstained(record, claim):
                judged[(record.trace_id, claim.claim_id)] = (record, claim)
    pairs = []
    unmatched = 0
    for label in labels:
        found = judged.get((label.case_id.lower(), label.claim_id))
        if found is None:
            unmatched += 1
            continue
        record, claim = found
        run = record.judge
        slices = dict(label.slices)
        slices.setdefault("app", record.app)
        slices.setdefault("path", path_slice(claim))
        pairs.append(LabelPair(
            case_id=label.case_id, claim_id=label.claim_id, human=label.human,
            judge=claim.verdict, importance=label.importance or claim.importance,
            failure_type=label.failure_type,
            rubric_version=(run.rubric_version if run else None) or record.versions.rubric
            or UNKNOWN,
            judge_model=run.model if run else UNKNOWN,
            slices=tuple(sorted(slices.items())),
        ))
    if unmatched:
        logger.warning("%d labels matched no judged claim in the evaluations", unmatched)
    return pairs, unmatched

