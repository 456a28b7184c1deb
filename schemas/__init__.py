"""Wire contracts of citewatch: the trace it reads, the evaluation it writes, the judge reply.

This package imports nothing else of the project.
"""

from __future__ import annotations

from schemas.evaluation import (
    EVALUATION_SCHEMA_VERSION,
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
    Severity,
    Versions,
)
from schemas.judge import JudgeBackendName, JudgeChoice, JudgeResult, JudgeVerdict, VerdictLabel
from schemas.trace import TRACE_SCHEMA_VERSION, Claim, ClaimKind, Generator, Source, Trace

__all__ = [
    "EVALUATION_SCHEMA_VERSION",
    "TRACE_SCHEMA_VERSION",
    "Claim",
    "ClaimKind",
    "ClaimResult",
    "ClaimStatus",
    "CriticalReason",
    "EvaluationRecord",
    "FindingRecord",
    "Generator",
    "JudgeBackendName",
    "JudgeChoice",
    "JudgeResult",
    "JudgeRun",
    "JudgeVerdict",
    "NotJudgedReason",
    "RedactionType",
    "ResolvedBy",
    "SampledBy",
    "Scores",
    "Severity",
    "Source",
    "Trace",
    "VerdictLabel",
    "Versions",
]
