"""Citation marker parsing: [S1], [1], [1][2], [1] [2], [1, 2], [S1, S2], Markdown footnote
references [^1], and the 【1†source】 markers some assistants write."""

from __future__ import annotations

import re
from typing import NamedTuple

from sidecar._regex import compile_linear

__all__ = ["DEFAULT_MARKER_PATTERN", "Marker", "MarkerParser"]



def _builtin_pattern(space: str, digit: str, word: str, *, ascii_only: bool = False) -> str:
    """The built-in marker pattern, its classes written as given (``word`` inside a class).

    Built-in formats, one group for the IDs: bracketed lists [S1, S2]; Markdown footnote
    references [^1]; 【1†source】 (what follows the dagger names the kind of source, not an
    ID). ``ascii_only`` leaves out the parts that need a character ASCII text cannot hold
    (【, † and 】): on ASCII text the pattern finds the same markers."""
    marker_id = rf"(?:[A-Za-z][A-Za-z_-]{{0,15}}{digit}[{word}-]{{0,15}}|{digit}{{1,6}})"
    ids = rf"({marker_id}(?:{space}*[,;]{space}*{marker_id})*)"
    if ascii_only:
        return rf"\[\^?{space}*{ids}{space}*\]"
    return rf"(?:\[\^?|【){space}*{ids}{space}*(?:†[^】\]\n]{{0,64}})?(?:\]|】)"


DEFAULT_MARKER_PATTERN = _builtin_pattern(r"\s", r"\d", r"\w")
_BUILTIN = re.compile(_builtin_pattern(r"[\t\n\f\r ]", "[0-9]", "0-9A-Za-z_"))
"""The built-in pattern for ``re``, with RE2's ASCII classes spelled out (RE2's ``\\s`` has
no vertical tab), so both find the same markers: ``re``'s matching costs a fraction of the
RE2 binding's per-match overhead. It runs in time linear in the text, as RE2 would: a try
can only start at a bracket, every repeat is bounded or of whitespace, and the list's items
are kept apart by a required separator, so a failed try costs time linear in the run of
ID characters, separators and whitespace up to the next bracket, which no other try crosses.
"""
_BUILTIN_ASCII = re.compile(
    _builtin_pattern(r"[\t\n\f\r ]", "[0-9]", "0-9A-Za-z_", ascii_only=True))
"""``_BUILTIN`` for ASCII text (most answers): starting with one literal bracket, a search
skips from bracket to bracket at memchr speed instead of testing a set at every character."""
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
        self._regex = _BUILTIN if self.pattern == DEFAULT_MARKER_PATTERN else compiled

    def markers(self, text: str) -> list[Marker]:
        """Every marker in order of appearance."""
        if not text.isascii() and _SURROGATE.search(text):
            # RE2 matches UTF-8, which has no lone surrogates; the same-length stand-in keeps
            # every offset valid for the text as given.
            text = _SURROGATE.sub("\ufffd", text)
        regex = self._regex
        if regex is _BUILTIN and text.isascii():
            regex = _BUILTIN_ASCII
        found = []
        for match in regex.finditer(text):
            inner = (match[1] or "").strip()
            if "," in inner or ";" in inner:
                ids = tuple([part for part in _SPLIT.split(inner) if part])
                if not ids:
                    continue
            elif inner:
                ids = (inner,)
            else:
                continue
            start, end = match.span()
            found.append(Marker(start, end, ids))
        return found

    def ids(self, text: str) -> list[str]:
        """Distinct cited IDs in first-seen order."""
        seen: dict[str, None] = {}
        for marker in self.markers(text):
            for marker_id in marker.ids:
                seen.setdefault(marker_id, None)
        return list(seen)
