"""Text as the injection rules see it, with every character mapped back to the original.

An instruction addressed to a model survives many disguises that a reader (or a model)
still reads as the same words. :func:`normalise` undoes them, in this order:

1. HTML: character references decoded (``&#105;gnore``, ``&lt;system&gt;``), comment
   delimiters removed (the comment's text is kept: hiding an instruction in ``<!-- -->`` is
   the attack), inline formatting tags removed (``ig<b></b>nore``).
2. Characters, one by one: NFKC's compatibility forms (full-width and mathematical letters,
   ligatures), then case folding, accents and other combining marks dropped, format
   characters dropped (zero-width space and joiners, soft hyphen, word joiner, bidi
   controls, variation selectors, tags) and Latin look-alikes from other scripts folded to
   the letter they imitate (Cyrillic ``а``, Greek ``ο``: the table in
   :mod:`sidecar.checks._injection_confusables`). ASCII characters are kept as they are:
   the rules match them case-insensitively.
3. Markdown emphasis removed: ``*``, ``~`` and backticks, and ``_`` where it does not join
   two word characters (``evidence_quote`` keeps its underscore).
4. A word hyphenated over a line break joined (``instruc-\\ntions``). Line breaks between
   words are left alone: the rules' gaps accept them, and line-start rules need them.

The result keeps, for every character, the span of the original text it came from, so a
match maps back to original coordinates (:meth:`Normalised.original`). Every pass is one
scan of the text (RE2 or a C-level map over the characters), so normalising is linear in
the text; ``work`` counts the characters the passes were handed.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from sidecar._regex import compile_linear
from sidecar.checks._injection_confusables import CONFUSABLES

__all__ = ["Normalised", "fold_char", "fold_text", "normalise"]

# Visible nowhere, yet neither Cf nor a combining mark: Hangul fillers, the Mongolian vowel
# separator (Cf since Unicode 6.3, listed for older tables), the combining grapheme joiner.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u180e\u034f")
_LINE_BREAKS = frozenset("\u2028\u2029\x85")
_QUOTES = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u02bc": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
}


def fold_char(char: str) -> str:
    """What one character becomes in the normalised text ('' when it is dropped)."""
    if char.isascii():
        return char
    if char in _INVISIBLE or unicodedata.category(char) == "Cf":
        return ""
    if char in _LINE_BREAKS:
        return "\n"
    if char in _QUOTES:
        return _QUOTES[char]
    # A capital look-alike is folded before case folding: its small form (Greek tau for
    # capital tau) is often no look-alike at all.
    char = CONFUSABLES.get(char, char)
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", char).casefold())
    kept = []
    for part in decomposed:
        if unicodedata.category(part) in ("Mn", "Me", "Cf"):
            continue
        part = CONFUSABLES.get(part, part).lower()
        kept.append(_QUOTES.get(part, part))
    folded = unicodedata.normalize("NFC", "".join(kept))
    return " " if folded and folded.isspace() and "\n" not in folded else folded


_TABLE_LIMIT = 20_000
"""Characters remembered at most: a text of every code point must not grow the table."""


class _FoldTable(dict[str, str]):
    """fold_char, computed once per character (ASCII never reaches it)."""

    def __missing__(self, char: str) -> str:
        folded = fold_char(char)
        if len(self) < _TABLE_LIMIT:
            self[char] = folded
        return folded


_TABLE = _FoldTable({chr(code): chr(code) for code in range(128)})


def fold_text(text: str) -> str:
    """``text`` with :func:`fold_char` applied to every character (no offsets): how the
    rules' own literals are written so they meet the normalised text."""
    return "".join(map(_TABLE.__getitem__, text))


