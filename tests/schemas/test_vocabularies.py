"""Each vocabulary is defined once in schemas; the few places that still list one (for
order, or in a package that cannot import another) must agree with it."""

from __future__ import annotations

from typing import get_args

from exporters.prometheus import CIRCUIT_STATES, CRITICAL_REASONS
from schemas import (
    ClaimStatus,
    CriticalReason,
    NotJudgedReason,
    RedactionType,
    ResolvedBy,
    SampledBy,
    ScreenOutcome,
    Severity,
    SuspectReason,
    UnverifiedReason,
    VerdictLabel,
)
from schemas.evaluation import ClaimPath, ClaimResult, EvaluationRecord, FindingRecord
from sidecar.checks import ClaimStatus as ChecksClaimStatus
from sidecar.checks import Severity as ChecksSeverity
from sidecar.config import RedactionSettings
from sidecar.judge.resilience import CircuitState
from sidecar.judge.sampling import SampledBy as SamplerSampledBy
from sidecar.quality.report import CRITICAL_ORDER
from sidecar.redaction._base import BUILTIN_TYPES


def _enum(model: type, field: str) -> set[str]:
    """The values a record field accepts, read from its generated JSON Schema."""
    schema = model.model_json_schema()  # type: ignore[attr-defined]
    prop = schema["properties"][field]
    options = prop.get("anyOf", [prop])
    return {value for option in options for value in option.get("enum", [])}


def test_records_use_the_vocabularies() -> None:
    assert _enum(ClaimResult, "status") == set(get_args(ClaimStatus))
    assert _enum(ClaimResult, "critical_reason") == set(get_args(CriticalReason))
    assert _enum(ClaimResult, "resolved_by") == set(get_args(ResolvedBy))
    assert _enum(ClaimResult, "not_judged") == set(get_args(NotJudgedReason))
    assert _enum(ClaimResult, "not_judged_detail") == (
        set(get_args(SuspectReason)) | set(get_args(UnverifiedReason))
    )
    assert _enum(ClaimPath, "screen") == set(get_args(ScreenOutcome))
    assert _enum(ClaimPath, "llm") == _enum(ClaimPath, "rejudge") == set(get_args(VerdictLabel))
    assert _enum(FindingRecord, "severity") == set(get_args(Severity))
    assert _enum(EvaluationRecord, "sampled_by") == set(get_args(SampledBy))


def test_the_service_imports_the_vocabularies_rather_than_restating_them() -> None:
    assert (ChecksClaimStatus, ChecksSeverity, SamplerSampledBy) == (
        ClaimStatus,
        Severity,
        SampledBy,
    )


def test_lists_kept_elsewhere_agree_with_the_vocabularies() -> None:
    assert CRITICAL_REASONS == get_args(CriticalReason)
    assert set(CRITICAL_ORDER) <= set(get_args(CriticalReason))
    assert CIRCUIT_STATES == get_args(CircuitState)
    assert BUILTIN_TYPES == get_args(RedactionType)
    assert RedactionSettings().types == list(get_args(RedactionType))
