"""Replay: re-judge a human-labelled set with the configured judge, for calibration.

Labels either carry what the judge needs (``claim_text`` and ``passages``, a list of
``{"id", "text"}``; one trace is built per case_id) or refer to traces by
(trace_id, claim_id). The fresh evaluation records are then paired with the human labels
exactly as ``citewatch calibrate --evaluations`` pairs them.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schemas import Claim, EvaluationRecord, Generator, Source, Trace
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from sidecar.pipeline import Pipeline
from sidecar.quality.labels import (
    CalibrationError,
    HumanLabel,
    LabelPair,
    join_evaluations,
    load_labels,
)

__all__ = ["ReplayOutcome", "load_traces", "replay_labels", "traces_from_labels"]

logger = logging.getLogger(__name__)

_REPLAY_APP = "calibration-replay"
_REPLAY_TIME = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ReplayOutcome:
    """Fresh records, the label pairs built from them, and labels left unpaired."""

    records: list[EvaluationRecord]
    pairs: list[LabelPair]
    unmatched: int


def load_traces(path: str | Path, *, limits: DecodeLimits | None = None) -> list[Trace]:
    """Traces from a JSON Lines file, each decoded under ``limits`` (the settings' limits,
    as every runtime applies them; the defaults without). Raises CalibrationError naming
    the first bad line."""
    limits = limits if limits is not None else DecodeLimits()
    traces = []
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                traces.append(decode_trace(line.rstrip(b"\r\n"), limits=limits))
            except TraceError as exc:
                raise CalibrationError(f"{path}:{number}: not a trace ({exc.reason})") from None
    return traces


def _trace_id(case_id: str) -> str:
    lowered = case_id.lower()
    if len(lowered) == 32 and all(c in "0123456789abcdef" for c in lowered):
        return lowered
    return hashlib.sha256(case_id.encode("utf-8")).hexdigest()[:32]


def _passages(label: HumanLabel) -> list[tuple[str, str]]:
    raw: Any = label.row.get("passages")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise CalibrationError(f"{label.where}: passages is not JSON") from None
    if not isinstance(raw, list) or not raw:
        raise CalibrationError(
            f"{label.where}: passages must be a non-empty list of "
            '{"id", "text"} (or pass --traces)'
        )
    found = []
    for item in raw:
        if not isinstance(item, dict) or "id" not in item or "text" not in item:
            raise CalibrationError(f"{label.where}: each passage needs an id and a text")
        found.append((str(item["id"]), str(item["text"])))
    return found


def traces_from_labels(labels: Sequence[HumanLabel]) -> list[Trace]:
    """One trace per case_id, its claims citing exactly their labelled passages.

    Raises CalibrationError for a row without claim_text or passages, or a passage ID
    given two different texts in one case.
    """
    cases: dict[str, tuple[dict[str, str], list[Claim]]] = {}
    for label in labels:
        text = str(label.row.get("claim_text") or "").strip()
        if not text:
            raise CalibrationError(f"{label.where}: claim_text is required (or pass --traces)")
        sources, claims = cases.setdefault(label.case_id, ({}, []))
        cited = []
        for source_id, passage in _passages(label):
            if sources.setdefault(source_id, passage) != passage:
                raise CalibrationError(
                    f"{label.where}: passage {source_id} has two texts in case {label.case_id}"
                )
            cited.append(source_id)
        claims.append(
            Claim(
                id=label.claim_id, text=text, citation_ids=cited, importance=label.importance or 2
            )
        )
    traces = []
    for case_id, (sources, claims) in cases.items():
        answer = " ".join(f"{c.text} [{', '.join(c.citation_ids)}]" for c in claims)
        traces.append(
            Trace(
                trace_id=_trace_id(case_id),
                timestamp=_REPLAY_TIME,
                app=_REPLAY_APP,
                generator=Generator(model="replay", prompt_version="replay"),
                question="",
                answer=answer,
                sources=[Source(id=i, text=t) for i, t in sources.items()],
                claims=claims,
            )
        )
    return traces


async def replay_labels(
    pipeline: Pipeline,
    labels_path: str | Path,
    *,
    traces: Sequence[Trace] | None = None,
) -> ReplayOutcome:
    """Judge the labelled claims again through ``pipeline`` and pair the verdicts.

    ``traces`` given: labels refer to them by (case_id as trace_id, claim_id). Otherwise
    traces are built from the labels' claim_text and passages. Raises CalibrationError.
    """
    labels = load_labels(labels_path)
    if traces is None:
        to_judge = traces_from_labels(labels)
        labels = [replace(label, case_id=_trace_id(label.case_id)) for label in labels]
    else:
        wanted = {label.case_id.lower() for label in labels}
        to_judge = [t for t in traces if t.trace_id in wanted]
    records = [await pipeline.evaluate(trace) for trace in to_judge]
    skipped = sum(1 for r in records if not r.judged)
    if skipped:
        logger.warning("%d of %d replayed traces were not judged", skipped, len(records))
    pairs, unmatched = join_evaluations(labels, records)
    return ReplayOutcome(records=records, pairs=pairs, unmatched=unmatched)
