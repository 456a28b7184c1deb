"""The blocks of an answer that hold prose: paragraphs and list items, without code, headings,
tables, rules, footnote definitions and back matter.

Back matter is what reads as a reference list: a section under a ``Sources:``,
``References``, ``Citations``, ``Bibliography``, ``Works cited`` or ``Footnotes`` heading
(with the reference-like lines after it: list items, lines opening with a marker, lines with
a URL, short lines without a full stop), and a trailing run of lines that each open with a
marker and hold no sentence (``[1] Refund policy, https://...``). A line that opens with a
marker and holds a sentence (``[S1] The Basic plan costs 20 EUR a month.``) is prose: many
apps put the marker before the sentence it supports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["BULLET", "blocks", "holds_sentence"]

_LINE = re.compile(r"[^\n]*\n?")
BULLET = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+")
"""A list item's bullet or number."""
_SKIPPED_LINE = re.compile(
    r"[ \t]*(?:#{1,6}(?:[ \t]|$)|\[\^[^\]\n]{1,64}\]:|\||(?:[-*_][ \t]*){3,}$)"
)
_FENCE = re.compile(r"[ \t]*(?:```|~~~)")
_FOOTNOTE_DEFINITION = re.compile(r"[ \t]*\[\^[^\]\n]{1,64}\]:")
_CONTINUATION = re.compile(r"(?:[ ]{2,}|\t)\S")
_BACK_MATTER_HEADING = re.compile(
    r"[ \t]*(?:#{1,6}[ \t]+)?[*_]{0,2}(?:sources?|references?|citations?|bibliography|"
    r"works[ \t]+cited|footnotes?|cited[ \t]+sources?)[ \t]*(?::[*_]{0,2}|[*_]{0,2}[ \t]*:|"
    r"[*_]{0,2}[ \t]*$)",
    re.IGNORECASE,
)
_MARKER_LED = re.compile(
    r"[ \t]*(?:(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+)?[*_]{0,2}"
    r"(?:\[\^?[A-Za-z0-9_.:-]{1,32}(?:[,;][ ]?[A-Za-z0-9_.:-]{1,32}){0,8}\]"
    r"|[\u3010\uff3b][^\u3011\uff3d\n]{1,32}[\u3011\uff3d])[*_]{0,2}"
)
_URL = re.compile(r"https?://|www\.", re.IGNORECASE)
_REFERENCE_WORDS = 12
_WORD = re.compile(r"[^\W\d_]+|\d+")
_ASCII_WORD = re.compile(r"[A-Za-z]+|[0-9]+")
"""``_WORD`` on ASCII text."""
_WORD_CHARS = re.compile(r"\w")
_FULL_WIDTH_STOP = re.compile("[\u3002\uff01\uff1f]")
_ENDS_SENTENCE = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]*_]*[ \t]*$")
_MIN_SENTENCE_WORDS = 4
_SENTENCE_PREFIX = 400
"""Characters of a line read for its words: a verb comes early in a sentence, and a
reference entry is short."""
_VERB_PREFIX = 80
"""Characters of a line read first for a verb."""
_VERBS = frozenset({
    # English
    "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does",
    "did", "can", "cannot", "could", "will", "would", "may", "might", "must", "shall",
    "should", "costs", "cost", "takes", "take", "took", "includes", "include", "offers",
    "offer", "allows", "allow", "requires", "require", "covers", "cover", "provides",
    "provide", "supports", "support", "gives", "give", "gets", "get", "makes", "make",
    "means", "mean", "applies", "apply", "lasts", "last", "needs", "need", "pays", "pay",
    "starts", "start", "expires", "expire", "runs", "run", "uses", "use", "comes", "come",
    "goes", "go", "keeps", "keep", "remains", "remain", "becomes", "become", "says", "say",
    "lets", "let", "charges", "contains", "contain", "shows", "show", "states", "state",
    "ships", "ship", "arrives", "arrive", "works", "work", "opens", "open", "closes",
    "close", "grew", "grows", "rose", "rises", "fell", "falls", "happens", "happened",
    # German, Dutch
    "ist", "sind", "war", "waren", "hat", "haben", "kann", "können", "muss", "müssen",
    "wird", "werden", "kostet", "zijn", "heeft", "hebben", "kan", "moet", "wordt", "kost",
    # French, Spanish, Italian, Portuguese
    "est", "sont", "ont", "peut", "doit", "coûte", "es", "son", "está", "están", "tiene",
    "tienen", "puede", "cuesta", "è", "sono", "ha", "hanno", "può", "costa", "são", "tem",
    "pode",
})  # fmt: skip
"""Verbs and auxiliaries that make a line a sentence, in the languages the splitter knows."""


