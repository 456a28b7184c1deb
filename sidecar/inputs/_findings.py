"""What an adapter noticed in a record it could still read, carried to the checks.

The adapter keeps its findings in ``Trace.extra`` under :data:`ADAPTER_FINDINGS` as
``[{"code", "source_id", "detail"}]``; :class:`sidecar.checks.adapter.AdapterFindingsCheck`
reports them with the trace's other findings. Details name positions, counts and fields,
never the record's text.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["ADAPTER_FINDINGS", "CITED_TEXTS", "AdapterFindingCode", "Findings"]

ADAPTER_FINDINGS = "adapter_findings"
"""The key of ``Trace.extra`` that holds an adapter's findings."""

CITED_TEXTS = "cited_texts"
"""The key of ``Trace.extra`` that holds the quotes an adapter read (the Anthropic adapter,
:mod:`sidecar.inputs.anthropic_messages`): ``[{"source_id", "quote", "cited"}]``, ``cited``
being the answer text the quote is given for. Here, not in the adapter's module, so the
checks that read the quotes do not import every adapter."""

AdapterFindingCode = Literal["citation_out_of_range", "source_truncated", "answer_chosen"]


class Findings:
    """The findings of one record, in the order they were made."""

    def __init__(self) -> None:
        self._items: list[dict[str, str]] = []

    def add(self, code: AdapterFindingCode, *, source_id: str = "", detail: str = "") -> None:
        """Note ``code`` about ``source_id`` (if any); ``detail`` holds no trace text."""
        item = {"code": code, "detail": detail}
        if source_id:
            item["source_id"] = source_id
        self._items.append(item)

    def into(self, trace: dict[str, Any]) -> dict[str, Any]:
        """``trace`` with the findings in its ``extra`` (unchanged when there are none)."""
        if self._items:
            trace.setdefault("extra", {})[ADAPTER_FINDINGS] = list(self._items)
        return trace
