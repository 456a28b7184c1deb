"""The check Protocol and the findings checks return."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from schemas import Severity
from schemas.vocabulary import FindingCode
from sidecar.checks.analysis import Analysis

__all__ = ["Check", "Finding", "Severity"]


class Finding(NamedTuple):
    """A deterministic finding: codes and IDs, never raw trace text."""

    code: FindingCode
    severity: Severity
    claim_id: str | None = None
    source_id: str | None = None
    detail: str = ""


class Check(Protocol):
    """One deterministic check. ``codes`` lists every finding code it can emit."""

    name: str
    codes: tuple[str, ...]

    def run(self, analysis: Analysis) -> list[Finding]:
        """Findings for one analysed trace; must not raise on any valid trace."""
        ...
