"""Words of a text for the offline screen, before they become tokens.

One non-backtracking tokenising pattern, NFKC and case folding, one lemma per word, the
re-reading of the few words whose sense depends on their neighbours (an answering "No", a
capitalised "Never" opening a title, the month "May", "used to"), and the lexicon's phrases
found by a bounded look-ahead. Each word keeps its character offsets in the original text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from lemminflect import getAllLemmas

from sidecar.judge import _lexicon as lx

__all__ = ["SENTENCE_END", "Word", "lemma", "phrase_at", "read_words", "unit"]

# Each alternative is a run of one character class with an optional separator step that
# must be followed by more of the class: no two ways to match one string, so no
# backtracking blow-up on hostile text.
_TOKEN = re.compile(
    r"(?<![\w.+#])(?:[A-Za-z]\+\+|[A-Za-z]#|\.[Nn][Ee][Tt])(?![\w+#])"  # C++, C#, F#, .NET
    r"|\d+(?:[.,]\d+)*"  # 12, 1,200, 1.5
    r"|[^\W\d_]+(?:['\u2019][^\W\d_]+)*"  # words, don't, o'clock
    r"|[%$\u20ac\u00a3\u00a5\u00b5]"  # % $ euro pound yen micro
    r"|[.!?;,:\n]"
)
SENTENCE_END = frozenset(".!?;\n")
"""The tokens that end a sentence."""


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """One canonical lemma: the verb reading first, then noun, adjective, adverb."""
    found = getAllLemmas(word)
    for pos in ("VERB", "NOUN", "ADJ", "ADV", "AUX"):
        if pos in found and found[pos]:
            return str(found[pos][0])
    if len(word) > 3 and word.endswith("s") and word[:-1] in lx.UNITS:
        return word[:-1]
    return word


def _raw_tokens(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _TOKEN.finditer(text):
        raw = unicodedata.normalize("NFKC", match.group()).casefold().replace("\u2019", "'")
        yield raw, match.start(), match.end()


_RETHINK = frozenset({"may", "used", "yes"}) | lx.NEGATIONS


class Word(NamedTuple):
    """One word as written (folded), its lemma and its offsets in the text."""

    word: str
    lem: str
    start: int
    end: int


def read_words(text: str) -> list[Word]:
    """The words of ``text``, with the ambiguous ones re-read in context."""
    out: list[Word] = []
    for raw, start, end in _raw_tokens(text):
        if raw == ";" and text[max(0, start - 8) : start].rstrip().endswith("("):
            raw = ","  # "Henry (; born 1977)": an empty pronunciation, not a sentence end
        if raw.endswith("n't") or raw == "cannot":
            out.append(Word(raw, "not", start, end))
        elif raw[0].isalpha():
            out.append(Word(raw, lemma(raw), start, end))
        else:
            out.append(Word(raw, raw, start, end))
    for i, word in enumerate(out):
        if word.word not in _RETHINK and word.lem not in _RETHINK:
            continue
        nxt = out[i + 1].word if i + 1 < len(out) else ""
        prev = out[i - 1] if i else None
        first = prev is None or prev.word in SENTENCE_END
        if word.word in ("yes", "no") and first and nxt in (",", ".", "!", ";", ":"):
            # "No, the museum is open": an answer to a question, not a negation
            out[i] = word._replace(word="ANSWER", lem="ANSWER")
        elif word.lem in lx.NEGATIONS and not first and text[word.start].isupper():
            # a capitalised "Never" or "No" inside a sentence starts a title
            out[i] = word._replace(word="TITLE_WORD", lem="TITLE_WORD")
        elif word.word == "may" and (nxt[:1].isdigit() or (prev and prev.word[:1].isdigit())):
            # "in May 2020", "3 May": the month, not the hedge
            out[i] = word._replace(word="may_month", lem="may_month")
        elif word.word == "used" and nxt == "to" and (prev is None or prev.lem != "be"):
            # "used to fly free" marks a past state; "is used to compute" does not
            out[i] = word._replace(word="used_to", lem="STALE")
    return out


_PHRASE_LENGTHS: dict[str, tuple[int, ...]] = {}
for _key in lx.PHRASES:
    _PHRASE_LENGTHS[_key[0]] = tuple(
        sorted({*_PHRASE_LENGTHS.get(_key[0], ()), len(_key)}, reverse=True)
    )
del _key


def phrase_at(words: list[Word], i: int) -> tuple[int, tuple[str, ...]] | None:
    """The lexicon phrase starting at ``i`` (the longest): its length and concept keys."""
    lengths = _PHRASE_LENGTHS.get(words[i].lem, ()) + _PHRASE_LENGTHS.get(words[i].word, ())
    for length in sorted(set(lengths), reverse=True):
        if i + length > len(words):
            continue
        key = tuple(w.lem for w in words[i : i + length])
        found = lx.PHRASES.get(key)
        if found is None:
            key = tuple(w.word for w in words[i : i + length])
            found = lx.PHRASES.get(key)
        if found is not None:
            return length, found
    return None


def unit(word: Word) -> tuple[str, float] | None:
    """The unit ``word`` names: its dimension and factor to the base unit."""
    return lx.UNITS.get(word.word) or lx.UNITS.get(word.lem)
