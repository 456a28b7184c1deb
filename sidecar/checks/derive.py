"""Claims derived from citation markers, for traces that carry no claims of their own.

ALCE-style: the answer is split into sentences; each sentence becomes one claim citing the
markers inside it (markers right after its final punctuation belong to it), a sentence
without markers an uncited claim, and lead-ins, pleasantries and questions no claim at all.
Derived claims get one importance from the settings (``claims.importance``) and IDs
``d1``, ``d2``... The evaluation record says which claims were derived.

The segmenter works on Markdown-ish answers: code blocks, headings, tables, rules and
footnote definitions (``[^1]: ...``) are skipped; each list item is its own block; inside a
block a ``.`` ends a sentence only when followed by whitespace and a word that does not
start in lower case, and not after a known abbreviation (``e.g.``, ``Dr.``, ``U.S.``) or a
single capital letter (an initial: ``J. R. R. Tolkien``). Decimals (``3.5``) never end a
sentence; closing quotes and brackets after the punctuation stay with the sentence.
Everything is one pass over the answer: cost is linear in its length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from schemas import Claim, Trace
from sidecar.checks.markers import IdResolver, Marker, MarkerParser

__all__ = ["DERIVED_ID_PREFIX", "Sentence", "derive_claims", "sentences"]

DERIVED_ID_PREFIX = "d"
"""Derived claims are numbered d1, d2, ... in answer order."""

_ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "gen", "col", "lt", "sgt", "rev",
    "vs", "etc", "e.g", "i.e", "cf", "al", "approx", "ca", "est", "dept", "fig", "figs", "no",
    "nos", "vol", "vols", "pp", "p", "ch", "sec", "art", "para", "inc", "ltd", "co", "corp",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "u.s", "u.k", "u.n", "e.u", "a.m", "p.m", "ph.d", "m.d", "b.a", "m.a", "min", "max",
})  # fmt: skip
_CLOSERS = frozenset("\"'\u201d\u2019)]*_\u00bb`")
_TERMINATOR = re.compile(r"[.!?\u2026\u3002\uff01\uff1f]+")
_FULL_WIDTH_STOPS = frozenset("\u3002\uff01\uff1f")  # end a sentence with no space after
_LINE = re.compile(r"[^\n]*\n?")
_BULLET = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+")
_SKIPPED_LINE = re.compile(
    r"[ \t]*(?:#{1,6}(?:[ \t]|$)|\[\^[^\]\n]{1,64}\]:|\||(?:[-*_][ \t]*){3,}$)")
_FENCE = re.compile(r"[ \t]*(?:```|~~~)")
_MARKUP = re.compile(r"\*\*|__|`|^>\s*")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?\u2026])")
_WORD_CHARS = re.compile(r"\w")
_DIGIT = re.compile(r"\d")
_CONNECTIVE_OPENERS = (
    "i hope", "hope this", "let me know", "feel free", "if you have any", "happy to help",
    "great question", "good question", "thanks for", "thank you for",
)
_SHORT_CONNECTIVES = (
    "sure", "certainly", "of course", "absolutely", "here is", "here are", "here's",
    "below is", "below are", "in summary", "to summarize", "to summarise", "in short",
    "in conclusion", "to sum up", "sources", "references",
)
_FILLER_WORDS = 3
_MIN_CLAIM_WORDS = 3
_WORD_LOOKBACK = 12


class Sentence(NamedTuple):
    """One sentence of the answer: its span, its text without markers, its cited IDs."""

    start: int
    end: int
    text: str
    ids: tuple[str, ...]


def _blocks(answer: str) -> Iterator[tuple[int, int]]:
    """Spans of paragraphs and list items, skipping code, headings, tables and rules."""
    in_code = False
    block_start: int | None = None
    block_end = 0
    for line in _LINE.finditer(answer):
        if line.start() == line.end():
            break
        start, end = line.start(), line.end()
        content_end = end - 1 if answer[end - 1 : end] == "\n" else end
        if _FENCE.match(answer, start, content_end):
            in_code = not in_code
        elif in_code:
            continue
        elif not answer[start:content_end].strip() or _SKIPPED_LINE.match(answer, start,
                                                                           content_end):
            pass
        else:
            bullet = _BULLET.match(answer, start, content_end)
            if bullet is None:
                if block_start is None:
                    block_start = start
                block_end = content_end
                continue
            if block_start is not None:
                yield block_start, block_end
            block_start, block_end = bullet.end(), content_end
            continue
        if block_start is not None:
            yield block_start, block_end
            block_start = None
    if block_start is not None:
        yield block_start, block_end


def _word_before(answer: str, position: int, floor: int) -> str:
    """The word (letters and inner dots) ending at ``position``, at most a few characters."""
    start = position
    limit = max(floor, position - _WORD_LOOKBACK)
    while start > limit and (answer[start - 1].isalpha() or answer[start - 1] == "."):
        start -= 1
    return answer[start:position]


def _ends_sentence(answer: str, stop: int, after: int, block_end: int, floor: int) -> bool:
    """Whether the terminator ``answer[stop:...]`` (ending at ``after`` once closers and
    markers are taken) ends a sentence inside a block ending at ``block_end``."""
    if after >= block_end or answer[stop] in _FULL_WIDTH_STOPS:
        return True
    if not answer[after].isspace():
        return False  # 3.5, e.g., example.com
    following = after
    while following < block_end and answer[following].isspace():
        following += 1
    if following >= block_end:
        return True
    if answer[following].islower():
        return False
    if answer[stop] != ".":
        return True
    word = _word_before(answer, stop, floor)
    if word.lower().rstrip(".") in _ABBREVIATIONS:
        return False
    return not (len(word) == 1 and word.isupper())  # an initial: J. R. R. Tolkien


def _take_markers(answer: str, position: int, block_end: int,
                  by_start: dict[int, Marker]) -> int:
    """The position after the run of markers (and closers) starting at ``position``."""
    while True:
        cursor = position
        while cursor < block_end and answer[cursor] in _CLOSERS:
            cursor += 1
        probe = cursor
        while probe < block_end and answer[probe] in " \t":
            probe += 1
        marker = by_start.get(probe)
        if marker is None:
            return cursor
        position = marker.end


def _clean(answer: str, start: int, end: int, markers: list[Marker]) -> str:
    pieces = []
    cursor = start
    for marker in markers:
        pieces.append(answer[cursor:marker.start])
        cursor = marker.end
    pieces.append(answer[cursor:end])
    text = _MARKUP.sub("", " ".join("".join(pieces).split()))
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text).strip()


def sentences(answer: str, parser: MarkerParser,
              resolver: IdResolver | None = None) -> list[Sentence]:
    """The answer's sentences in order, each with the IDs of the markers it holds (with
    ``resolver``, the trace's declared IDs are markers too, and IDs are resolved to them)."""
    markers = parser.markers(answer, resolver)
    by_start = {marker.start: marker for marker in markers}
    found: list[Sentence] = []
    marker_index = 0
    for block_start, block_end in _blocks(answer):
        cursor = block_start
        spans: list[tuple[int, int]] = []
        for match in _TERMINATOR.finditer(answer, block_start, block_end):
            if match.start() < cursor:
                continue  # inside markers already taken by the previous sentence
            after = _take_markers(answer, match.end(), block_end, by_start)
            if _ends_sentence(answer, match.start(), after, block_end, block_start):
                spans.append((cursor, after))
                cursor = after
        if answer[cursor:block_end].strip():
            spans.append((cursor, block_end))
        for start, end in spans:
            inside: list[Marker] = []
            while marker_index < len(markers) and markers[marker_index].start < start:
                marker_index += 1
            while marker_index < len(markers) and markers[marker_index].end <= end:
                inside.append(markers[marker_index])
                marker_index += 1
            ids = tuple(dict.fromkeys(i for marker in inside for i in marker.ids))
            found.append(Sentence(start, end, _clean(answer, start, end, inside), ids))
    return found


