"""The release gate: compare a candidate's evaluations with a frozen baseline.

The gate fails when any of these holds, and names every one:

- the candidate's mean overall score is below the baseline's by more than the tolerance
  (``gate.tolerance``; derive it from judge variance with `citewatch stability`);
- any citation ID in the candidate resolves to no source (answer markers or claim citations);
- any critical claim is left unsupported (uncited, invalid citation, judged unsupported,
  quote not found);
- either side has no judged trace, so there is no overall score to compare.

Both sides are an evaluations file (JSON Lines of evaluation records, or a directory of them)
or a summary JSON (:class:`GateSummary`, as written by ``citewatch gate --summary-output``).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas import EvaluationRecord
from sidecar.errors import CitewatchError, describe_validation_error
from sidecar.quality._io import read_records, record_files

__all__ = [
    "CriticalClaimRef",
    "GateDecision",
    "GateError",
    "GateSummary",
    "UnresolvedCitation",
    "decide",
    "load_summary",
    "summarise",
]

logger = logging.getLogger(__name__)

# Scores are rounded to 6 places in records; a regression exactly at the tolerance passes.
_EPSILON = 1e-9
_SHOWN = 5


class GateError(CitewatchError):
    """A baseline or candidate cannot be read."""

    reason = "gate"


class UnresolvedCitation(BaseModel):
    """Citation IDs of one trace that resolve to no source."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str
    ids: list[str]


class CriticalClaimRef(BaseModel):
    """One critical claim left without support."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str
    claim_id: str
    reason: str


class GateSummary(BaseModel):
    """What the gate compares: a summary of one evaluations run (a frozen baseline)."""

    model_config = ConfigDict(extra="forbid")

    overall: float | None = Field(description="Mean overall score of the judged traces.")
    traces: int = Field(default=0, ge=0, description="Traces evaluated.")
    judged: int = Field(default=0, ge=0, description="Traces with an overall score.")
    duplicates: int = Field(
        default=0,
        ge=0,
        description=("Records skipped because their trace (app, trace_id) was already counted."),
    )
    unresolved_citations: list[UnresolvedCitation] = Field(default_factory=list)
    critical_claims: list[CriticalClaimRef] = Field(default_factory=list)
    rubric_versions: list[str] = Field(default_factory=list)
    judge_models: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict: ``reasons`` is empty exactly when it passes."""

    baseline: GateSummary
    candidate: GateSummary
    tolerance: float
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when no reason to fail was found."""
        return not self.reasons

    @property
    def delta(self) -> float | None:
        """Candidate overall minus baseline overall, when both exist."""
        if self.baseline.overall is None or self.candidate.overall is None:
            return None
        return self.candidate.overall - self.baseline.overall


def summarise(records: Iterable[EvaluationRecord]) -> GateSummary:
    """The gate summary of a run of evaluation records."""
    overall: list[float] = []
    traces = 0
    unresolved: list[UnresolvedCitation] = []
    critical: list[CriticalClaimRef] = []
    rubrics: set[str] = set()
    models: set[str] = set()
    for record in records:
        traces += 1
        if record.scores.overall is not None:
            overall.append(record.scores.overall)
        ids = dict.fromkeys(record.scores.invalid_citation_ids)
        for claim in record.claims:
            ids.update(dict.fromkeys(claim.invalid_citation_ids))
            if claim.critical_reason is not None:
                critical.append(
                    CriticalClaimRef(
                        trace_id=record.trace_id,
                        claim_id=claim.claim_id,
                        reason=claim.critical_reason,
                    )
                )
        if ids:
            unresolved.append(UnresolvedCitation(trace_id=record.trace_id, ids=list(ids)))
        if record.judge is not None and record.judged:
            rubrics.add(record.judge.rubric_version)
            models.add(record.judge.model)
    return GateSummary(
        overall=math.fsum(overall) / len(overall) if overall else None,
        traces=traces,
        judged=len(overall),
        unresolved_citations=unresolved,
        critical_claims=critical,
        rubric_versions=sorted(rubrics),
        judge_models=sorted(models),
    )


def load_summary(path: str | Path) -> GateSummary:
    """A summary JSON file, or the summary of an evaluations file or directory.

    Raises GateError when the path cannot be read or holds neither.
    """
    target = Path(path)
    if target.is_file():
        try:
            text = target.read_text(encoding="utf-8")
        except OSError as exc:
            raise GateError(f"cannot read {target}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # JSON Lines (or garbage): read as records below
        if isinstance(data, dict) and "trace_id" not in data:
            try:
                return GateSummary.model_validate(data)
            except ValidationError as exc:
                fields = describe_validation_error(exc, messages=False, separator=", ")
                raise GateError(f"{target}: not a gate summary (bad fields: {fields})") from None
    try:
        files = record_files(target)
    except CitewatchError as exc:
        raise GateError(str(exc)) from None
    bad: list[int] = []
    duplicates: list[int] = []
    summary = summarise(
        read_records(
            files,
            on_bad_line=lambda _f, n: bad.append(n),
            on_duplicate=lambda _f, n: duplicates.append(n),
        )
    )
    summary.duplicates = len(duplicates)
    if summary.traces == 0:
        raise GateError(f"{target}: no evaluation records and not a gate summary")
    if bad:
        logger.warning("%s: skipped %d lines that are not evaluation records", target, len(bad))
    return summary


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def decide(baseline: GateSummary, candidate: GateSummary, *, tolerance: float) -> GateDecision:
    """Compare ``candidate`` with ``baseline``; every failing condition becomes a reason."""
    reasons: list[str] = []
    notes: list[str] = []
    if baseline.overall is None:
        reasons.append("baseline has no judged traces: no overall score to compare against")
    if candidate.overall is None:
        reasons.append("candidate has no judged traces: its overall score is unknown")
    if baseline.overall is not None and candidate.overall is not None:
        drop = baseline.overall - candidate.overall
        if drop > tolerance + _EPSILON:
            reasons.append(
                f"overall regressed from {baseline.overall:.4f} to {candidate.overall:.4f} "
                f"(-{drop:.4f}, more than the tolerance {tolerance:.4f})"
            )
    if candidate.unresolved_citations:
        ids = [f"{','.join(u.ids)} in trace {u.trace_id}" for u in candidate.unresolved_citations]
        count = sum(len(u.ids) for u in candidate.unresolved_citations)
        reasons.append(
            f"{count} unresolved citation ID(s) in "
            f"{len(candidate.unresolved_citations)} trace(s): {_listed(ids)}"
        )
    if candidate.critical_claims:
        claims = [
            f"{c.claim_id} in trace {c.trace_id} ({c.reason})" for c in candidate.critical_claims
        ]
        reasons.append(
            f"{len(candidate.critical_claims)} critical unsupported claim(s): {_listed(claims)}"
        )
    for name, side in (("baseline", baseline), ("candidate", candidate)):
        if side.duplicates:
            notes.append(
                f"{name}: {side.duplicates} record(s) of traces already counted were "
                "skipped (each trace counts once)"
            )
    for name, base, cand in (
        ("rubric version", baseline.rubric_versions, candidate.rubric_versions),
        ("judge model", baseline.judge_models, candidate.judge_models),
    ):
        if base and cand and base != cand:
            notes.append(
                f"{name} differs (baseline {', '.join(base)}, candidate "
                f"{', '.join(cand)}): the scores are not one series"
            )
    logger.info("gate decided: %s with %d reasons", "pass" if not reasons else "fail", len(reasons))
    return GateDecision(baseline, candidate, tolerance, reasons, notes)
