"""Numbers for the offline screen: digits with separators, number words, years."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sidecar.judge import _lexicon as lx

__all__ = ["is_year", "looks_like_year", "number_at", "parse_digits", "ranked_at"]

_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")


def parse_digits(raw: str) -> float | None:
    """The value of digits with separators: 1,200 and 1.5; a lone comma as decimal (1,5)."""
    try:
        if "," in raw:
            if _THOUSANDS.fullmatch(raw):
                return float(raw.replace(",", ""))
            if raw.count(",") == 1 and "." not in raw:
                return float(raw.replace(",", "."))
            return None
        return float(raw)
    except ValueError:
        return None


def number_at(words: Sequence[str], i: int) -> tuple[float, int] | None:
    """A number starting at ``i`` (digits or number words) and the index after it."""
    word = words[i]
    if word[0].isdigit():
        value = parse_digits(word)
        if value is None:
            return None
        j = i + 1
        if j < len(words) and words[j] in lx.MULTIPLIERS:
            value *= lx.MULTIPLIERS[words[j]]
            j += 1
        return value, j
    if word == "a" and i + 1 < len(words) and words[i + 1] == "dozen":
        return 12.0, i + 2
    if word not in lx.NUMBER_WORDS and not (word in lx.MULTIPLIERS and i and words[i - 1] == "a"):
        return None
    total, current, j = 0.0, 0.0, i
    while j < len(words):
        w = words[j]
        if w in lx.NUMBER_WORDS and (current % 100 == 0 or lx.NUMBER_WORDS[w] < 10):
            if w in lx.TENS and current % 100:
                break
            current += lx.NUMBER_WORDS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w in lx.MULTIPLIERS:
            total += (current or 1) * lx.MULTIPLIERS[w]
            current = 0
        elif (
            w == "and" and current >= 100 and j + 1 < len(words) and words[j + 1] in lx.NUMBER_WORDS
        ):
            pass
        else:
            break
        j += 1
    return (total + current, j) if j > i else None


_YEAR_BEFORE = frozenset("in since by from until till of before after during to year".split())


def looks_like_year(raw: str, before: str, *, ends_clause: bool) -> bool:
    """Four plain digits after "in", "since"... or a month, or ending a clause."""
    if len(raw) != 4 or not raw.isdigit() or not 1000 <= int(raw) <= 2100:
        return False
    return before in _YEAR_BEFORE or before in lx.MONTHS or ends_clause


_CLAUSE_END = frozenset(".!?;\n,:") | {"but"}


def _year_like(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and 1000 <= int(word) <= 2100


def is_year(words: Sequence[str], i: int, before: str, after: str) -> bool:
    """Four digits read as a year: after "in", "since"... or a month, ending a clause, after
    "March 14," or next to another year ("1921-1958", "1921 to 1958", "1921 and 1958")."""
    raw = words[i]
    if looks_like_year(raw, before, ends_clause=after in _CLAUSE_END):
        return True
    if not _year_like(raw):
        return False
    if before == "," and i >= 3 and words[i - 2].isdigit() and words[i - 3] in lx.MONTHS:
        return True
    near = [words[k] for k in (i - 2, i - 1, i + 1, i + 2) if 0 <= k < len(words)]
    return any(_year_like(w) for w in near) or before in ("born", "died", "between", "c")


_RANKED = re.compile(
    r"(?:\bone of the|\bamong the|\b(?:second|third|fourth|fifth|sixth|"
    r"seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th)))[\s-]+(?:most\s+)?$"
)


def ranked_at(text: str, start: int) -> bool:
    """The word at ``start`` is ranked among others just before it: "one of the largest",
    "the 2nd largest", "the second most visited"."""
    return bool(_RANKED.search(text[max(0, start - 32) : start].casefold()))
