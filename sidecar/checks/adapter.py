"""What an input adapter noticed in a record it could read (``Trace.extra``'s
:data:`sidecar.inputs.ADAPTER_FINDINGS`), reported with the trace's other findings."""

from __future__ import annotations

from typing import Any, get_args

from sidecar.checks.analysis import Analysis
from sidecar.checks.base import Finding
from sidecar.inputs import ADAPTER_FINDINGS, AdapterFindingCode

__all__ = ["AdapterFindingsCheck"]


class AdapterFindingsCheck:
    """One finding per adapter note of a known code; anything else in the list is ignored
    (a trace v1 producer may send the key too, and cannot invent codes through it)."""

    name = "adapter"
    codes: tuple[str, ...] = get_args(AdapterFindingCode)

    def run(self, analysis: Analysis) -> list[Finding]:
        """See :class:`sidecar.checks.base.Check`."""
        notes = analysis.trace.extra.get(ADAPTER_FINDINGS)
        if not isinstance(notes, list):
            return []
        return [finding for note in notes if (finding := _finding(note)) is not None]


def _finding(note: Any) -> Finding | None:
    if not isinstance(note, dict):
        return None
    code, source_id, detail = note.get("code"), note.get("source_id"), note.get("detail")
    about = source_id if isinstance(source_id, str) else None
    why = detail[:200] if isinstance(detail, str) else ""
    if code == "citation_out_of_range":
        return Finding("citation_out_of_range", "warning", source_id=about, detail=why)
    if code == "source_truncated":
        return Finding("source_truncated", "warning", source_id=about, detail=why)
    if code == "answer_chosen":
        return Finding("answer_chosen", "info", source_id=about, detail=why)
    return None
