"""The built-in citation marker pattern: bracketed lists of IDs ([S1], [1, 2], [1-3]),
Markdown footnote references [^1], 【1†source】 and the full-width and CJK bracket forms;
written for RE2 (the configured default) and for ``re`` (what the parser runs)."""

from __future__ import annotations

import re

__all__ = ["BUILTIN", "BUILTIN_ASCII", "DEFAULT_MARKER_PATTERN", "STOP_MARKER_ASCII"]

_FULL_LETTERS = "\uff21-\uff3a\uff41-\uff5a"  # Ａ-Ｚ ａ-ｚ
_FULL_DIGITS = "\uff10-\uff19"  # ０-９
_OPEN_SQUARE = "\\[\uff3b\ufe47"  # [ ［ ﹇
_OPEN_CJK = "\u3010\u3014\u3016\u3018"  # 【 〔 〖 〘
_CLOSE = "\\]\uff3d\ufe48\u3011\u3015\u3017\u3019"  # ] ］ ﹈ 】 〕 〗 〙


def builtin_pattern(
    space: str, digit: str, word: str, *, ascii_only: bool = False, possessive: bool = False
) -> str:
    """The built-in marker pattern, its classes written as given (each the inside of a
    character class).

    Built-in formats, one group for the IDs: bracketed lists [S1, S2]; Markdown footnote
    references [^1]; 【1†source】 (what follows the dagger names the kind of source, not an
    ID); the full-width and CJK brackets, letters, digits and separators. ``ascii_only``
    leaves out the parts that need a character ASCII text cannot hold: on ASCII text the
    pattern finds the same markers. ``possessive`` (for ``re``, which RE2 cannot read) makes
    every repeat and the list possessive: what follows each can never be matched by it (an
    ID's characters, whitespace, separators and closers are disjoint sets, the two kinds of
    ID start with a letter and a digit), so no backtracking is lost and the same markers are
    found, with less bookkeeping per try."""
    q = "+" if possessive else ""
    if ascii_only:
        letters, digits, words, spaces, separators = "A-Za-z", digit, word, space, ",;"
    else:
        letters = "A-Za-z" + _FULL_LETTERS
        digits = digit + _FULL_DIGITS
        words = word + _FULL_DIGITS + _FULL_LETTERS + "\uff3f\uff0d"  # ＿ －
        spaces = space + "\u3000"
        separators = ",;\uff0c\uff1b\u3001"  # ， ； 、
    dashes = "-" if ascii_only else "\\-\u2013"  # a range: [1-3], [1–3]
    marker_id = (
        rf"(?:[{letters}][{letters}_-]{{0,15}}{q}[{digits}][{words}-]{{0,15}}{q}"
        rf"|[{digits}]{{1,6}}{q}(?:[{dashes}][{digits}]{{1,6}}{q})?)"
    )
    ids = rf"({marker_id}(?:[{spaces}]*{q}[{separators}][{spaces}]*{q}{marker_id})*{q})"
    if ascii_only:
        return rf"\[\^?[{spaces}]*{q}{ids}[{spaces}]*{q}\]"
    return (
        rf"(?:[{_OPEN_SQUARE}]\^?|[{_OPEN_CJK}])[{spaces}]*{q}{ids}[{spaces}]*{q}"
        rf"(?:†[^{_CLOSE}\n]{{0,64}}{q})?[{_CLOSE}]"
    )


DEFAULT_MARKER_PATTERN = builtin_pattern(r"\s", r"\d", r"\w")
BUILTIN = re.compile(builtin_pattern("\t\n\f\r ", "0-9", "0-9A-Za-z_", possessive=True))
"""The built-in pattern for ``re``, with RE2's ASCII classes spelled out (RE2's ``\\s`` has
no vertical tab), so both find the same markers: ``re``'s matching costs a fraction of the
RE2 binding's per-match overhead. It runs in time linear in the text, as RE2 would: a try
can only start at a bracket, every repeat is bounded or of whitespace, and the list's items
are kept apart by a required separator, so a failed try costs time linear in the run of
ID characters, separators and whitespace up to the next bracket, which no other try crosses.
"""
BUILTIN_ASCII = re.compile(
    builtin_pattern("\t\n\f\r ", "0-9", "0-9A-Za-z_", ascii_only=True, possessive=True)
)
"""``BUILTIN`` for ASCII text (most answers): starting with one literal bracket, a search
skips from bracket to bracket at memchr speed instead of testing a set at every character."""
STOP_MARKER_ASCII = re.compile(
    " " + builtin_pattern(" ", "0-9", "0-9A-Za-z_", ascii_only=True, possessive=True) + r"\."
)
"""A marker of ``BUILTIN_ASCII`` with no whitespace in it but spaces, after a space and
before a full stop (``"20 EUR [2]."``), the space and the stop with it: the marker ends at
the first closing bracket after its opening one (nothing inside can be one) and holds the
same whitespace for both patterns, so ``BUILTIN_ASCII`` finds the same marker there. It never
takes a line break."""
