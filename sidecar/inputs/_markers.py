"""Citation markers placed in an answer from the spans an API gives for its citations.

Every step is linear in the text and the number of citations: sentence ends are found once,
each span looks its inner ends up by bisection, and the markers added inside spans are held
to a budget proportional to the text, so no record can make the answer grow quadratically.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import NamedTuple

from sidecar.inputs._findings import Findings

__all__ = ["Citation", "insert_markers"]


class Citation(NamedTuple):
    """A citation of ``source_id`` for ``text[start:end]`` (``end`` None: a point)."""

    start: int
    end: int | None
    source_id: str


_URL_PART = r"(?:[^()\s]|\([^()\s]*\))*"
"""A URL whose path may hold one level of balanced parentheses (``Python_(language)``)."""
_LINK = re.compile(rf"\s*\(?\[[^\]]*\]\({_URL_PART}\)\)?\s*")
_LINK_MAX = 4096
"""A span longer than this is never an inline link (and is not matched against one)."""
_SENTENCE_END = re.compile(
    "[.!?\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\\]]*(\\s+)(?=[^\\s\\[a-z])"
)
"""The end of a sentence inside a span: its punctuation, then space and a word that does
not start in lower case (not a marker)."""


def insert_markers(text: str, citations: Iterable[Citation], findings: Findings) -> str:
    """``text`` with ``[ID]`` markers for ``citations``.

    A citation whose span is an inline link (``([host](url))``, as web-search answers write
    them) is replaced by its marker. Otherwise the marker goes right after the span (or at
    ``start`` for a point), and after every sentence that ends inside the span, so each
    sentence the span covers cites the source. A citation whose positions fall outside the
    text (or end before they start) gets no marker and a ``citation_out_of_range`` finding:
    moving it to the nearest position would attribute another sentence.
    """
    size = len(text)
    edits: dict[tuple[int, int], list[str]] = {}
    ends: list[int] = []  # where sentences end inside the text, then where the next starts
    starts: list[int] = []
    found = False
    budget = size // 8 + 64  # markers inside spans, beyond each span's own

    def add(span: tuple[int, int], source_id: str) -> None:
        ids = edits.setdefault(span, [])
        if source_id not in ids:
            ids.append(source_id)

    for start, end, source_id in citations:
        stop = start if end is None else end
        if not 0 <= start <= stop <= size:
            findings.add(
                "citation_out_of_range",
                source_id=source_id,
                detail=f"span {start}..{stop} outside a text of {size} characters",
            )
            continue
        if stop > start and stop - start <= _LINK_MAX and _LINK.fullmatch(text, start, stop):
            add((start, stop), source_id)
            continue
        add((stop, stop), source_id)
        if stop - start < 3 or budget <= 0:
            continue
        if not found:
            found = True
            for match in _SENTENCE_END.finditer(text):
                ends.append(match.start(1))
                starts.append(match.end())
        # a sentence ends inside the span when the next one starts inside it too
        first, after = bisect.bisect_right(ends, start), bisect.bisect_left(starts, stop)
        for index in range(first, min(after, first + budget)):
            add((ends[index], ends[index]), source_id)
        budget -= max(0, min(after, first + budget) - first)
    return _apply(text, edits)


def _apply(text: str, edits: dict[tuple[int, int], list[str]]) -> str:
    out: list[str] = []
    position = 0
    last = ""  # the last character written, so that a marker gets one space before it
    for (begin, stop), ids in sorted(edits.items()):
        begin = max(begin, position)  # overlapping spans: mark, never cut twice
        stop = max(stop, begin)
        out.append(text[position:begin])
        last = text[begin - 1] if begin > position else last
        out.append(
            ("" if last.isspace() or not last else " ")
            + " ".join(f"[{source_id}]" for source_id in ids)
        )
        last = "]"
        position = stop
    out.append(text[position:])
    return "".join(out)
