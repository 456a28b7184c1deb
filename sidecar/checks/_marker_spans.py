"""Where brackets are no markers: fenced code blocks, inline code spans and URLs
(``a[0]``, ``x[k2]``, ``https://example.com/a?ref=[S9]``)."""

from __future__ import annotations

import bisect
import re
from typing import Protocol, TypeVar

__all__ = [
    "closed_before_stops",
    "closed_up_all",
    "closes_up_in_place",
    "code_and_urls",
    "outside",
    "without",
]

_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
_TICKS = re.compile(r"`+")
_URL = re.compile(r"\b(?:[A-Za-z][A-Za-z0-9+.-]{0,15}://|www\.)[^\s<>\"'`]+")
_URL_TRAILER = ".,;:!?*_~'\""
_PAIRS = {")": "(", "]": "["}
_PUNCT = frozenset(".,;:!?\u2026\u3002")


class _Spanned(Protocol):
    @property
    def start(self) -> int: ...


_Found = TypeVar("_Found", bound=_Spanned)


def outside(found: list[_Found], spans: list[tuple[int, int]]) -> list[_Found]:
    """The items of ``found`` that start outside every span (sorted, disjoint)."""
    if not spans:
        return found
    starts = [start for start, _ in spans]
    kept = []
    for marker in found:
        at = bisect.bisect_right(starts, marker.start) - 1
        if at < 0 or spans[at][1] <= marker.start:
            kept.append(marker)
    return kept


