"""Deterministic checks run on every trace."""

from __future__ import annotations

from sidecar.checks.analysis import Analysis, ClaimAnalysis, ClaimStatus, analyse
from sidecar.checks.base import Check, Finding, Severity
from sidecar.checks.builtin import default_checks
from sidecar.checks.injection import InjectionCheck, injection_spans, outside_injections
from sidecar.checks.markers import DEFAULT_MARKER_PATTERN, Marker, MarkerParser
from sidecar.checks.prescreen import PassageFacts, normalise, prescreen_flags

__all__ = [
    "DEFAULT_MARKER_PATTERN",
    "Analysis",
    "Check",
    "ClaimAnalysis",
    "ClaimStatus",
    "Finding",
    "InjectionCheck",
    "Marker",
    "MarkerParser",
    "PassageFacts",
    "Severity",
    "analyse",
    "default_checks",
    "injection_spans",
    "normalise",
    "outside_injections",
    "prescreen_flags",
]
