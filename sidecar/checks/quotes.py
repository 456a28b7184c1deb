"""Quotes the app itself gave for its citations, verified against their documents.

Some APIs return, with each citation, the text they cite (Anthropic's ``cited_text``); the
Anthropic adapter keeps them in ``Trace.extra`` (:data:`sidecar.inputs.CITED_TEXTS`). A quote
that does not occur in its document, after Unicode (NFKC), case and whitespace folding, is a
fabricated citation: known on every trace, with no judge, and critical for a claim of
importance 3 (the scorer counts it as ``quote_not_found``).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sidecar.checks.analysis import Analysis
from sidecar.checks.base import Finding
from sidecar.inputs import CITED_TEXTS

__all__ = ["CitedTextCheck", "fold"]


def fold(text: str) -> str:
    """``text`` as quotes are compared: NFKC, case-folded, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


class CitedTextCheck:
    """``fabricated_quote`` for every given quote its cited document does not contain."""

    name = "cited_text"
    codes: tuple[str, ...] = ("fabricated_quote", "quote_unverifiable")

    def run(self, analysis: Analysis) -> list[Finding]:
        """See :class:`sidecar.checks.base.Check`."""
        quotes = analysis.trace.extra.get(CITED_TEXTS)
        if not isinstance(quotes, list) or not quotes:
            return []
        texts = {source.id: fold(source.text) for source in analysis.trace.sources}
        findings: list[Finding] = []
        reported: set[tuple[str | None, str]] = set()
        for quote in quotes:
            source_id, quoted, cited = _fields(quote)
            if source_id is None or quoted is None:
                continue
            document = texts.get(source_id)
            if not document:
                if (None, source_id) not in reported:
                    reported.add((None, source_id))
                    findings.append(
                        Finding(
                            "quote_unverifiable",
                            "info",
                            source_id=source_id,
                            detail="cited document has no text",
                        )
                    )
                continue
            if fold(quoted) in document:
                continue
            if cited and analysis.parser is not None:
                cited = analysis.parser.unmarked(cited) or cited
            for claim_id, importance in _claims_for(analysis, source_id, fold(cited or "")):
                if (claim_id, source_id) in reported:
                    continue
                reported.add((claim_id, source_id))
                findings.append(
                    Finding(
                        "fabricated_quote",
                        "critical" if importance == 3 else "warning",
                        claim_id=claim_id,
                        source_id=source_id,
                        detail="cited_text_not_in_document",
                    )
                )
        return findings


def _fields(quote: Any) -> tuple[str | None, str | None, str | None]:
    if not isinstance(quote, dict):
        return None, None, None
    values = [quote.get(name) for name in ("source_id", "quote", "cited")]
    source_id, quoted, cited = (value if isinstance(value, str) else None for value in values)
    return source_id, quoted, cited


def _claims_for(analysis: Analysis, source_id: str, cited: str) -> list[tuple[str | None, int]]:
    """The claims a quote is given for: those citing ``source_id`` whose text (without
    citation markers) overlaps the answer text the quote came with (any citing claim if
    none does; the trace if none)."""
    citing = [item for item in analysis.claims if source_id in item.valid_ids]
    overlapping = [
        item
        for item in citing
        # the claim's text without its markers: the answer text a quote comes with has
        # them elsewhere, or not at all
        if cited and ((text := fold(item.text)) in cited or cited in text)
    ]
    chosen = overlapping or citing
    if not chosen:
        return [(None, 0)]
    return [(item.claim.id, item.claim.importance) for item in chosen]
