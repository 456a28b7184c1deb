"""Pieces the injection patterns are written with (shared by the rule modules).

Gaps are bounded and stop at sentence ends, so a match stays inside one instruction; they
do cross line breaks (an instruction split over lines). ``NEG`` captures a negation right
before a verb: a match with a ``neg`` group set is dropped by the check.
"""

from __future__ import annotations

__all__ = ["CJK", "G10", "G20", "G30", "G40", "NEG", "S", "any_of", "gap"]


def gap(limit: int) -> str:
    """Up to ``limit`` characters inside one sentence."""
    return "[^.!?;\u3002\uff01\uff1f]{0,%s}" % (limit,)  # noqa: UP031 (no braces to escape)


def any_of(*words: str) -> str:
    """One of ``words`` (each a pattern), as a group that captures nothing."""
    return "(?:" + "|".join(words) + ")"


S = r"\s{1,4}"
G10, G20, G30, G40 = gap(10), gap(20), gap(30), gap(40)
CJK = "[^\u3002\uff01\uff1f\\n]"  # one character inside a CJK sentence
NEG = (
    r"(?P<neg>\b(?:not|never|n't|nicht|niemals|nie|ne|n'|no|nao|non|jamais|nunca|mai)"
    r"\s{0,3})?"
)
