"""Claim-level label pairs (human, judge) for calibration, read from files.

They come either from one labels file (CSV or JSON Lines) carrying both labels, or from a
human-labels file joined with evaluation records by (trace_id, claim_id). Every pair carries
the rubric version and judge model behind its judge label, so a report can keep to one
series (:func:`sidecar.quality.calibration.calibrate`). A labelled claim the judge looked at
and left without a verdict pairs with judge None (abstained).
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas import ClaimResult, EvaluationRecord, VerdictLabel
from sidecar.errors import CitewatchError
from sidecar.quality._io import RecordReadError, read_records

__all__ = [
    "LABELS",
    "UNKNOWN",
    "CalibrationError",
    "HumanLabel",
    "LabelPair",
    "join_evaluations",
    "load_evaluations",
    "load_labels",
    "pairs_from_labels",
    "parse_label",
    "path_name",
    "path_slice",
]

logger = logging.getLogger(__name__)

LABELS: tuple[VerdictLabel, ...] = ("unsupported", "partial", "supported")
"""The ordered label scale: the order weighted kappa uses."""

UNKNOWN = "unknown"
_ALIASES = {
    "partially_supported": "partial",
    "partially supported": "partial",
    "not_supported": "unsupported",
    "not supported": "unsupported",
}
_CORE_COLUMNS = frozenset(
    {
        "case_id",
        "trace_id",
        "claim_id",
        "human_label",
        "judge_label",
        "importance",
        "failure_type",
        "rubric_version",
        "judge_model",
        "claim_text",
        "passages",
        "citation_ids",
    }
)
_ABSTAINED = frozenset({"abstained", "abstain", "none", "not_judged"})
NOT_JUDGED_STATES = ("abstained", "suspect", "unverified", "judge_failed")
"""Every state a claim the judge gave no verdict can be in (the record's ``not_judged``)."""


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
    """None: the judge gave no verdict on this claim (``not_judged`` says why)."""
    importance: int | None = None
    failure_type: str | None = None
    rubric_version: str = UNKNOWN
    judge_model: str = UNKNOWN
    slices: tuple[tuple[str, str], ...] = ()
    not_judged: str | None = None
    """Why the judge gave no verdict: abstained, suspect, unverified or judge_failed (a
    labels file's "abstained" is abstained); None when it gave one."""

    @property
    def series(self) -> tuple[str, str]:
        """(rubric_version, judge_model): pairs of one report share it."""
        return (self.rubric_version, self.judge_model)


def parse_label(value: Any, *, where: str) -> VerdictLabel:
    """A verdict label from free-form input; raises CalibrationError naming ``where``."""
    text = str(value).strip().lower() if value is not None else ""
    text = _ALIASES.get(text, text)
    if text not in LABELS:
        raise CalibrationError(
            f"{where}: label {text or '(empty)'!r} is not one of {', '.join(LABELS)}"
        )
    return text


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
    """The judge_label column says the judge gave no verdict ("abstained", or one of the
    other not-judged states)."""
    not_judged: str | None = None
    """That state: :data:`NOT_JUDGED_STATES`."""


def load_labels(path: str | Path) -> list[HumanLabel]:
    """Read a labels file (CSV or JSON Lines). Raises CalibrationError on a bad row."""
    labels = []
    for where, row in _read_rows(Path(path)):
        case_id = _text(row, "case_id") or _text(row, "trace_id")
        claim_id = _text(row, "claim_id")
        if case_id is None or claim_id is None:
            raise CalibrationError(f"{where}: case_id (or trace_id) and claim_id are required")
        judge_raw = _text(row, "judge_label")
        state = None
        if judge_raw is not None and judge_raw.lower() in _ABSTAINED:
            state = "abstained"
        elif judge_raw is not None and judge_raw.lower() in NOT_JUDGED_STATES:
            state = judge_raw.lower()
        abstained = state is not None
        if abstained:
            judge_raw = None
        labels.append(
            HumanLabel(
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
                not_judged=state,
            )
        )
    return labels


def pairs_from_labels(labels: Iterable[HumanLabel]) -> list[LabelPair]:
    """Pairs from labels files that carry the judge label themselves.

    Raises CalibrationError naming the first row without a judge label.
    """
    pairs = []
    for label in labels:
        if label.judge is None and not label.abstained:
            raise CalibrationError(
                f"{label.where}: no judge_label (pass --evaluations to "
                "take judge verdicts from evaluation records)"
            )
        pairs.append(
            LabelPair(
                case_id=label.case_id,
                claim_id=label.claim_id,
                human=label.human,
                judge=label.judge,
                importance=label.importance,
                failure_type=label.failure_type,
                rubric_version=label.rubric_version or UNKNOWN,
                judge_model=label.judge_model or UNKNOWN,
                slices=label.slices,
                not_judged=label.not_judged,
            )
        )
    return pairs


def load_evaluations(path: str | Path) -> list[EvaluationRecord]:
    """Evaluation records from a JSON Lines file. Raises CalibrationError on a bad line."""
    try:
        return list(read_records([Path(path)], strict=True))
    except RecordReadError as exc:
        raise CalibrationError(str(exc)) from None


def _not_judged(record: EvaluationRecord, claim: ClaimResult) -> str | None:
    """Why the judge left this cited claim without a verdict: the record's ``not_judged``
    (abstained, suspect, unverified, judge_failed), else abstained when the judge ran on
    the trace without an error or the claim's reason says so; None when it has a verdict
    or the judge never looked at it."""
    if claim.verdict is not None:
        return None
    if claim.not_judged is not None:
        return claim.not_judged
    if (claim.verdict_reason or "").startswith("abstained"):
        return "abstained"
    ran = record.judged and (record.judge is None or record.judge.outcome == "ok")
    if ran and set(claim.citation_ids) - set(claim.invalid_citation_ids):
        return "abstained"
    return None


def path_slice(claim: ClaimResult) -> str:
    """Which stages gave the claim its outcome, as a calibration slice: ``screen`` (the
    screen settled it), ``llm`` (the LLM alone), ``screen_agreed`` / ``screen_disagreed``
    (both gave a verdict), ``rejudged`` (a second opinion without flagged text), ``cache``,
    or ``not_judged_<reason>``."""
    path = claim.path
    return path_name(
        claim.not_judged,
        claim.resolved_by,
        rejudge=path.rejudge if path is not None else None,
        agreed=path.agreed if path is not None else None,
    )


def path_name(
    not_judged: str | None, resolved_by: str | None, *, rejudge: object, agreed: object
) -> str:
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
    claim the judge looked at and left without a verdict pairs with judge None and its
    not-judged state (abstained, suspect, unverified, judge_failed).
    The labels' case_id is taken as the trace_id; the app becomes a slice.
    """
    judged: dict[tuple[str, str], tuple[EvaluationRecord, ClaimResult, str | None]] = {}
    for record in records:
        for claim in record.claims:
            state = _not_judged(record, claim)
            if claim.verdict is not None or state is not None:
                judged[(record.trace_id, claim.claim_id)] = (record, claim, state)
    pairs = []
    unmatched = 0
    for label in labels:
        found = judged.get((label.case_id.lower(), label.claim_id))
        if found is None:
            unmatched += 1
            continue
        record, claim, state = found
        run = record.judge
        slices = dict(label.slices)
        slices.setdefault("app", record.app)
        slices.setdefault("path", path_slice(claim))
        pairs.append(
            LabelPair(
                case_id=label.case_id,
                claim_id=label.claim_id,
                human=label.human,
                judge=claim.verdict,
                importance=label.importance or claim.importance,
                failure_type=label.failure_type,
                rubric_version=(run.rubric_version if run else None)
                or record.versions.rubric
                or UNKNOWN,
                judge_model=run.model if run else UNKNOWN,
                slices=tuple(sorted(slices.items())),
                not_judged=state,
            )
        )
    if unmatched:
        logger.warning("%d labels matched no judged claim in the evaluations", unmatched)
    return pairs, unmatched
