"""Wire contracts of citewatch: the trace it reads, the evaluation it writes, the judge reply.

This package imports nothing else of the project.
"""

from __future__ import annotations

from schemas.evaluation import (
    EVALUATION_SCHEMA_VERSION,
    ClaimResult,
    CriticalReason,
    EvaluationRecord,
    FindingRecord,
    JudgeRun,
    NotJudgedReason,
    ResolvedBy,
    Scores,
    Versions,
)
from schemas.judge import JudgeResult, JudgeVerdict, VerdictLabel
from schemas.trace import TRACE_SCHEMA_VERSION, Claim, Generator, Source, Trace

__all__ = [
    "EVALUATION_SCHEMA_VERSION",
    "TRACE_SCHEMA_VERSION",
    "Claim",
    "ClaimResult",
    "CriticalReason",
    "EvaluationRecord",
    "FindingRecord",
    "Generator",
    "JudgeResult",
    "JudgeRun",
    "JudgeVerdict",
    "NotJudgedReason",
    "ResolvedBy",
    "Scores",
    "Source",
    "Trace",
    "VerdictLabel",
    "Versions",
]
