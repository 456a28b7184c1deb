"""Claims derived from citation markers, for traces that carry no claims of their own.

ALCE-style: the answer is split into sentences; each sentence becomes one claim citing the
markers inside it, a sentence without markers an uncited claim, and lead-ins, pleasantries
and questions no claim at all. Markers sit after their sentence (``It costs 20 EUR [S1].``,
``It costs 20 EUR. [S1]``) or before it (``[S1] It costs 20 EUR.``, ``- [S1] ...``,
``1. [2] ...``, ``**[1]** ...``, ``[^1] ...``, ``[S1]It ...``): a run of markers between
two sentences belongs to the one before when it ends a line, or when that sentence has no
marker of its own and does not open with one; otherwise it opens the next one (it is
glued to it, or the sentence before already carries its own markers).
Derived claims get one importance from the settings (``claims.importance``) and IDs
``d1``, ``d2``... The evaluation record says which claims were derived.

The segmenter works on Markdown-ish answers (:mod:`sidecar.checks._answer_blocks`: code,
headings, tables, rules, footnote definitions and back matter are skipped). Each list item
is its own block; inside a block a ``.`` ends a sentence only when followed by whitespace
(or a marker glued to the next word) and a word that does not start in lower case, and not
after a known abbreviation (``e.g.``, ``Dr.``, ``U.S.``) or a single capital letter (an
initial: ``J. R. R. Tolkien``). Decimals (``3.5``) never end a sentence; closing quotes and
brackets after the punctuation stay with the sentence. Everything is one pass over the
answer: cost is linear in its length.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from schemas import Claim, Trace
from sidecar.checks._answer_blocks import blocks
from sidecar.checks.base import Finding
from sidecar.checks.markers import IdResolver, Marker, MarkerParser

__all__ = [
    "DERIVED_ID_PREFIX",
    "DerivedClaims",
    "Sentence",
    "cut_findings",
    "derive",
    "derive_claims",
    "sentences",
]

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
_MARKUP = re.compile(r"\*\*|__|`|^>\s*")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?\u2026])")
_WORD_CHARS = re.compile(r"\w")
_DIGIT = re.compile(r"\d")
_CONNECTIVE_OPENERS = (
    "i hope",
    "hope this",
    "let me know",
    "feel free",
    "if you have any",
    "happy to help",
    "great question",
    "good question",
    "thanks for",
    "thank you for",
)
_SHORT_CONNECTIVES = (
    "sure",
    "certainly",
    "of course",
    "absolutely",
    "here is",
    "here are",
    "here's",
    "below is",
    "below are",
    "in summary",
    "to summarize",
    "to summarise",
    "in short",
    "in conclusion",
    "to sum up",
    "sources",
    "references",
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


def _word_before(answer: str, position: int, floor: int) -> str:
    """The word (letters and inner dots) ending at ``position``, at most a few characters."""
    start = position
    limit = max(floor, position - _WORD_LOOKBACK)
    while start > limit and (answer[start - 1].isalpha() or answer[start - 1] == "."):
        start -= 1
    return answer[start:position]


def _ends_sentence(
    answer: str, stop: int, after: int, block_end: int, floor: int, *, glued: bool = False
) -> bool:
    """Whether the terminator ``answer[stop:...]`` (ending at ``after`` once closers and
    markers are taken) ends a sentence inside a block ending at ``block_end``; ``glued``:
    markers taken are glued to the next word (``month.[S2]Upgrades``)."""
    if after >= block_end or answer[stop] in _FULL_WIDTH_STOPS:
        return True
    if not glued and not answer[after].isspace():
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


def _opens_with_marker(answer: str, start: int, end: int, by_start: dict[int, Marker]) -> bool:
    """Whether the sentence from ``start`` opens with a marker (after space and markup)."""
    while start < end and (answer[start].isspace() or answer[start] in "*_>"):
        start += 1
    return start in by_start


def _markers_open_next(
    answer: str,
    span: tuple[int, int, int],
    block_end: int,
    by_start: dict[int, Marker],
    starts: list[int],
) -> bool:
    """Whether the run of markers between ``closed`` and ``after`` (``span``: the sentence
    start, ``closed`` and ``after``) opens the next sentence rather than ending this one."""
    start, closed, after = span
    line_end = answer.find("\n", after, block_end)
    if _WORD_CHARS.search(answer, after, block_end if line_end < 0 else line_end) is None:
        return False  # the run ends the line (or the block): it closes this sentence
    if _opens_with_marker(answer, start, closed, by_start):
        return True  # this sentence opened with its marker: so does the next
    first = bisect.bisect_left(starts, start)
    return first < len(starts) and starts[first] < closed  # it has markers of its own


def _take_markers(
    answer: str, position: int, block_end: int, by_start: dict[int, Marker]
) -> tuple[int, int]:
    """The positions after the closers starting at ``position`` and after the run of
    markers (and closers) that follows them."""
    closed = -1
    while True:
        cursor = position
        while cursor < block_end and answer[cursor] in _CLOSERS:
            cursor += 1
        if closed < 0:
            closed = cursor
        probe = cursor
        while probe < block_end and answer[probe] in " \t":
            probe += 1
        marker = by_start.get(probe)
        if marker is None:
            return closed, cursor
        position = marker.end


def _clean(answer: str, start: int, end: int, markers: list[Marker]) -> str:
    if markers:
        pieces = []
        cursor = start
        for marker in markers:
            pieces.append(answer[cursor : marker.start])
            cursor = marker.end
        pieces.append(answer[cursor:end])
        text = " ".join("".join(pieces).split())
    else:
        text = " ".join(answer[start:end].split())
    # Most sentences carry no markup: the substitution only when its pattern can match.
    if "**" in text or "__" in text or "`" in text or text[:1] == ">":
        text = _MARKUP.sub("", text)
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text).strip()


def sentences(
    answer: str,
    parser: MarkerParser,
    resolver: IdResolver | None = None,
    *,
    markers: list[Marker] | None = None,
) -> list[Sentence]:
    """The answer's sentences in order, each with the IDs of the markers it holds (with
    ``resolver``, the trace's declared IDs are markers too, and IDs are resolved to them;
    ``markers``: the answer's markers as parsed and resolved already)."""
    if markers is None:
        markers = parser.markers(answer, resolver)
    by_start = {marker.start: marker for marker in markers}
    starts = [marker.start for marker in markers]
    found: list[Sentence] = []
    marker_index = 0
    for block_start, block_end in blocks(answer):
        cursor = block_start
        spans: list[tuple[int, int]] = []
        for match in _TERMINATOR.finditer(answer, block_start, block_end):
            if match.start() < cursor:
                continue  # inside markers already taken by the previous sentence
            closed, after = _take_markers(answer, match.end(), block_end, by_start)
            opens_next = after > closed and _markers_open_next(
                answer, (cursor, closed, after), block_end, by_start, starts
            )
            # Markers glued to the next word (``month.[S2]Upgrades``) end the sentence.
            glued = after > closed and after < block_end and answer[after].isalnum()
            if _ends_sentence(answer, match.start(), after, block_end, block_start, glued=glued):
                end = closed if opens_next else after
                spans.append((cursor, end))
                cursor = end
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
    if (
        len(lowered.split()) < _MIN_CLAIM_WORDS
        and lowered.isascii()
        and _DIGIT.search(lowered) is None
    ):
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


