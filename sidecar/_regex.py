"""Linear-time regular expressions for everything applied to trace text.

Configured patterns (redaction custom patterns, a configured citation marker pattern) are
compiled by RE2 (google-re2), whose matching time is linear in the text whatever the pattern:
RE2 has no backtracking, so it refuses the constructs that need it (backreferences,
lookahead and lookbehind). A pattern it refuses stops start-up with a message naming the
construct, instead of hanging a consumer on one unlucky trace. The built-in marker pattern is
compiled here too, but matched with ``re`` (sidecar/checks/markers.py says why that stays
linear); the built-in redaction detectors run in the native engine (the regex crate, also
linear-time).

RE2's Python syntax differs from ``re`` in small ways: ``\\d``, ``\\w`` and ``\\s`` are ASCII,
and the ``re`` flags are written inline (``(?i)``, ``(?s)``).
"""

from __future__ import annotations

import re
from typing import Any

import re2

__all__ = ["LinearPattern", "compile_linear"]

LinearPattern = Any
"""A compiled RE2 pattern: ``search``, ``finditer``, ``fullmatch``, ``groups`` like re's."""

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # the error is raised with its message; nothing on stderr
_BACKTRACKING = (
    (re.compile(r"\\[1-9]|\(\?P=|\\g<"), "a backreference"),
    (re.compile(r"\(\?<?[=!]"), "a lookahead or lookbehind"),
    (re.compile(r"\(\?>|[*+?}][+]"), "an atomic group or possessive quantifier"),
)


def compile_linear(pattern: str) -> LinearPattern:
    """The pattern compiled for linear-time matching.

    Raises ValueError saying why when RE2 cannot run it (a construct that needs
    backtracking, or bad syntax).
    """
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        for construct, what in _BACKTRACKING:
            if construct.search(pattern):
                raise ValueError(f"uses {what}, which cannot run in linear time") from None
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise ValueError(f"does not compile as a linear-time (RE2) regex: {detail}") from None