@dataclass(frozen=True, slots=True)
class Normalised:
    """The normalised text and, for each of its characters, the original span it came
    from (``starts``/``ends`` are None when the text is unchanged)."""

    text: str
    starts: Sequence[int] | None
    ends: Sequence[int] | None
    work: int

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that normalised ``[start, end)`` came from."""
        if self.starts is None or self.ends is None:
            return start, end
        if start >= end:
            at = (
                self.starts[start]
                if start < len(self.starts)
                else (self.ends[-1] if self.ends else 0)
            )
            return at, at
        return self.starts[start], self.ends[end - 1]


Edit = tuple[int, int, str]
"""Replace ``[start, end)`` of the current text by the string."""


def _apply(current: Normalised, edits: list[Edit], base: str | None = None) -> Normalised:
    """``current`` with ``edits`` (sorted, disjoint) applied; the characters between edits
    come from ``base`` (same length as the current text) when given."""
    if not edits:
        return (
            current
            if base is None
            else Normalised(base, current.starts, current.ends, current.work)
        )
    text = current.text if base is None else base
    size = len(text)
    starts: Sequence[int] = current.starts if current.starts is not None else range(size)
    ends: Sequence[int] = current.ends if current.ends is not None else range(1, size + 1)
    pieces: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    cursor = 0
    for start, end, replacement in edits:
        pieces.append(text[cursor:start])
        new_starts.extend(starts[cursor:start])
        new_ends.extend(ends[cursor:start])
        if replacement:
            first = starts[start] if start < size else (ends[-1] if size else 0)
            last = ends[end - 1] if end > start else first
            new_starts.extend([first] * len(replacement))
            new_ends.extend([last] * len(replacement))
            pieces.append(replacement)
        cursor = end
    pieces.append(text[cursor:])
    new_starts.extend(starts[cursor:])
    new_ends.extend(ends[cursor:])
    return Normalised("".join(pieces), new_starts, new_ends, current.work)


_INLINE_TAGS = (
    "a|abbr|b|big|cite|code|del|dfn|em|font|i|ins|kbd|mark|q|s|samp|small|span|"
    "strike|strong|sub|sup|tt|u|var|wbr|br|p|div"
)
_HTML = compile_linear(
    r"(?i)(<!--|--!?>)|(&(?:#[0-9]{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});)"
    rf"|(</?(?:{_INLINE_TAGS})(?:[\s/][^<>]{{0,200}})?>)"
)


_ENTITIES: dict[str, str] = {}
"""Character references decoded so far (at most ``_TABLE_LIMIT``)."""


def _html(current: Normalised) -> Normalised:
    text = current.text
    if "&" not in text and "<" not in text and "-->" not in text:
        return current
    edits: list[Edit] = []
    for match in _HTML.finditer(text):
        comment, entity, tag = match.groups()
        if entity is not None:
            decoded = _ENTITIES.get(entity)
            if decoded is None:
                decoded = html.unescape(entity)
                if len(_ENTITIES) < _TABLE_LIMIT:
                    _ENTITIES[entity] = decoded
            if decoded == entity:
                continue
            edits.append((match.start(), match.end(), decoded))
        elif comment is not None or tag is not None:
            block = tag is not None and tag[1:4].lower() in (
                "br>",
                "br ",
                "br/",
                "p>",
                "p ",
                "div",
                "/p>",
                "/di",
            )
            edits.append((match.start(), match.end(), " " if block else ""))
    return _apply(Normalised(text, current.starts, current.ends, current.work + len(text)), edits)


def _characters(current: Normalised) -> Normalised:
    text = current.text
    work = current.work + len(text)
    if text.isascii():
        return Normalised(text, current.starts, current.ends, work)
    mapped = list(map(_TABLE.__getitem__, text))
    joined = "".join(mapped)
    here = Normalised(text, current.starts, current.ends, work)
    if len(joined) == len(text) and "" not in mapped:
        return _apply(here, [], joined)  # one character for one: offsets unchanged
    edits = [(at, at + 1, folded) for at, folded in enumerate(mapped) if len(folded) != 1]
    base = "".join(folded if len(folded) == 1 else "\0" for folded in mapped)
    return _apply(here, edits, base)


_EMPHASIS = compile_linear(r"[*~`_]+|-[ \t]{0,8}\r?\n[ \t]{0,8}")


def _emphasis(current: Normalised) -> Normalised:
    text = current.text
    if not any(mark in text for mark in "*~`_-"):
        return current
    edits: list[Edit] = []
    for match in _EMPHASIS.finditer(text):
        start, end = match.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        joins = before.isalnum() and after.isalnum()
        first = text[start]
        if first == "-":
            if joins and before.isalpha() and after.isalpha():
                edits.append((start, end, ""))  # a word hyphenated over a line break
        elif not joins or text.count("_", start, end) != end - start:
            edits.append((start, end, ""))  # emphasis (a lone run of _ inside a word stays)
    return _apply(Normalised(text, current.starts, current.ends, current.work + len(text)), edits)


def normalise(text: str) -> Normalised:
    """``text`` as the injection rules see it (see the module docstring), with offsets."""
    current = Normalised(text, None, None, 0)
    for step in (_html, _characters, _emphasis):
        current = step(current)
    return current
