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

from collections.abc import Iterator
from typing import Any

from sidecar._regex import compile_linear

__all__ = ["GROUPS", "GROUP_TYPES", "INDEX", "scan"]

_KEYWORDS = (
    r"api_?key|apikey|access_?key(?:_?id)?|secret(?:_?(?:access_?)?key)?|client_?secret"
    r"|private_?key|signing_?key|master_?key|key|token|secret|password|passwd|passphrase"
    r"|pwd|pass|credentials?|auth|authorization|bearer|signature"
)
# A key name: the key word alone, inside a snake/kebab/dotted name (AWS_SECRET_ACCESS_KEY,
# db.password, x-api-key) or ending a camelCase one (apiKey, clientSecret).
_KEY_NAME = (
    rf"(?:(?:[A-Za-z0-9]{{1,24}}[_.-]){{0,5}}(?i:{_KEYWORDS})(?:[_.-][A-Za-z0-9]{{1,24}}){{0,3}}"
    r"|[a-z][A-Za-z0-9]{0,30}(?:Key|Secret|Token|Password|Passwd|Pwd|Passphrase|Credentials?"
    r"|Auth)(?:[A-Z][A-Za-z0-9]{0,20})?)"
)
_VALUE = r"[^\s\"'`<>,;]{4,512}"

# (group, regex). Groups are scanned independently: a candidate of one group never hides a
# candidate of another; the redactor resolves overlaps between types.
GROUPS: tuple[tuple[str, str], ...] = (
    ("pem",
     r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
     r"(?:[A-Za-z0-9+/=\s:,.\\]|-[A-Za-z0-9])*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?"
     r"-----)?"),
    ("urlauth",
     r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s/?#@:<>\"']{1,256}:(?P<urlpw>[^\s/?#@<>\"']{1,256})@"),
    ("jwt",
     r"\beyJ[A-Za-z0-9_-]{8,1000}\.[A-Za-z0-9_-]{8,1000}\.[A-Za-z0-9_-]{0,1000}"),
    ("prefixed",
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
     r"|https://discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,255}"),
    ("kv",
     rf"\b(?P<kvkey>{_KEY_NAME})[\"'`]?(?:\s{{0,3}}(?::=|=>|[:=])\s{{0,3}}"
     r"(?P<kvquote>[\"'`]?)|(?:\s{1,3}(?:[A-Za-z]{1,12}|=))?(?:\s{1,3}[A-Za-z]{1,12}){0,2}"
     r"\s{1,3}(?P<kvloose>[\"'`]?))"
     r"(?i:(?:bearer|basic|token)\s{1,3})?"
     rf"(?P<kvval>{_VALUE})"),
    ("email",
     r"[\w.%+'\x{80}-\x{10FFFF}-]{1,64}@[\w\x{80}-\x{10FFFF}][\w\x{80}-\x{10FFFF}-]{0,62}"
     r"(?:\.[\w\x{80}-\x{10FFFF}][\w\x{80}-\x{10FFFF}-]{0,62}){0,8}\.[A-Za-z\x{80}-\x{10FFFF}]{2,24}"),
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
     r"(?:\+\(?|\(|\b)\d[\d \x{a0}./()-]{5,40}\d"
     r"(?:\s{0,2}(?i:x|ext\.?|extn\.?|extension|#)\s{0,2}\d{1,6}\b)?"),
)
GROUP_TYPES: dict[str, tuple[str, ...]] = {
    "pem": ("SECRET",), "urlauth": ("SECRET",), "jwt": ("SECRET",), "prefixed": ("SECRET",),
    "kv": ("SECRET",), "email": ("EMAIL",), "obfuscated": ("EMAIL",), "iban": ("IBAN",),
    "ipv4": ("IP_ADDRESS",), "ipv6": ("IP_ADDRESS",),
    "number": ("US_SSN", "CREDIT_CARD", "PHONE"),
}
_COMPILED: dict[str, Any] = {group: compile_linear(regex) for group, regex in GROUPS}
INDEX: dict[str, int] = {name: index for regex in _COMPILED.values()
                         for name, index in regex.groupindex.items()}
"""The number of each named group (group names are unique across the patterns)."""


def scan(group: str, text: str, data: str | bytes) -> Iterator[Any]:
    """Non-overlapping candidates of ``group`` in ``text``, left to right.

    ``data`` is ``text`` itself, or its ASCII bytes when it is ASCII (same offsets, and the
    engine skips converting offsets between bytes and characters).
    """
    return _COMPILED[group].finditer(data)  # type: ignore[no-any-return]
