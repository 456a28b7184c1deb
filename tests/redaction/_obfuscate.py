"""The normalisation classes a value can be disguised with, and the reader's folding.

Each class writes a value the way a person (or a filter-dodging paste) might, keeping what
a reader sees: format characters and soft hyphens are invisible, full-width and
mathematical forms are the same letters, dash and space variants are separators, digits of
another script are digits, HTML character references decode to the characters. ``fold``
undoes all of them, so a test can look for the value the way a reader of the output would.
"""

from __future__ import annotations

import html
import random
import unicodedata
from collections.abc import Callable

__all__ = ["CLASSES", "fold"]

FORMAT = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u2063")
DASHES = ("\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2212", "\ufe63", "\uff0d")
SPACES = ("\u2009", "\u202f", "\u2007", "\u2002", "\u3000", "\u205f", "\u1680")
ZEROS = (0x660, 0x6F0, 0x966, 0x9E6, 0xA66, 0xE50, 0x1040, 0xFF10, 0x1D7CE, 0x1D7EC)
NAMED = {
    "@": "&commat;",
    ".": "&period;",
    "-": "&hyphen;",
    ":": "&colon;",
    "+": "&plus;",
    "/": "&sol;",
    "_": "&lowbar;",
    "=": "&equals;",
    "(": "&lpar;",
    ")": "&rpar;",
}


def _inserted(value: str, rng: random.Random, chars: tuple[str, ...]) -> str:
    """``value`` with one to three of ``chars`` between its characters."""
    if len(value) < 2:
        return value
    cuts = sorted(rng.sample(range(1, len(value)), min(len(value) - 1, rng.randint(1, 3))))
    pieces = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
    return "".join(
        piece + (rng.choice(chars) if i < len(cuts) else "") for i, piece in enumerate(pieces)
    )


def _wide(value: str, rng: random.Random) -> str:
    """Most printable ASCII characters full-width (NFKC's compatibility forms)."""
    return "".join(
        chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and rng.random() < 0.7 else c for c in value
    )


def _digits(value: str, rng: random.Random) -> str:
    zero = rng.choice(ZEROS)
    return "".join(chr(zero + int(c)) if c.isascii() and c.isdigit() else c for c in value)


def _references(value: str, rng: random.Random) -> str:
    """About a third of the characters (at least one) as character references: named,
    decimal or hexadecimal."""
    at = {rng.randrange(len(value))} | {i for i in range(len(value)) if rng.random() < 0.3}
    out = []
    for i, c in enumerate(value):
        if i not in at or c == "\n":
            out.append(c)
            continue
        form = rng.randrange(3)
        out.append(
            NAMED.get(c, f"&#{ord(c)};")
            if form == 0
            else f"&#{ord(c)};"
            if form == 1
            else f"&#x{ord(c):x};"
        )
    return "".join(out)


CLASSES: dict[str, Callable[[str, random.Random], str]] = {
    "format_characters": lambda v, rng: _inserted(v, rng, FORMAT),
    "soft_hyphen": lambda v, rng: _inserted(v, rng, ("\u00ad",)),
    "nfkc_width": _wide,
    "dash_variants": lambda v, rng: "".join(rng.choice(DASHES) if c == "-" else c for c in v),
    "space_variants": lambda v, rng: "".join(rng.choice(SPACES) if c == " " else c for c in v),
    "other_script_digits": _digits,
    "html_entities": _references,
}
"""Each normalisation class: the value written with it (the same value for a reader)."""

_FOLDED = {**dict.fromkeys(map(ord, DASHES), "-"), **dict.fromkeys(map(ord, SPACES), " ")}


def fold(text: str) -> str:
    """``text`` as a reader takes it in: references decoded, format characters dropped,
    NFKC, dash and space variants as ASCII, digits of any script as ASCII digits."""
    text = html.unescape(text)
    out = []
    for c in text:
        if unicodedata.category(c) == "Cf":
            continue
        c = c.translate(_FOLDED)
        for x in unicodedata.normalize("NFKC", c):
            x = x.translate(_FOLDED)
            out.append(str(unicodedata.decimal(x)) if x.isdecimal() else x)
    return "".join(out)