def _is_connective(text: str) -> bool:
    lowered = " ".join(text.lower().split())
    if lowered.endswith(":"):
        return True  # a lead-in to a list
    if (len(lowered.split()) < _MIN_CLAIM_WORDS and lowered.isascii()
            and _DIGIT.search(lowered) is None):
        return True  # "Yes.", "Done." (scripts written without spaces are not counted so)
    if lowered.startswith(_CONNECTIVE_OPENERS):
        return True
    if _DIGIT.search(lowered) is not None:
        return False
    words = lowered.strip(" .!\u2026").replace(",", " ").split()
    for phrase in _SHORT_CONNECTIVES:
        size = len(phrase.split())
        if words[:size] == phrase.split() and len(words) <= size + _FILLER_WORDS:
            return True  # "Sure!", "Here is what I found."
    return False


def derive_claims(trace: Trace, parser: MarkerParser, *, importance: int) -> Trace:
    """``trace`` with claims derived from its answer; unchanged when it carries claims.

    Questions, lead-ins and pleasantries without markers give no claim; a sentence that
    is only markers adds its IDs to the claim before it.
    """
    if trace.claims:
        return trace
    claims: list[Claim] = []
    resolver = IdResolver(frozenset([source.id for source in trace.sources]))
    for sentence in sentences(trace.answer, parser, resolver):
        text = sentence.text
        if _WORD_CHARS.search(text) is None:
            if sentence.ids and claims:
                previous = claims[-1]
                merged = list(dict.fromkeys([*previous.citation_ids, *sentence.ids]))
                claims[-1] = previous.model_copy(update={"citation_ids": merged})
            continue
        if text.rstrip("".join(_CLOSERS)).endswith(("?", "\uff1f")):
            continue
        if not sentence.ids and _is_connective(text):
            continue
        claims.append(Claim(id=f"{DERIVED_ID_PREFIX}{len(claims) + 1}", text=text,
                            citation_ids=list(sentence.ids), importance=importance))
    if not claims:
        return trace
    return trace.model_copy(update={"claims": claims})