class DerivedClaims(NamedTuple):
    """The trace with its derived claims, and what the limits cut."""

    trace: Trace
    dropped_claims: int = 0
    """Claims past ``max_claims`` (the first ones in answer order are kept)."""
    cut_claims: int = 0
    """Claims whose citations were cut to ``max_citations`` IDs."""


def derive_claims(trace: Trace, parser: MarkerParser, *, importance: int) -> Trace:
    """``trace`` with claims derived from its answer; unchanged when it carries claims
    (see :func:`derive`, here without limits)."""
    return derive(trace, parser, importance=importance).trace


def derive(
    trace: Trace,
    parser: MarkerParser,
    *,
    importance: int,
    max_claims: int | None = None,
    max_citations: int | None = None,
    markers: list[Marker] | None = None,
) -> DerivedClaims:
    """``trace`` with claims derived from its answer; unchanged when it carries claims.

    Questions, lead-ins and pleasantries without markers give no claim; a sentence that
    is only markers adds its IDs to the claim before it. At most ``max_claims`` claims are
    kept (the first ones) and each cites at most ``max_citations`` IDs (its first ones):
    the same bounds a trace's own claims must keep (``limits.*``), so that a derived trace
    costs no more than one that would be accepted. ``markers``: the answer's markers as
    parsed and resolved already (:func:`sidecar.checks.numbering.number`).
    """
    if trace.claims:
        return DerivedClaims(trace)
    claims: list[Claim] = []
    resolver = None if markers is not None else IdResolver(frozenset(s.id for s in trace.sources))
    dropped = 0
    for sentence in sentences(trace.answer, parser, resolver, markers=markers):
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
        if max_claims is not None and len(claims) >= max_claims:
            dropped += 1
            continue
        claims.append(
            Claim(
                id=f"{DERIVED_ID_PREFIX}{len(claims) + 1}",
                text=text,
                citation_ids=list(sentence.ids),
                importance=importance,
            )
        )
    if not claims:
        return DerivedClaims(trace)
    cut = 0
    if max_citations is not None:
        for index, found in enumerate(claims):
            if len(found.citation_ids) > max_citations:
                cut += 1
                claims[index] = found.model_copy(
                    update={"citation_ids": found.citation_ids[:max_citations]}
                )
    return DerivedClaims(trace.model_copy(update={"claims": claims}), dropped, cut)


def cut_findings(derivation: DerivedClaims, max_citations: int | None) -> list[Finding]:
    """``derived_claims_cut`` findings for what the limits cut from the derived claims."""
    findings = []
    if derivation.dropped_claims:
        kept = len(derivation.trace.claims)
        findings.append(
            Finding(
                "derived_claims_cut",
                "warning",
                detail=f"claims={kept} of {kept + derivation.dropped_claims} (limits.max_claims)",
            )
        )
    if derivation.cut_claims:
        findings.append(
            Finding(
                "derived_claims_cut",
                "warning",
                detail=f"citations cut to {max_citations} on "
                f"{derivation.cut_claims} claims (limits.max_citations_per_claim)",
            )
        )
    return findings
