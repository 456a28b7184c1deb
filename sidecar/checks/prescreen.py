"""The lexical pre-screen: numbers and negations in a claim missing from its cited passages.

It only flags; flags raise a trace's judging priority and feed the offline lexical judge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from sidecar._regex import compile_linear

__all__ = ["PassageFacts", "normalise", "numbers_in", "has_negation", "prescreen_flags"]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATION_WORDS = frozenset(
    "not no never none nobody nothing neither nor without cannot can't won't isn't aren't "
    "wasn't weren't doesn't don't didn't hasn't haven't hadn't shouldn't mustn't excluding "
    "except".split()
)
# Splitting on punctuation then testing set membership is ~10x faster than a regex
# alternation of negation words with \b anchors.
_PUNCTUATION = str.maketrans({**{c: " " for c in '.,;:!?()[]{}"/\u201c\u201d'}, "\u2019": "'"})
_SPACE = re.compile(r"\s+")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")

# ASCII text takes byte-level shortcuts with the same results: one C-speed translate and
# split instead of a str.translate through a dict or a regex tried at every position.
_ASCII_LOWER_PUNCTUATION = bytes(
    ord(" ") if chr(b) in '.,;:!?()[]{}"/' or chr(b).isspace() else ord(chr(b).lower())
    for b in range(128)
).ljust(256, b" ")
"""Lower-cases ASCII letters and blanks punctuation and whitespace, in one translate."""
_NEGATION_BYTES = frozenset(word.encode("ascii") for word in _NEGATION_WORDS)
_NEGATION_PIECES = ("no", "n't", "nev", "nei", "witho", "exc")
"""A piece of every negation word (checked in ``has_negation`` and the tests)."""
_NEGATION_PIECE = compile_linear("(?i)" + "|".join(map(re.escape, _NEGATION_PIECES)))
"""Any of the pieces, case ignored (applied to ASCII text only)."""
_NUMBER_CHARS = bytes(b if chr(b) in "0123456789.," else ord(" ") for b in range(256))
_NUMBER_BYTES = re.compile(rb"[0-9]+(?:[.,][0-9]+)*")


def normalise(text: str) -> str:
    """NFKC, curly quotes and dashes folded, whitespace collapsed, lower case."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_FOLD)
    return _SPACE.sub(" ", text).strip().lower()


_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)


def numbers_in(text: str) -> set[str]:
    """Numbers as written, with thousands separators removed ('1,000' -> '1000')."""
    if not text.isascii():
        return {_canonical(raw) for raw in _NUMBER.findall(text)}
    # ASCII: found within the runs of digits, dots and commas, the only characters a match
    # can contain; digits alone (the common case) are their own canonical form.
    out = set()
    for run in text.encode("ascii").translate(_NUMBER_CHARS).split():
        # A match starts and ends with a digit: separators around a run (a sentence's full
        # stop after a number) are never part of one.
        core = run.strip(b".,")
        if core.isdigit():
            out.add(core.decode("ascii"))
        elif core:
            out.update(_canonical(match.decode("ascii")) for match in _NUMBER_BYTES.findall(core))
    return out


def _canonical(raw: str) -> str:
    value = raw.replace(",", "") if "," in raw and _THOUSANDS.fullmatch(raw) else raw
    if "." in value:
        # 99.0 and 99 state the same number
        value = value.rstrip("0").rstrip(".") or "0"
    return value


def _contains_number(text: str, number: str) -> bool:
    """``number`` occurs in ``text`` not as part of a longer number."""
    start = text.find(number)
    while start >= 0:
        end = start + len(number)
        before = text[start - 1] if start else " "
        after = text[end : end + 2]
        if (
            not before.isdigit()
            and before not in ".,"
            and not (after[:1].isdigit() or (after[:1] in ".," and after[1:2].isdigit()))
        ):
            return True
        start = text.find(number, start + 1)
    return False


def _nowhere(number: str, passages: Sequence[PassageFacts]) -> bool:
    """Whether ``number`` (canonical form) is surely none of the passages' numbers, told
    without them: a canonical number without a comma is a prefix of a number as written,
    its commas taken out (1,000 -> 1000, 20.50 -> 20.5, 0.0 -> 0), so one that occurs in no
    passage so written is none of theirs."""
    if "," in number:
        return False
    for fact in passages:
        text = fact.text
        if number in (text.replace(",", "") if "," in text else text):
            return False
    return True


def _quoted(claim_text: str, passages: Sequence[PassageFacts]) -> bool:
    """Whether ``claim_text`` occurs as written in a passage, neither right after nor right
    before a digit, a dot or a comma: then the passage holds every number of the claim.

    Every character of a number (a match of ``_NUMBER``) is a digit, a dot or a comma, so
    no match of the passage runs into the occurrence from before it, and one inside the
    occurrence runs on past it only through the character after it. The passage's matches
    within the occurrence are therefore the claim's, and so are their canonical forms."""
    for fact in passages:
        text = fact.text
        at = text.find(claim_text)
        if at < 0:
            continue
        end = at + len(claim_text)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before in ".," or before.isdigit() or after in ".," or after.isdigit()):
            return True
    return False


def has_negation(text: str) -> bool:
    """True when the text contains a negation word."""
    if text.isascii():
        # Every negation word holds one of these pieces, and every ASCII token is a piece
        # of the text, case aside: text holding none of them (most does) has no negation
        # word, known from one linear-time search instead of a split into tokens.
        if _NEGATION_PIECE.search(text) is None:
            return False
        tokens = text.encode("ascii").translate(_ASCII_LOWER_PUNCTUATION).split()
        return not _NEGATION_BYTES.isdisjoint(tokens)
    words = text.lower().translate(_PUNCTUATION).split()
    return not _NEGATION_WORDS.isdisjoint(words)


class PassageFacts:
    """Per-passage facts computed at most once per trace, and only when a claim asks."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Computed on first use (plain attributes: cached_property takes a lock per read).
        self._numbers: set[str] | None = None
        self._negated: bool | None = None

    @property
    def numbers(self) -> set[str]:
        """Numbers in the passage, canonical form."""
        if self._numbers is None:
            self._numbers = numbers_in(self.text)
        return self._numbers

    @property
    def negated(self) -> bool:
        """Whether the passage contains a negation word."""
        if self._negated is None:
            self._negated = has_negation(self.text)
        return self._negated


def prescreen_flags(
    claim_text: str, passages: Sequence[PassageFacts], *, negated: bool | None = None
) -> tuple[str, ...]:
    """Flags for one cited claim: ``number_missing`` and/or ``negation_missing``.

    ``negated`` says whether the claim holds a negation word, when the caller knows it."""
    flags = []
    claim_numbers = () if _quoted(claim_text, passages) else numbers_in(claim_text)
    if claim_numbers:
        # Fast path: a number written the same way in a passage needs no full scan of it.
        missing = []
        for number in claim_numbers:
            for fact in passages:
                if _contains_number(fact.text, number):
                    break
            else:
                missing.append(number)
        if missing:
            if any(_nowhere(number, passages) for number in missing):
                flags.append("number_missing")  # known without every passage's numbers
            else:
                available: set[str] = set()
                for fact in passages:
                    available |= fact.numbers
                if not available.issuperset(missing):
                    flags.append("number_missing")
    if has_negation(claim_text) if negated is None else negated:
        for fact in passages:
            if fact.negated:
                break
        else:
            flags.append("negation_missing")
    return tuple(flags)