def holds_sentence(text: str) -> bool:
    """Whether ``text`` (a line after its leading marker) reads as a sentence rather than
    an entry of a reference list: a common verb or auxiliary, a full-width sentence stop,
    or a sentence end after a few words that are mostly in lower case (a title is mostly
    capitalised) and do not end in a number (a year, a page). A line with a URL is an
    entry."""
    if _has_url(text):
        return False
    if not text.isascii() and _FULL_WIDTH_STOP.search(text):
        return True
    # A verb among the first words tells without reading the rest of the prefix (the last
    # word read may be cut short: it is left out).
    word = _ASCII_WORD if text.isascii() else _WORD
    head = word.findall(text, 0, _VERB_PREFIX)
    if any(found.lower() in _VERBS for found in head[:-1]):
        return True
    words = word.findall(text, 0, _SENTENCE_PREFIX)
    if not words:
        return False
    if any(word.lower() in _VERBS for word in words):
        return True
    if len(words) < _MIN_SENTENCE_WORDS or words[-1].isdigit() or len(text) > _SENTENCE_PREFIX:
        return len(text) > _SENTENCE_PREFIX  # a long line is prose, never an entry
    if _ENDS_SENTENCE.search(text) is None:
        return False
    lower = sum(1 for word in words[1:] if word[0].islower())
    return 2 * lower >= len(words) - 1


def _has_url(text: str) -> bool:
    """Whether ``text`` holds a URL's start (:data:`_URL`): without ``://`` or a ``www.``
    in any case, one that the regex, read case-insensitively, cannot find either."""
    if "://" not in text and "www." not in text.lower():
        return False
    return _URL.search(text) is not None


def _reference_like(line: str) -> bool:
    """A line of a source list: a list item, a marker first, a URL, or a short line
    without a full stop (a title)."""
    stripped = line.strip()
    return bool(
        BULLET.match(line)
        or _MARKER_LED.match(line)
        or _has_url(line)
        or _FOOTNOTE_DEFINITION.match(line)
        or (len(stripped.split()) <= _REFERENCE_WORDS and not stripped.endswith((".", "!", "?")))
    )


def _back_matter_start(lines: list[tuple[int, int]], answer: str) -> int:
    """Index of the first line of the trailing run of marker-led lines that hold no
    sentence (a source list without a heading), blank lines and footnote definitions;
    len(lines) when none."""
    first = len(lines)
    for index in range(len(lines) - 1, -1, -1):
        start, end = lines[index]
        text = answer[start:end]
        if not text.strip() or _FOOTNOTE_DEFINITION.match(text):
            continue
        led = _MARKER_LED.match(text)
        if led is None or _WORD_CHARS.search(text, led.end()) is None:
            break  # prose, or markers alone (they belong to the sentence before)
        if holds_sentence(text[led.end() :]):
            break  # a sentence its marker opens
        first = index
    return first


def blocks(answer: str) -> Iterator[tuple[int, int]]:
    """Spans of paragraphs and list items, skipping code, headings, tables, rules, footnote
    definitions and back matter (source lists, reference sections)."""
    lines: list[tuple[int, int]] = []
    for line in _LINE.finditer(answer):
        if line.start() == line.end():
            break
        end = line.end()
        lines.append((line.start(), end - 1 if answer[end - 1 : end] == "\n" else end))
    tail = _back_matter_start(lines, answer)
    in_code = False
    in_footnote = False
    in_back_matter = False
    block_start: int | None = None
    block_end = 0
    for index, (start, content_end) in enumerate(lines):
        text = answer[start:content_end]
        if index >= tail and not in_code:
            break
        if not in_code and not _FENCE.match(text):
            if in_footnote and _CONTINUATION.match(text):
                continue
            in_footnote = _FOOTNOTE_DEFINITION.match(text) is not None
            if _BACK_MATTER_HEADING.match(text):
                in_back_matter = True
            elif in_back_matter and text.strip() and not _reference_like(text):
                in_back_matter = False
            if in_back_matter or in_footnote:
                if block_start is not None:
                    yield block_start, block_end
                    block_start = None
                continue
        if _FENCE.match(text):
            in_code = not in_code
        elif in_code:
            continue
        elif not text.strip() or _SKIPPED_LINE.match(answer, start, content_end):
            pass
        else:
            bullet = BULLET.match(answer, start, content_end)
            if bullet is None:
                led = _MARKER_LED.match(text)
                if led is not None and _WORD_CHARS.search(text, led.end()) is not None:
                    # A line its marker opens starts a block, as a list item does.
                    if block_start is not None:
                        yield block_start, block_end
                    block_start = None
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
