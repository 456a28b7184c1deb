"""Candidate patterns of the built-in types, and fast finders with the same matches.

``ALTERNATIVES`` states what a candidate is, one readable regex per group; scanning a text
with all of them joined in one alternation (the first alternative that matches at the
leftmost position wins) defines the candidates the scanner validates. That alternation is
slow, though: Python's regex engine can only skip ahead quickly when a pattern starts with a
literal or a character set, and the alternation starts with lookbehinds, so it tries every
alternative at every character. Each group therefore has a finder, ``find(text, pos)``, that
returns the same leftmost match as ``ALTERNATIVES[group].search(text, pos)`` (its start, and
a match object for the fields the validators read) but gets there cheaply: rare groups jump
to a literal trigger ('@', '://', 'eyJ', a key prefix or keyword) with ``str.find`` before
running their regex near it; frequent groups (numbers, IPv4, IBAN) use a rewrite of their
regex that starts with a character set, with the lookbehind moved after the first character.
tests/redaction/test_patterns.py checks the finders against the plain alternation.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["ALTERNATIVES", "FAMILY", "FINDERS", "GROUP_TYPES", "Finder", "Hit", "family_finder"]

_SECRET_WORDS = (
    r"api[_ -]?key|apikey|access[_ -]?key(?:[_ -]?id)?|secret(?:[_ -]?(?:access[_ -]?)?key)?"
    r"|client[_ -]?secret|(?:auth|access|refresh|bearer|api|session)[_ -]?token|token"
    r"|password|passwd|passphrase|pwd|bearer|private[_ -]?key"
)
_HEX = r"[0-9A-Fa-f]"

# (group, regex). Order matters where two alternatives can start at the same position: the
# first that matches wins that position.
ALTERNATIVES: tuple[tuple[str, str], ...] = (
    ("pem",
     r"-----BEGIN[A-Z ]{0,30}PRIVATE KEY-----(?s:.*?-----END[A-Z ]{0,30}PRIVATE KEY-----"
     r"|[A-Za-z0-9+/=\s]*)"),
    ("urlauth",
     r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s/?#@:<>]+:(?P<urlpw>[^\s/?#@<>]+)@"),
    ("jwt",
     r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("prefixed",
     r"(?<![A-Za-z0-9_-])(?:sk-(?:proj-|ant-(?:api\d\d-)?|live-|test-)?[A-Za-z0-9_-]{20,}"
     r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
     r"|gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}"
     r"|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})"
     r"(?![A-Za-z0-9_-])"),
    ("email",
     r"(?<![\w.%+-])[\w.%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
     r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b"),
    ("iban",
     r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
    ("ipv4",
     r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)"),
    ("ipv6",
     rf"(?<![\w:.])(?={_HEX}{{0,4}}:{_HEX}{{0,4}}:)[0-9A-Fa-f:]{{2,39}}"
     r"(?:(?<=:)\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])"),
    ("number",
     r"(?<![\w.+/-])\+?\(?\d[\d \u00a0().-]{5,26}\d(?![\w/]|-\w|\.\d)"),
    ("kv",
     rf"(?i:\b(?P<kvword>{_SECRET_WORDS})\b)"
     r"(?=(?:[\"']?\s*[:=]>?\s*[\"']?|\s+(?:is\s+|was\s+|:\s*)?[\"']?)"
     r"(?P<kvval>[^\s\"'<>,;&?#]{6,200}))"),
)
GROUP_TYPES: dict[str, tuple[str, ...]] = {
    "pem": ("SECRET",), "urlauth": ("SECRET",), "jwt": ("SECRET",), "prefixed": ("SECRET",),
    "kv": ("SECRET",), "email": ("EMAIL",), "iban": ("IBAN",), "ipv4": ("IP_ADDRESS",),
    "ipv6": ("IP_ADDRESS",), "number": ("US_SSN", "CREDIT_CARD", "PHONE"),
}

Hit = tuple[int, "re.Match[str]"]
"""A candidate: its start (a number's may precede its match by a '+' or '(') and its match."""
Finder = Callable[[str, int], "Hit | None"]

_RE = {group: re.compile(regex) for group, regex in ALTERNATIVES}

# The frequent groups (IBAN, IPv4, numbers: anything with digits) share one regex that starts
# with a character set, so the engine skips to capitals, digits, "+" and "(" by itself; each
# branch checks with a lookbehind which first character it needs and what the character
# before may be (the alternatives' leading lookbehinds, moved after the first character).
# They keep their relative order. IPv6 sits between IPv4 and numbers in ALTERNATIVES, but no
# IPv6 candidate starts where an IBAN, IPv4 or number candidate does (those hold no colon in
# their first five characters, IPv6 candidates do), so the order of ties is unchanged.
_FAMILY_BRANCHES = (
    ("iban", "A-Z",
     r"(?<=[A-Z])(?<!\w.)[A-Z]\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
    ("ipv4", r"\d",
     r"(?<=\d)(?<![\w.].)\d{0,2}(?:\.\d{1,3}){3}(?![\w]|\.\d)"),
    ("number", r"\d+(",
     r"(?<![\w.+/-].)(?:(?<=\+)\(?\d|(?<=\()\d|(?<=\d))"
     r"[\d \u00a0().-]{5,26}\d(?![\w/]|-\w|\.\d)"),
)
FAMILY = tuple(group for group, _, _ in _FAMILY_BRANCHES)
# Literal triggers: every match of the group contains one, at most this far from its start.
_PREFIX_TRIGGER = re.compile(r"sk[-_]|rk_|AKIA|ASIA|AIza|gh[pousr]_|github_pat_|xox|glpat-")
_IPV6_TRIGGER = re.compile(r":[0-9A-Fa-f]{0,4}:")
_KV_TRIGGERS = ("key", "token", "secret", "pass", "pwd", "bearer")
# The leftmost occurrence of any trigger (in lower case).
_KV_TRIGGER = re.compile("|".join(_KV_TRIGGERS))
_KV_REACH = 8  # "session_" / "refresh_" / "private_" before token or key
_KV_START = re.compile(r"\b[ascrbtp]")  # a word starting like a keyword (in lower case)
_EMAIL_REACH = 64  # the longest local part
_URL_REACH = 16  # the longest scheme


def _find_pem(text: str, pos: int) -> Hit | None:
    m = _RE["pem"].search(text, pos)  # starts with a literal: the engine skips ahead itself
    return None if m is None else (m.start(), m)


def _find_urlauth(text: str, pos: int) -> Hit | None:
    at = text.find("://", pos)
    if at < 0:
        return None
    m = _RE["urlauth"].search(text, max(pos, at - _URL_REACH))
    return None if m is None else (m.start(), m)


def _find_jwt(text: str, pos: int) -> Hit | None:
    at = text.find("eyJ", pos)
    if at < 0:
        return None
    m = _RE["jwt"].search(text, at)
    return None if m is None else (m.start(), m)


def _find_prefixed(text: str, pos: int) -> Hit | None:
    if not ("k-" in text or "k_" in text or "AKIA" in text or "ASIA" in text or "AIza" in text
            or "xox" in text or "glpat-" in text
            or ("_" in text and ("gh" in text or "github_pat_" in text))):
        return None
    trigger = _PREFIX_TRIGGER.search(text, pos)
    if trigger is None:
        return None
    m = _RE["prefixed"].search(text, trigger.start())
    return None if m is None else (m.start(), m)


def _find_email(text: str, pos: int) -> Hit | None:
    at = text.find("@", pos)
    if at < 0:
        return None
    m = _RE["email"].search(text, max(pos, at - _EMAIL_REACH))
    return None if m is None else (m.start(), m)


def _find_ipv6(text: str, pos: int) -> Hit | None:
    trigger = _IPV6_TRIGGER.search(text, pos)
    if trigger is None:
        return None
    m = _RE["ipv6"].search(text, max(pos, trigger.start() - 4))
    return None if m is None else (m.start(), m)


def family_finder(groups: frozenset[str]) -> Finder | None:
    """One finder for the enabled groups of FAMILY; the match's ``lastgroup`` names the group
    (None when none of them is enabled)."""
    branches = [(group, first, rest) for group, first, rest in _FAMILY_BRANCHES
                if group in groups]
    if not branches:
        return None
    firsts = "".join(dict.fromkeys(first for _, first, _ in branches))
    # Every branch needs a non-word character (or nothing) before its first one, and seven
    # characters or more of capitals, digits, blanks and ().+- : both checked once, so that
    # digits inside a longer number or a short number ("30 days") are dismissed by one test.
    regex = re.compile(f"[{firsts}](?<!\\w.)(?=[\\dA-Z \\u00a0().+-]{{6}})(?:" + "|".join(
        f"(?P<{group}>{rest})" for group, _, rest in branches) + ")")
    search = regex.search

    def find(text: str, pos: int) -> Hit | None:
        m = search(text, pos)
        return None if m is None else (m.start(), m)

    return find


def _first_trigger(lower: str, pos: int) -> int:
    m = _KV_TRIGGER.search(lower, pos)
    return -1 if m is None else m.start()


def _find_kv(text: str, pos: int) -> Hit | None:
    regex = _RE["kv"]
    if not text.isascii():
        m = regex.search(text, pos)
        return None if m is None else (m.start(), m)
    # ASCII: lower() keeps offsets and (?i) folds the same way. A match starts at a word
    # start at most _KV_REACH before a trigger, with the first letter of a keyword: try
    # only there, trigger after trigger, rather than the keyword alternation everywhere.
    lower = text.lower()
    if not ("key" in lower or "token" in lower or "secret" in lower or "pass" in lower
            or "pwd" in lower or "bearer" in lower):
        return None
    match = regex.match
    tried = pos
    at = _first_trigger(lower, pos)
    while at >= 0:
        for word in _KV_START.finditer(lower, max(tried, at - _KV_REACH), at + 1):
            m = match(text, word.start())
            if m is not None:
                return word.start(), m
        tried = at + 1
        at = _first_trigger(lower, tried)
    return None


FINDERS: dict[str, Finder] = {
    "pem": _find_pem, "urlauth": _find_urlauth, "jwt": _find_jwt, "prefixed": _find_prefixed,
    "email": _find_email, "ipv6": _find_ipv6, "kv": _find_kv,
}
