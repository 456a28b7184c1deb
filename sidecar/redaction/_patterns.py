"""Candidate patterns of the built-in types, run by RE2 (linear time in the text).

Each group is one RE2 regex that finds candidates of a shape; the validators in _numbers,
_validate and _scanner decide the type and the span, and may use the text around the
candidate (RE2 has no lookaround, so context is read in Python, a bounded window per
candidate). Every repetition is bounded or runs over a character class that cannot hold the
group's own trigger, so each character is looked at a bounded number of times however the
text repeats a trigger: a 256 KB text costs about four times a 64 KB one
(tests/redaction/test_linear.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import re2

from sidecar._regex import compile_linear

__all__ = ["GROUPS", "GROUP_TYPES", "INDEX", "TRIGGERS", "Spans", "holds", "scan"]

# A key name holding a key word (AWS_SECRET_ACCESS_KEY, db.password, x-api-key, apiKey);
# _scanner checks that the word is a whole part of the name (not "monkey" or "keyboard").
_KEY_NAME = (
    r"[A-Za-z0-9_.-]*(?i:key|secret|token|passw(?:or)?d|passphrase|pwd|pass|credential"
    r"|auth|bearer|signature)[A-Za-z0-9_.-]*"
)
_VALUE = r"[^\s\"'`<>,;]{4,512}"
_NON_ASCII = r"\x{80}-\x{10FFFF}"

_PEM = (
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[A-Za-z0-9+/=\s:,.\\]|-[A-Za-z0-9])*"
    r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?"
)
_URLAUTH = (
    r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s/?#@:<>\"']{1,256}:"
    r"(?P<urlpw>[^\s/?#@<>\"']{1,256})@"
)
_JWT = r"\beyJ[A-Za-z0-9_-]{8,1000}\.[A-Za-z0-9_-]{8,1000}\.[A-Za-z0-9_-]{0,1000}"
_PREFIXED = (
    r"\b(?:sk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|live-|test-|svcacct-|admin-)?"
    r"[A-Za-z0-9_-]{20,255}"
    r"|[rsp]k_(?:live|test)_[A-Za-z0-9]{16,255}|whsec_[A-Za-z0-9]{24,255}"
    r"|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}"
    r"|glpat-[A-Za-z0-9_-]{20,255}|xox[abposre]-[A-Za-z0-9-]{10,255}"
    r"|xapp-\d-[A-Za-z0-9-]{10,255}|AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,255}"
    r"|SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}|npm_[A-Za-z0-9]{36}"
    r"|pypi-AgE[A-Za-z0-9_-]{50,255}|hf_[A-Za-z0-9]{30,255}|gsk_[A-Za-z0-9]{40,255}"
    r"|r8_[A-Za-z0-9]{30,255}|dop_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    r"|sq0(?:atp|csp)-[0-9A-Za-z_-]{22,255}|(?:AC|SK)[a-f0-9]{32}|ATATT[A-Za-z0-9_=-]{20,255}"
    r"|glsa_[A-Za-z0-9_]{32,255}|lin_api_[A-Za-z0-9]{40}|key-[a-f0-9]{32}"
    r"|AccountKey=[A-Za-z0-9+/=]{40,255}|\d{8,10}:AA[A-Za-z0-9_-]{33})"
    r"|https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,255}"
    r"|https://discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,255}"
)
_TOKENS = "|".join(f"(?P<{name}>{regex})" for name, regex in (
    ("pem", _PEM), ("urlauth", _URLAUTH), ("jwt", _JWT), ("prefixed", _PREFIXED)))

# (group, regex). Groups are scanned independently: a candidate of one group never hides a
# candidate of another; the redactor resolves overlaps between types.
GROUPS: tuple[tuple[str, str], ...] = (
    # Secrets that announce themselves, one alternation: a PEM private key block, the
    # password in a URL, a JWT, a provider's key format.
    ("tokens", _TOKENS),
    ("kv",
     rf"\b(?P<kvkey>{_KEY_NAME})[\"'`]?(?:[ \t]*(?::=|=>|[:=])[ \t]*(?P<kvquote>[\"'`]?)"
     r"|(?P<kvloose>(?:[ \t]+[A-Za-z]{1,12}){0,3}[ \t]+[\"'`]?))"
     r"(?i:(?:bearer|basic|token)[ \t]+)?"
     rf"(?P<kvval>{_VALUE})"),
    ("email",
     rf"[\w.%+'{_NON_ASCII}-]{{1,64}}@[\w{_NON_ASCII}][\w{_NON_ASCII}-]{{0,62}}"
     rf"(?:\.[\w{_NON_ASCII}][\w{_NON_ASCII}-]{{0,62}}){{0,8}}\.[A-Za-z{_NON_ASCII}]{{2,24}}"),
    ("obfuscated",
     r"[\w.+-]{1,64}\s{0,3}(?i:\[at\]|\(at\)|\{at\}|<at>|\sat\s|\s@\s)\s{0,3}"
     r"[A-Za-z0-9-]{1,63}(?:\s{0,3}(?i:\[dot\]|\(dot\)|\{dot\}|<dot>|\sdot\s|\.)\s{0,3}"
     r"[A-Za-z0-9-]{1,63}){1,4}"),
    ("iban",
     r"\b[A-Za-z]{2}\d{2}(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,4})?)\b"),
    ("ipv4",
     r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),
    ("ipv6",
     r"(?i:[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})(?:\d{1,3}(?:\.\d{1,3}){3})?"),
    ("number",
     r"(?:\+\(?|\(\+?|\b)\d[\d \x{a0}./()-]{5,40}\d"
     r"(?:\s{0,2}(?i:x|ext\.?|extn\.?|extension|#)\s{0,2}\d{1,6}\b)?"),
)
GROUP_TYPES: dict[str, tuple[str, ...]] = {
    "tokens": ("SECRET",),
    "kv": ("SECRET",), "email": ("EMAIL",), "obfuscated": ("EMAIL",), "iban": ("IBAN",),
    "ipv4": ("IP_ADDRESS",), "ipv6": ("IP_ADDRESS",),
    "number": ("US_SSN", "CREDIT_CARD", "PHONE"),
}
_COMPILED: dict[str, Any] = {group: compile_linear(regex) for group, regex in GROUPS}
INDEX: dict[str, int] = {name: index for regex in _COMPILED.values()
                         for name, index in regex.groupindex.items()}
"""The number of each named group (group names are unique across the patterns)."""

# A literal every candidate of a group holds, for groups whose candidates are rare: a text
# without one skips the group's scan.
TRIGGERS: dict[str, str] = {
    # Literals, and the start of the formats whose first letters are common in prose
    # ("gh" in "though", "AC" in "ACME"): each a prefix of what its pattern requires.
    "tokens": "|".join([re.escape(literal) for literal in (
        "-----BEGIN", "://", "eyJ", "sk-", "whsec_", "AKIA", "ASIA", "ABIA", "ACCA",
        "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA", "github_pat_", "glpat-", "xox",
        "xapp-", "AIza", "ya29.", "SG.", "npm_", "pypi-", "hf_", "gsk_", "r8_", "dop_v1_",
        "ATATT", "glsa_", "lin_api_", "AccountKey=", "hooks.slack.com", "discord")] + [
        r"[rsp]k_(?:live|test)_", r"gh[pousr]_", r"(?:AC|SK)[a-f0-9]{32}",
        r"shp(?:at|ss|ca|pa)_", r"sq0(?:atp|csp)-", r"key-[a-f0-9]{32}", r"\d:AA"]),
    "kv": r"(?i:key|secret|token|pass|pwd|auth|bearer|credential|signature)",
    "obfuscated": r"(?i:\sat\s|\[at\]|\(at\)|\{at\}|<at>|\s@\s)",
}
_TRIGGERS: dict[str, Any] = {group: compile_linear(regex) for group, regex in TRIGGERS.items()}


def holds(group: str, data: str | bytes) -> bool:
    """Whether ``data`` holds a match of the trigger pattern ``group`` (see TRIGGERS)."""
    regex = _TRIGGERS[group]
    if isinstance(data, bytes) and _RAW_MATCH is not None:
        return bool(regex._regexp.Match(_RAW_MATCH, data, 0, len(data))[0][0] >= 0)
    return regex.search(data) is not None


Spans = list[tuple[int, int]]
"""A candidate: the span of the whole match, then of each group ((-1, -1) if unset)."""


def scan(group: str, data: str | bytes) -> Iterator[Spans]:
    """Non-overlapping candidates of ``group`` in ``data``, left to right.

    ``data`` is the text, or its bytes when the text is ASCII (the offsets are the same).
    For bytes, RE2's own search is called directly: the Python wrapper's per-match objects
    cost more than the search itself on short texts.
    """
    regex = _COMPILED[group]
    if isinstance(data, bytes) and _RAW_MATCH is not None:
        match = regex._regexp.Match
        pos, end = 0, len(data)
        while pos <= end:
            spans: Spans = match(_RAW_MATCH, data, pos, end)
            if spans[0][0] < 0:
                return
            yield spans
            pos = spans[0][1] if spans[0][1] > spans[0][0] else spans[0][1] + 1
        return
    groups = regex.groups
    for found in regex.finditer(data):
        yield [found.span(i) for i in range(groups + 1)]


try:  # google-re2's binding under its Python wrapper; absent, the wrapper is used
    _RAW_MATCH: Any = re2._re2.RE2.Anchor.UNANCHORED
    if not hasattr(_COMPILED["number"], "_regexp"):
        _RAW_MATCH = None
except AttributeError:
    _RAW_MATCH = None
