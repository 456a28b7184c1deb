"""Wire contracts of citewatch: the trace it reads, the evaluation it writes, the judge reply.

This package imports nothing else of the project.
"""

from __future__ import annotations

from schemas.evaluation import (
    EVALUATION_SCHEMA_VERSION,
    ClaimPath,
    ClaimResult,
    ClaimStatus,
    CriticalReason,
    EvaluationRecord,
    FindingRecord,
    JudgeRun,
    NotJudgedReason,
    RedactionType,
    ResolvedBy,
    SampledBy,
    Scores,
    ScreenOutcome,
    SecurityEventKind,
    Severity,
    SuspectReason,
    UnverifiedReason,
    Versions,
)
from schemas.judge import JudgeBackendName, JudgeChoice, JudgeResult, JudgeVerdict, VerdictLabel
from schemas.review import (
    REVIEW_ITEM_SCHEMA_VERSION,
    HumanLabelValue,
    ReviewItem,
    ReviewPassage,
    ReviewReason,
    ReviewRoute,
)
from schemas.trace import (
    TRACE_SCHEMA_VERSION,
    Claim,
    ClaimKind,
    Generator,
    InputFormat,
    Source,
    Trace,
)

__all__ = [
    "EVALUATION_SCHEMA_VERSION",
    "REVIEW_ITEM_SCHEMA_VERSION",
    "TRACE_SCHEMA_VERSION",
    "Claim",
    "ClaimKind",
    "ClaimPath",
    "ClaimResult",
    "ClaimStatus",
    "CriticalReason",
    "EvaluationRecord",
    "FindingRecord",
    "Generator",
    "HumanLabelValue",
    "InputFormat",
    "JudgeBackendName",
    "JudgeChoice",
    "JudgeResult",
    "JudgeRun",
    "JudgeVerdict",
    "NotJudgedReason",
    "RedactionType",
    "ResolvedBy",
    "ReviewItem",
    "ReviewPassage",
    "ReviewReason",
    "ReviewRoute",
    "SampledBy",
    "Scores",
    "ScreenOutcome",
    "SecurityEventKind",
    "Severity",
    "Source",
    "SuspectReason",
    "Trace",
    "UnverifiedReason",
    "VerdictLabel",
    "Versions",
]
