"""The built-in detectors, fused into one scan of each text.

The candidates are what one pass of the combined alternation of ``_patterns.ALTERNATIVES``
finds (the leftmost match wins, then the first alternative at that position); only
candidates are validated, by checksum or parser. The scan merges the groups' own finders
instead of running that alternation: each finder's next match is kept until the scan passes
it, and the leftmost (first group on a tie) is validated next. A text without any trigger
('@', ':', 'eyJ', a key prefix or keyword) costs a few substring tests and the one regex
scan for digits and capitals. Number candidates reach only the validators their digit count
allows (an SSN has nine, a card 13 to 19, a phone number 7 to 15).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from sidecar.redaction._base import BUILTIN_TYPES, Entity
from sidecar.redaction._patterns import (
    ALTERNATIVES,
    FAMILY,
    FINDERS,
    GROUP_TYPES,
    Finder,
    family_finder,
)
from sidecar.redaction._validate import (
    card_key,
    digits_of,
    email_key,
    iban_key,
    ip_key,
    jwt_ok,
    kv_secret_ok,
    phone_key,
    ssn_key,
)

__all__ = ["PatternDetector"]

_TRAILING = ".,:;)]}'\""
_TOKEN = re.compile(r"[^ \u00a0]+")
_STRENGTH = {"CREDIT_CARD": 0, "US_SSN": 1, "PHONE": 2}
# Substrings every candidate of a group holds (see the test in detect).
_GATES = {"pem": "-----BEGIN", "urlauth": "://", "jwt": "eyJ", "email": "@", "ipv6": ":"}
_GATE_PARTS = ("@", ":", "eyJ", "-----BEGIN")  # every gate holds one; detect tests them first

Validator = Callable[[int, "re.Match[str]", str], list[Entity]]


class PatternDetector:
    """The built-in entity types (see BUILTIN_TYPES), validated, in one scan per text.

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
        validators: dict[str, Validator] = {
            "pem": self._whole, "prefixed": self._whole, "jwt": self._jwt,
            "urlauth": self._urlauth, "kv": self._kv, "email": self._email,
            "iban": self._iban, "ipv4": self._ip, "ipv6": self._ip, "number": self._number,
        }
        enabled = [group for group, _ in ALTERNATIVES
                   if self.types.intersection(GROUP_TYPES[group])]
        # (order, gate, finder, validator) per enabled group in the alternatives' order (ties
        # go to the lower order), built once. A gate is a substring every candidate of the
        # group holds: without it the group costs one substring test. The family's validator
        # is None: the match's group names it.
        groups: list[tuple[int, str, Finder, Validator | None]] = []
        family = family_finder(frozenset(enabled))
        for group in enabled:
            if group not in FAMILY:
                groups.append((len(groups), _GATES.get(group, ""), FINDERS[group],
                               validators[group]))
            elif family is not None:
                groups.append((len(groups), "", family, None))
                family = None
        # Groups with a gate are rare in text; one pass over them only when one of the gates'
        # characters occurs ("://" holds ":").
        self._gated = tuple(g for g in groups if g[1])
        self._ungated = tuple(g for g in groups if not g[1])
        self._family_validators = {group: validators[group] for group in FAMILY}
        self._validators = {group: validators[group] for group in enabled}
        self._ssn = "US_SSN" in self.types
        self._card = "CREDIT_CARD" in self.types
        self._phone = "PHONE" in self.types

    def detect(self, text: str) -> list[Entity]:
        """Validated entities of the enabled types in ``text``."""
        heads: list[tuple[int, int, re.Match[str], Finder, Validator | None]] = []
        if "@" in text or ":" in text or "eyJ" in text or "-----BEGIN" in text:  # _GATE_PARTS
            for order, gate, find, validate in self._gated:
                if gate in text and (hit := find(text, 0)) is not None:
                    heads.append((hit[0], order, hit[1], find, validate))
        for order, _, find, validate in self._ungated:
            if (hit := find(text, 0)) is not None:
                heads.append((hit[0], order, hit[1], find, validate))
        if not heads:
            return []
        found: list[Entity] = []
        # Number runs classified in this call, by span: a miss is scanned again from its
        # next token, whose runs were all classified already.
        classified: dict[tuple[int, int], Entity | None] = {}
        while True:
            start, _, match, _, validate = head = min(heads) if len(heads) > 1 else heads[0]
            if validate is not None:
                new = validate(start, match, text)
            elif match.lastgroup == "number":
                new = self._number(start, match, text, classified)
            else:
                new = self._family_validators[match.lastgroup or ""](start, match, text)
            # After a find, go on after it (a run of digits may hold one number and then
            # another); after a miss, go on one character later so that a shorter candidate
            # of another type inside the miss (a card after "DE89") is still seen.
            # (A secret after "token" is found from the keyword: the scan goes on after the
            # keyword, so a validated type in the value still wins the overlap.)
            if new:
                end = new[0].end if len(new) == 1 else max(e.end for e in new)
                pos = min(end, match.end())
                found.extend(new)
            else:
                pos = start + 1
            if len(heads) == 1:
                hit = head[3](text, pos)
                if hit is None:
                    return found
                heads[0] = (hit[0], head[1], hit[1], head[3], head[4])
                continue
            refreshed = []
            for entry in heads:
                if entry[0] >= pos:
                    refreshed.append(entry)
                elif (hit := entry[3](text, pos)) is not None:
                    refreshed.append((hit[0], entry[1], hit[1], entry[3], entry[4]))
            if not refreshed:
                return found
            heads = refreshed

    @staticmethod
    def _whole(start: int, match: re.Match[str], text: str) -> list[Entity]:
        return [Entity("SECRET", start, match.end())]

    @staticmethod
    def _jwt(start: int, match: re.Match[str], text: str) -> list[Entity]:
        return [Entity("SECRET", start, match.end())] if jwt_ok(match.group()) else []

    @staticmethod
    def _urlauth(start: int, match: re.Match[str], text: str) -> list[Entity]:
        return [Entity("SECRET", match.start("urlpw"), match.end("urlpw"))]

    @staticmethod
    def _kv(start: int, match: re.Match[str], text: str) -> list[Entity]:
        stripped = match.group("kvval").rstrip(_TRAILING)
        if not kv_secret_ok(match.group("kvword"), stripped):
            return []
        value_start = match.start("kvval")
        return [Entity("SECRET", value_start, value_start + len(stripped))]

    @staticmethod
    def _email(start: int, match: re.Match[str], text: str) -> list[Entity]:
        key = email_key(match.group())
        return [] if key is None else [Entity("EMAIL", start, match.end(), key)]

    @staticmethod
    def _ip(start: int, match: re.Match[str], text: str) -> list[Entity]:
        key = ip_key(match.group(), text[max(0, start - 16):start])
        return [] if key is None else [Entity("IP_ADDRESS", start, match.end(), key)]

    @staticmethod
    def _iban(start: int, match: re.Match[str], text: str) -> list[Entity]:
        # The candidate may have swallowed a trailing group of capitals; retry shorter.
        candidate = match.group()
        while len(candidate.replace(" ", "")) >= 15:
            key = iban_key(candidate)
            if key is not None:
                return [Entity("IBAN", start, start + len(candidate), key)]
            candidate = candidate[:-1].rstrip()
        return []

    def _number(self, start: int, match: re.Match[str], text: str,
                classified: dict[tuple[int, int], Entity | None] | None = None) -> list[Entity]:
        value = text[start:match.end()]
        if value[0] == "(" and ")" not in value:
            value, start = value[1:], start + 1
        if classified is None:
            classified = {}
        entity = self._classify(value, start, text, classified)
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
                    found = self._classify(candidate, spans[i][0], text, classified)
                    if found is not None:
                        windows.append(found)
        windows.sort(key=lambda e: (_STRENGTH[e.type], e.start - e.end, e.start))
        chosen: list[Entity] = []
        for entity in windows:
            if all(entity.end <= other.start or other.end <= entity.start for other in chosen):
                chosen.append(entity)
        return sorted(chosen)

    def _classify(self, value: str, start: int, text: str,
                  classified: dict[tuple[int, int], Entity | None]) -> Entity | None:
        span = (start, start + len(value))
        if span in classified:
            return classified[span]
        classified[span] = entity = self._validate_number(value, start, text)
        return entity

    def _validate_number(self, value: str, start: int, text: str) -> Entity | None:
        # The digit count rules types out before their validators run: an SSN has nine, a
        # card 13 to 19, a phone number 7 to 15.
        all_digits = digits_of(value)
        digits = len(all_digits)
        if digits < 7:
            return None
        end = start + len(value)
        before = text[max(0, start - 48):start]
        if digits == 9 and self._ssn:
            key = ssn_key(value, before)
            if key is not None:
                return Entity("US_SSN", start, end, key)
        if digits >= 13 and self._card:
            key = card_key(value)
            if key is not None:
                return Entity("CREDIT_CARD", start, end, key)
        if digits <= 15 and self._phone:
            key = phone_key(value, before, self.phone_region, digits=all_digits)
            if key is not None:
                return Entity("PHONE", start, end, key)
        return None
