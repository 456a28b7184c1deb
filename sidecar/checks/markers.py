"""Citation marker parsing: [S1], [1], [1][2], [1] [2], [1, 2], [S1, S2], Markdown footnote
references [^1], the 【1†source】 markers some assistants write, and the full-width and CJK
bracket forms of Chinese and Japanese answers (［S1］, 【1】, 〔1〕, 〖1〗, 〘1〙, with
full-width letters, digits and separators: ［Ｓ１，Ｓ２］).

Given a trace's declared source IDs (an :class:`IdResolver`), a bracketed occurrence of any
of them is a marker too, whatever characters the ID holds (``[doc-a.b]``, ``[policy 7]``,
``[handbook]``), and the IDs of every marker are resolved to the declared ones: compared
without format characters and in NFKC, and, when only case differs, resolved and reported
as a case-only match. Brackets inside inline code, fenced code blocks and URLs are not
markers (``a[0]``, ``x[k2]``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from operator import ne
from typing import Any, NamedTuple

from sidecar._regex import compile_linear
from sidecar.checks._citation_ids import (
    _SHAPED_SETS,
    FORMAT_CHARS,
    OPENERS,
    IdResolver,
    Match,
    canonical,
)
from sidecar.checks._marker_ids import expanded, resolve_ids, resolved
from sidecar.checks._marker_pattern import BUILTIN as _BUILTIN
from sidecar.checks._marker_pattern import BUILTIN_ASCII as _BUILTIN_ASCII
from sidecar.checks._marker_pattern import DEFAULT_MARKER_PATTERN, STOP_MARKER_ASCII
from sidecar.checks._marker_spans import (
    closed_before_stops,
    closed_up,
    closed_up_all,
    closes_up_in_place,
    code_and_urls,
    outside,
    without,
)

__all__ = [
    "DEFAULT_MARKER_PATTERN",
    "IdResolver",
    "Marker",
    "MarkerParser",
    "Scan",
    "canonical",
]

_SPLIT = re.compile(r"\s*[,;\uff0c\uff1b\u3001]\s*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_DIGITS = frozenset("0123456789")


class Marker(NamedTuple):
    """One bracketed marker in the answer, possibly naming several IDs."""

    start: int
    end: int
    ids: tuple[str, ...]


class Scan(NamedTuple):
    """What one parse of an answer found."""

    markers: list[Marker]
    case_only: tuple[str, ...]
    """Declared IDs some marker names only when case is ignored."""
    unknown: tuple[str, ...]
    """Marker IDs that resolve to no declared ID (canonical form); empty without a
    resolver."""


_new_tuple = tuple.__new__


class MarkerParser:
    """Finds citation markers in answer text.

    ``pattern`` is a regex whose first group is the inside of one marker; IDs inside it are
    separated by commas or semicolons. A configured pattern must compile on RE2 (linear
    time); the declared-ID markers and the code and URL exclusions apply to it as to the
    built-in one. Parsing never raises on any text.
    """

    def __init__(self, pattern: str | None = None) -> None:
        self.pattern = pattern or DEFAULT_MARKER_PATTERN
        compiled = compile_linear(self.pattern)  # linear time on any answer text
        if compiled.groups < 1:
            raise ValueError("a marker pattern needs one capturing group for the IDs")
        self._regex = _BUILTIN if self.pattern == DEFAULT_MARKER_PATTERN else compiled

    def markers(self, text: str, resolver: IdResolver | None = None) -> list[Marker]:
        """Every marker in order of appearance; with ``resolver``, also the bracketed
        declared IDs, and every ID resolved to its declared form."""
        return self.scan(text, resolver).markers

    def scan(self, text: str, resolver: IdResolver | None = None) -> Scan:
        """:meth:`markers`, the declared IDs some marker matched only when case is ignored,
        and the marker IDs that resolve to no declared ID (both in first-seen order)."""
        if not text.isascii() and _SURROGATE.search(text):
            # RE2 matches UTF-8, which has no lone surrogates; the same-length stand-in keeps
            # every offset valid for the text as given.
            text = _SURROGATE.sub("\ufffd", text)
        cased: dict[str, None] = {}
        unknown: dict[str, None] = {}
        if self._regex is _BUILTIN and text.isascii():
            found = _ascii_markers(text, resolver, cased, unknown)
            every_id = False
        else:
            found = _markers(self._regex, text)
            if resolver is not None:
                found = resolved(found, resolver, cased, unknown)
            # Text whose IDs may be written otherwise than declared (format characters,
            # compatibility or decomposed forms) has every declared ID looked for; other
            # text only those the pattern's shape cannot find.
            every_id = (
                self._regex is not _BUILTIN
                or FORMAT_CHARS.search(text) is not None
                or not unicodedata.is_normalized("NFKC", text)
            )
        if resolver is not None and (
            every_id or not _SHAPED_SETS.get(resolver.declared) and not resolver.all_shaped()
        ):
            declared = resolver.find(text, every_id=every_id)
            if declared:
                found = _merged(found, declared, cased, unknown)
        # One-character searches first: they run at memchr speed, longer ones do not.
        if (
            "`" in text
            or ("~" in text and "~~~" in text)
            or (":" in text and "://" in text)
            or "www." in text
        ):
            kept = outside(found, code_and_urls(text))
            if len(kept) != len(found) and unknown:
                # A marker in code that named an unknown ID: that ID counts no more.
                unknown = dict.fromkeys([i for m in kept for i in m.ids if i in unknown])
            found = kept
        return _new_tuple(
            Scan, (found, tuple(cased) if cased else (), tuple(unknown) if unknown else ())
        )

    def may_hold_markers(self, text: str) -> bool:
        """False when ``text`` surely holds no marker (the built-in pattern needs an
        opening bracket); one search (at memchr speed in ASCII text, whose only opening
        bracket is ``[``)."""
        if self._regex is not _BUILTIN:
            return True
        if text.isascii():
            return "[" in text
        return OPENERS.search(text) is not None

    def unmarked(self, text: str, resolver: IdResolver | None = None) -> str | None:
        """``text`` without its markers (a claim sent with them: ``"The fee is 20 EUR
        [2][3]."``), spaces before punctuation and runs of spaces closed up; None when it
        holds none. With the built-in pattern, text without an opening bracket costs one
        search."""
        if not self.may_hold_markers(text):
            return None
        if (
            self._regex is _BUILTIN
            and text.isascii()
            and (resolver is None or resolver.all_shaped())
            and "`" not in text
            and (":" not in text or "://" not in text)
            and "www." not in text
        ):
            # Every marker is of the pattern's shape, and no code or URL hides one.
            spans = [match.span() for match in _BUILTIN_ASCII.finditer(text)]
        else:
            spans = [(marker.start, marker.end) for marker in self.markers(text, resolver)]
        return without(text, spans) if spans else None

    def unmarked_each(
        self, texts: Sequence[str], resolver: IdResolver | None = None, *, joined: str | None = None
    ) -> list[str | None]:
        """:meth:`unmarked` of each of ``texts`` (a trace's claims). With the built-in
        pattern, ASCII texts and IDs of the pattern's shape, one search over all of them
        (no marker spans two texts) instead of one per text. ``joined`` is the texts
        joined by line breaks, when the caller has it."""
        return self.unmarked_joined(texts, resolver, joined=joined)[0]

    def unmarked_joined(
        self, texts: Sequence[str], resolver: IdResolver | None = None, *, joined: str | None = None
    ) -> tuple[list[str | None], str | None]:
        """:meth:`unmarked_each`, and the texts as the checks read them (each without its
        markers, or as given when it has none) joined by line breaks when that took no
        work of its own (None otherwise)."""
        if joined is None:
            joined = "\n".join(texts)
        if self._regex is not _BUILTIN or not joined.isascii():
            if not self.may_hold_markers(joined):
                return [None] * len(texts), joined
            return [self.unmarked(text, resolver) for text in texts], None
        if "[" not in joined:  # no marker: the built-in pattern needs an opening bracket
            return [None] * len(texts), joined
        if "`" in joined or not (resolver is None or resolver.all_shaped()):
            return [self.unmarked(text, resolver) for text in texts], None
        if joined[-2:] == "]." and "~" not in joined:
            # The commonest shape, "... 20 EUR [2].": each marker before a full stop goes
            # with the space before it, in one C-level pass; when no opening bracket is
            # left, every marker was of that shape (none in a URL: it follows a space; and
            # no code fence).
            closed = STOP_MARKER_ASCII.sub(".", joined)
            kept_texts = closed_before_stops(joined, closed, len(texts))
            if kept_texts is not None:
                if all(map(ne, kept_texts, texts)):  # each text had a marker: in C
                    return kept_texts, closed  # type: ignore[return-value]
                unmarked = [
                    None if kept == text else kept
                    for text, kept in zip(texts, kept_texts, strict=True)
                ]
                return unmarked, closed
        if (":" in joined and "://" in joined) or "www." in joined:
            return [self.unmarked(text, resolver) for text in texts], None
        return self._unmarked_shaped(texts, resolver, joined), None

    def _unmarked_shaped(
        self, texts: Sequence[str], resolver: IdResolver | None, joined: str
    ) -> list[str | None]:
        """:meth:`unmarked_each` of ASCII texts with no code or URL in them, every marker
        of the built-in pattern's shape."""
        if "\0" not in joined and joined.count("\n") == len(texts) - 1:
            # Each marker replaced by a NUL in one C-level pass, the texts split apart
            # again: a text without a NUL held no marker, one with a single NUL is closed
            # up around it (a marker that took a line break leaves fewer texts).
            marked = _BUILTIN_ASCII.sub("\0", joined)
            if closes_up_in_place(joined, marked, len(texts)):
                return [
                    None if kept == text else kept
                    for text, kept in zip(texts, closed_up_all(marked), strict=True)
                ]
            pieces = marked.split("\n")
            if len(pieces) == len(texts):
                out: list[str | None] = []
                for text, piece in zip(texts, pieces, strict=True):
                    if "\0" not in piece:
                        out.append(None)
                        continue
                    head, _, tail = piece.partition("\0")
                    if "\0" in tail:  # a run of markers: their spans tell how to close up
                        out.append(self.unmarked(text, resolver))
                    else:
                        out.append(closed_up(head, tail))
                return out
        spans: list[list[tuple[int, int]]] = [[] for _ in texts]
        index, offset = 0, 0
        end = len(texts[0]) if texts else 0
        for match in _BUILTIN_ASCII.finditer(joined):
            start, stop = match.span()
            while start > end:  # the match is in a later text
                index += 1
                offset = end + 1
                end = offset + len(texts[index])
            if stop > end:  # a bracket run across two texts: each text on its own
                return [self.unmarked(text, resolver) for text in texts]
            spans[index].append((start - offset, stop - offset))
        return [
            without(text, found) if found else None
            for text, found in zip(texts, spans, strict=True)
        ]

    def ids(self, text: str, resolver: IdResolver | None = None) -> list[str]:
        """Distinct cited IDs in first-seen order."""
        seen: dict[str, None] = {}
        for marker in self.markers(text, resolver):
            for marker_id in marker.ids:
                seen.setdefault(marker_id, None)
        return list(seen)


def _ascii_markers(
    text: str, resolver: IdResolver | None, cased: dict[str, None], unknown: dict[str, None]
) -> list[Marker]:
    """The built-in pattern's markers in ASCII text, resolved: the hot path. The pattern's
    group is never empty and never starts or ends with whitespace, and ASCII IDs are in
    canonical form already."""
    declared = resolver.declared if resolver is not None else None
    found = []
    ids: tuple[str, ...]
    for match in _BUILTIN_ASCII.finditer(text):
        inner: str = match[1]
        if declared is not None and inner in declared:
            # A declared ID (one with a separator in it too: the automaton would find it).
            ids = (inner,)
        elif "," in inner or ";" in inner or ("-" in inner and inner[0] in _DIGITS):
            ids = tuple([part for part in _SPLIT.split(inner) if part])
            if "-" in inner:
                ids = expanded(ids)
            if declared is not None and not declared.issuperset(ids):
                ids = resolve_ids(ids, resolver, cased, unknown)  # type: ignore[arg-type]
        elif declared is None:
            ids = (inner,)
        else:
            source_id, how = resolver.resolve(inner)  # type: ignore[union-attr]
            if how is None:
                unknown[source_id] = None
            elif how == "case":
                cased[source_id] = None
            ids = (source_id,)
        start, end = match.span()
        found.append(_new_tuple(Marker, (start, end, ids)))
    return found


def _markers(regex: Any, text: str) -> list[Marker]:
    """A pattern's markers, their IDs in canonical form."""
    found = []
    for match in regex.finditer(text):
        inner = (match[1] or "").strip()
        if "," in inner or ";" in inner or not inner.isascii() or "-" in inner:
            ids = tuple([part for part in map(canonical, _SPLIT.split(inner)) if part])
            if not ids:
                continue
            ids = expanded(ids)
        elif inner:
            ids = (inner,)
        else:
            continue
        start, end = match.span()
        found.append(Marker(start, end, ids))
    return found


def _merged(
    found: list[Marker], declared: list[Match], cased: dict[str, None], unknown: dict[str, None]
) -> list[Marker]:
    """Both kinds of markers in order; a pattern marker that overlaps a declared-ID marker
    gives way to it (``[1]2]`` is the declared ``1]2``, not ``1``)."""
    out: list[Marker] = []
    index = 0
    for match in declared:
        while index < len(found) and found[index].start < match.start:
            if found[index].end <= match.start:
                out.append(found[index])
            index += 1
        while index < len(found) and found[index].start < match.end:
            index += 1  # overlaps the declared-ID marker
        if match.how == "case":
            cased.setdefault(match.source_id, None)
        elif match.how is None:
            unknown.setdefault(match.source_id, None)
        out.append(Marker(match.start, match.end, (match.source_id,)))
    out.extend(found[index:])
    if unknown and len(out) != len(found) + len(declared):
        # A pattern marker gave way: an unknown ID of its own counts no more.
        unknown_ids = {i for m in out for i in m.ids if i in unknown}
        for marker_id in [i for i in unknown if i not in unknown_ids]:
            del unknown[marker_id]
    return out