def code_and_urls(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint spans of fenced code blocks, inline code spans and URLs."""
    spans = _fenced(text)
    spans.extend(_inline_code(text, spans))
    for match in _URL.finditer(text):
        spans.append((match.start(), _url_end(text, match.start(), match.end())))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _fenced(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks, from the opening fence to the end of the closing fence's line
    (to the end of the text when it is never closed)."""
    spans = []
    opened: int | None = None
    for fence in _FENCE.finditer(text):
        if opened is None:
            opened = fence.start()
        else:
            line_end = text.find("\n", fence.end())
            spans.append((opened, len(text) if line_end < 0 else line_end))
            opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return spans


def _inline_code(text: str, fenced: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inline code spans outside fenced blocks: a run of backticks up to the next run of
    the same length on the same line (a run without one is literal text)."""
    spans: list[tuple[int, int]] = []
    line: list[tuple[int, int]] = []
    previous_end = 0
    fences = iter(fenced)
    block = next(fences, None)

    def close_line() -> None:
        following: dict[int, int] = {}
        nexts = [0] * len(line)
        for index in range(len(line) - 1, -1, -1):
            size = line[index][1] - line[index][0]
            nexts[index] = following.get(size, -1)
            following[size] = index
        index = 0
        while index < len(line):
            closer = nexts[index]
            if closer < 0:
                index += 1
                continue
            spans.append((line[index][0], line[closer][1]))
            index = closer + 1
        line.clear()

    for run in _TICKS.finditer(text):
        while block is not None and block[1] <= run.start():
            block = next(fences, None)
        if block is not None and block[0] <= run.start():
            continue
        if line and text.find("\n", previous_end, run.start()) >= 0:
            close_line()
        line.append(run.span())
        previous_end = run.end()
    close_line()
    return spans


def _url_end(text: str, start: int, end: int) -> int:
    """Where a URL ends: before the first closing bracket it did not open (the link's own
    closing parenthesis in Markdown) and before trailing punctuation."""
    depth = {"(": 0, "[": 0}
    for position in range(start, end):
        char = text[position]
        if char in depth:
            depth[char] += 1
        elif char in _PAIRS:
            opener = _PAIRS[char]
            if depth[opener] == 0:
                end = position
                break
            depth[opener] -= 1
    while end > start and text[end - 1] in _URL_TRAILER:
        end -= 1
    return end


def closed_up(head: str, tail: str) -> str:
    """What is left of a text around its one marker, ``head`` before it and ``tail`` after
    it: the space before the marker goes when the text ends or is punctuation after it,
    and runs of spaces are closed up."""
    if not tail or tail[0] in _PUNCT or tail.isspace():
        head = head.rstrip()
    kept = head + tail
    # No whitespace but single spaces inside (every other one is not printable): already
    # closed up, without the split and join.
    if kept.isprintable() and "  " not in kept and kept[:1] != " " and kept[-1:] != " ":
        return kept
    return " ".join(kept.split())


def without(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the markers at ``spans``, spaces before punctuation and runs of
    spaces closed up."""
    if len(spans) == 1:  # the common case: one marker, at the end or the start
        start, end = spans[0]
        return closed_up(text[:start], text[end:])
    # Whether the text after each marker's run of markers ends or is punctuation:
    # then the space before the run goes too ("20 EUR [2][3]." -> "20 EUR.").
    closes = [False] * len(spans)
    following = True
    for index in range(len(spans) - 1, -1, -1):
        end = spans[index][1]
        next_start = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        if text[end:next_start].strip():
            following = text[end] in _PUNCT
        elif next_start == len(text):
            following = True
        closes[index] = following
    pieces = []
    cursor = 0
    for (start, end), closing in zip(spans, closes, strict=True):
        piece = text[cursor:start]
        pieces.append(piece.rstrip() if closing else piece)
        cursor = end
    pieces.append(text[cursor:])
    return " ".join("".join(pieces).split())


_CLOSING = tuple((f" \0{p}", p) for p in ".,;:!?") + (
    (" \0\n", "\n"),
    (" \0 ", " "),
    ("\n\0 ", "\n"),
)
"""Around a marker (a NUL) in a text already closed up: the space before it goes when
punctuation or the end of the text follows; one of two spaces around it goes; the one after
it goes at the start of the text."""


def closes_up_in_place(joined: str, marked: str, count: int) -> bool:
    """Whether ``count`` ASCII texts joined by line breaks (``joined``), their markers
    replaced by NULs (``marked``), are closed up by :func:`closed_up_all`: each text
    printable, not empty, without a leading, trailing or double space (each of which shows
    as a double space once the line breaks are spaces), and no two markers in a run (then
    each marker closes up on its own; a marker that took a line break leaves fewer texts)."""
    flat = joined.replace("\n", " ")
    return (
        "  " not in flat
        and flat[:1] != " "
        and flat[-1:] != " "
        and flat.isprintable()
        and marked.count("\n") == count - 1
        and "\0\0" not in marked
        and "\0 \0" not in marked
    )


def closed_up_all(marked: str) -> list[str]:
    """Each text of ``marked`` (see :func:`closes_up_in_place`) without its markers,
    closed up as :func:`without` does."""
    text = f"\n{marked}\n"
    for old, new in _CLOSING:  # the commonest first: a marker before a full stop
        if "\0" not in text:
            break
        text = text.replace(old, new)
    else:
        text = text.replace("\0", "")
    return text.split("\n")[1:-1]


_PRINTABLE_LINES = bytes(range(32, 127)) + b"\n"
"""The printable ASCII characters and the line break."""


def closed_before_stops(joined: str, closed: str, count: int) -> list[str] | None:
    """Each of ``count`` ASCII texts joined by line breaks (``joined``), without its
    markers, when every marker follows a single space and comes before a full stop (``"The
    fee is 20 EUR [2]."``: ``closed`` has each such marker and the space before it taken
    out, none across a line break, and no opening bracket is left in it) and the texts are
    closed up: printable, without a line break of their own, no double space, none at
    either end (a double space shows in ``joined`` with its line breaks as spaces). Then
    each text is what :func:`without` gives. None otherwise."""
    if "[" in closed or joined.encode("ascii").translate(None, _PRINTABLE_LINES):
        return None
    kept = closed.split("\n")
    if len(kept) != count:
        return None
    flat = joined.replace("\n", " ")
    if "  " in flat or flat[:1] == " " or flat[-1:] == " ":
        return None
    return kept
