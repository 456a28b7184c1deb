"""Citation marker parsing: [S1], [1], [1][2], [1] [2], [1, 2], [S1, S2], Markdown footnote
references [^1], and the 【1†source】 markers some assistants write."""

from __future__ import annotations

import re
from typing import NamedTuple

from sidecar._regex import compile_linear

__all__ = ["DEFAULT_MARKER_PATTERN", "Marker", "MarkerParser"]

_ID = r"(?:[A-Za-z][A-Za-z_-]{0,15}\d[\w-]{0,15}|\d{1,6})"
# Built-in formats, one group for the IDs: bracketed lists [S1, S2]; Markdown footnote
# references [^1]; 【1†source】 (what follows the dagger names the kind of source, not an ID).
DEFAULT_MARKER_PATTERN = (
    rf"(?:\[\^?|【)\s*({_ID}(?:\s*[,;]\s*{_ID})*)\s*(?:†[^】\]\n]{{0,64}})?(?:\]|】)"
)
_SPLIT = re.compile(r"\s*[,;]\s*")
_SURROGATE = re.compile("[\ud800-\udfff]")


class Marker(NamedTuple):
    """One bracketed marker in the answer, possibly naming several IDs."""

    start: int
    end: int
    ids: tuple[str, ...]


class MarkerParser:
    """Finds citation markers in answer text.

    ``pattern`` is a regex whose first group is the inside of one marker; IDs inside it are
    separated by commas or semicolons. Parsing never raises on any text.
    """

    def __init__(self, pattern: str | None = None) -> None:
        self.pattern = pattern or DEFAULT_MARKER_PATTERN
        compiled = compile_linear(self.pattern)  # linear time on any answer text
        if compiled.groups < 1:
            raise ValueError("a marker pattern needs one capturing group for the IDs")
        self._regex = compiled

    def markers(self, text: str) -> list[Marker]:
        """Every marker in order of appearance."""
        found = []
        if _SURROGATE.search(text):
            # RE2 matches UTF-8, which has no lone surrogates; the same-length stand-in keeps
            # every offset valid for the text as given.
            text = _SURROGATE.sub("\ufffd", text)
        for match in self._regex.finditer(text):
            inner = (match.group(1) or "").strip()
            if "," in inner or ";" in inner:
                ids = tuple(part for part in _SPLIT.split(inner) if part)
            else:
                ids = (inner,) if inner else ()
            if ids:
                found.append(Marker(match.start(), match.end(), ids))
        return found

    def ids(self, text: str) -> list[str]:
        """Distinct cited IDs in first-seen order."""
        seen: dict[str, None] = {}
        for marker in self.markers(text):
            for marker_id in marker.ids:
                seen.setdefault(marker_id, None)
        return list(seen)
