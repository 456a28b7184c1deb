"""The built-in detectors, fused into one scan of each text.

One combined regular expression finds cheap candidates for every enabled type in a single
pass (each alternative fails on the first character of ordinary prose); only candidates are
validated, by checksum or parser. Phone parsing (the costly part) only ever sees runs of seven
digits or more, so texts without such runs never reach phonenumbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from sidecar.redaction._base import BUILTIN_TYPES, Entity
from sidecar.redaction._validate import (
    card_key,
    email_key,
    iban_key,
    ip_key,
    jwt_ok,
    kv_secret_ok,
    phone_key,
    ssn_key,
)

__all__ = ["PatternDetector"]

_SECRET_WORDS = (
    r"api[_ -]?key|apikey|access[_ -]?key(?:[_ -]?id)?|secret(?:[_ -]?(?:access[_ -]?)?key)?"
    r"|client[_ -]?secret|(?:auth|access|refresh|bearer|api|session)[_ -]?token|token"
    r"|password|passwd|passphrase|pwd|bearer|private[_ -]?key"
)
_HEX = r"[0-9A-Fa-f]"

# (group name, entity type, regex). Order matters where two alternatives can start at the
# same position: the first that matches wins that position.
_ALTERNATIVES: tuple[tuple[str, str, str], ...] = (
    ("pem", "SECRET",
     r"-----BEGIN[A-Z ]{0,30}PRIVATE KEY-----(?s:.*?-----END[A-Z ]{0,30}PRIVATE KEY-----"
     r"|[A-Za-z0-9+/=\s]*)"),
    ("urlauth", "SECRET",
     r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s/?#@:<>]+:(?P<urlpw>[^\s/?#@<>]+)@"),
    ("jwt", "SECRET",
     r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("prefixed", "SECRET",
     r"(?<![A-Za-z0-9_-])(?:sk-(?:proj-|ant-(?:api\d\d-)?|live-|test-)?[A-Za-z0-9_-]{20,}"
     r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
     r"|gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}"
     r"|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})"
     r"(?![A-Za-z0-9_-])"),
    ("email", "EMAIL",
     r"(?<![\w.%+-])[\w.%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
     r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b"),
    ("iban", "IBAN",
     r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
    ("ipv4", "IP_ADDRESS",
     r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)"),
    ("ipv6", "IP_ADDRESS",
     rf"(?<![\w:.])(?={_HEX}{{0,4}}:{_HEX}{{0,4}}:)[0-9A-Fa-f:]{{2,39}}"
     r"(?:(?<=:)\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])"),
    ("number", "NUMBER",
     r"(?<![\w.+/-])\+?\(?\d[\d \u00a0().-]{5,26}\d(?![\w/]|-\w|\.\d)"),
    ("kv", "SECRET",
     rf"(?i:\b(?P<kvword>{_SECRET_WORDS})\b)"
     r"(?=(?:[\"']?\s*[:=]>?\s*[\"']?|\s+(?:is\s+|was\s+|:\s*)?[\"']?)"
     r"(?P<kvval>[^\s\"'<>,;&?#]{6,200}))"),
)
_GROUP_TYPES = {
    "pem": ("SECRET",), "urlauth": ("SECRET",), "jwt": ("SECRET",), "prefixed": ("SECRET",),
    "kv": ("SECRET",), "email": ("EMAIL",), "iban": ("IBAN",), "ipv4": ("IP_ADDRESS",),
    "ipv6": ("IP_ADDRESS",), "number": ("US_SSN", "CREDIT_CARD", "PHONE"),
}
_TRAILING = ".,:;)]}'\""
_TOKEN = re.compile(r"[^ \u00a0]+")
_DIGIT = re.compile(r"\d")
_KEY_PREFIXES = ("sk-", "sk_", "rk_", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
                 "github_pat_", "xox", "AIza", "glpat-")
_KV_TRIGGERS = ("key", "token", "secret", "passw", "pwd", "bearer", "passphrase")
_STRENGTH = {"CREDIT_CARD": 0, "US_SSN": 1, "PHONE": 2}


class PatternDetector:
    """The built-in entity types (see BUILTIN_TYPES), validated, in one regex pass per text.

    ``types`` selects which of them are reported; ``phone_region`` is the country assumed for
    phone numbers written without a +country code.
    """

    name = "patterns"

    def __init__(self, types: Iterable[str] = BUILTIN_TYPES, *, phone_region: str = "US"):
        self.types = frozenset(types)
        unknown = self.types - set(BUILTIN_TYPES)
        if unknown:
            raise ValueError(f"unknown entity types: {sorted(unknown)}")
        self.phone_region = phone_region.upper()
        self._groups = tuple(group for group, _, _ in _ALTERNATIVES
                             if self.types.intersection(_GROUP_TYPES[group]))
        self._regexes: dict[tuple[str, ...], re.Pattern[str] | None] = {}
        self._regex = self._combined(self._groups)

    def _combined(self, groups: tuple[str, ...]) -> re.Pattern[str] | None:
        """The combined regex of these alternatives (compiled once per combination)."""
        if groups not in self._regexes:
            parts = [f"(?P<{group}>{regex})" for group, _, regex in _ALTERNATIVES
                     if group in groups]
            self._regexes[groups] = re.compile("|".join(parts)) if parts else None
        return self._regexes[groups]

    def _prefilter(self, text: str) -> re.Pattern[str] | None:
        """Only the alternatives whose trigger characters occur in the text (substring tests
        run in C; most prose needs no regex at all, most of the rest only one or two)."""
        has_digit = _DIGIT.search(text) is not None
        lower = text.lower()
        present = {
            "pem": "-----BEGIN" in text,
            "urlauth": "://" in text and "@" in text,
            "jwt": "eyJ" in text,
            "prefixed": any(prefix in text for prefix in _KEY_PREFIXES),
            "email": "@" in text,
            "iban": has_digit,
            "ipv4": has_digit and "." in text,
            "ipv6": ":" in text,
            "number": has_digit,
            "kv": any(word in lower for word in _KV_TRIGGERS),
        }
        return self._combined(tuple(group for group in self._groups if present[group]))

    def detect(self, text: str) -> list[Entity]:
        """Validated entities of the enabled types in ``text``."""
        regex = self._prefilter(text)
        if regex is None:
            return []
        found: list[Entity] = []
        pos = 0
        search = regex.search
        while (match := search(text, pos)) is not None:
            if match.lastgroup == "number":
                new = self._number(match, text)
            else:
                new = list(self._validate(match.lastgroup or "", match, text))
            # After a find, go on after it (a run of digits may hold one number and then
            # another); after a miss, go on one character later so that a shorter candidate
            # of another type inside the miss (a card after "DE89") is still seen.
            # (A secret after "token" is found from the keyword: the scan goes on after the
            # keyword, so a validated type in the value still wins the overlap.)
            pos = min(max(e.end for e in new), match.end()) if new else match.start() + 1
            found.extend(new)
        return found

    def _validate(self, group: str, match: re.Match[str], text: str) -> Iterator[Entity]:
        start, end = match.span()
        value = match.group()
        if group in ("pem", "prefixed"):
            yield Entity("SECRET", start, end)
        elif group == "jwt":
            if jwt_ok(value):
                yield Entity("SECRET", start, end)
        elif group == "urlauth":
            yield Entity("SECRET", match.start("urlpw"), match.end("urlpw"))
        elif group == "kv":
            raw = match.group("kvval")
            stripped = raw.rstrip(_TRAILING)
            if kv_secret_ok(match.group("kvword"), stripped):
                vstart = match.start("kvval")
                yield Entity("SECRET", vstart, vstart + len(stripped))
        elif group == "email":
            key = email_key(value)
            if key is not None:
                yield Entity("EMAIL", start, end, key)
        elif group == "iban":
            yield from self._iban(value, start)
        elif group in ("ipv4", "ipv6"):
            key = ip_key(value, text[max(0, start - 16):start])
            if key is not None:
                yield Entity("IP_ADDRESS", start, end, key)

    def _iban(self, value: str, start: int) -> Iterator[Entity]:
        # The candidate may have swallowed a trailing group of capitals; retry shorter.
        candidate = value
        while len(candidate.replace(" ", "")) >= 15:
            key = iban_key(candidate)
            if key is not None:
                yield Entity("IBAN", start, start + len(candidate), key)
                return
            candidate = candidate[:-1].rstrip()

    def _number(self, match: re.Match[str], text: str) -> list[Entity]:
        start, value = match.start(), match.group()
        if value.startswith("(") and ")" not in value:
            value, start = value[1:], start + 1
        entity = self._classify(value, start, text)
        if entity is not None:
            return [entity]
        if " " not in value:
            return []
        # The run joins several numbers ("30 5510 9466 8523 4706"): validate every run of
        # whole tokens and keep the strongest non-overlapping ones (a checksum beats a phone
        # number's looser validation, then the longer run wins).
        spans = [(m.start() + start, m.end() + start) for m in _TOKEN.finditer(value)]
        windows: list[Entity] = []
        for i in range(len(spans)):
            for j in range(i + 1, len(spans) + 1):
                if i == 0 and j == len(spans):
                    continue
                candidate = text[spans[i][0]:spans[j - 1][1]].rstrip(" (.-")
                if len(candidate) >= 7:
                    found = self._classify(candidate, spans[i][0], text)
                    if found is not None:
                        windows.append(found)
        windows.sort(key=lambda e: (_STRENGTH[e.type], e.start - e.end, e.start))
        chosen: list[Entity] = []
        for entity in windows:
            if all(entity.end <= other.start or other.end <= entity.start for other in chosen):
                chosen.append(entity)
        return sorted(chosen)

    def _classify(self, value: str, start: int, text: str) -> Entity | None:
        end = start + len(value)
        before = text[max(0, start - 48):start]
        if "US_SSN" in self.types:
            key = ssn_key(value, before)
            if key is not None:
                return Entity("US_SSN", start, end, key)
        if "CREDIT_CARD" in self.types:
            key = card_key(value)
            if key is not None:
                return Entity("CREDIT_CARD", start, end, key)
        if "PHONE" in self.types:
            key = phone_key(value, before, self.phone_region)
            if key is not None:
                return Entity("PHONE", start, end, key)
        return None
