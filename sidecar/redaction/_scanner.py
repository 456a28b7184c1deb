"""The built-in detectors: RE2 finds candidates, Python decides each one from a bounded
window of text around it.

Each group of _patterns runs once over the text (a group whose trigger the text lacks, such
as '@' for e-mail addresses, is skipped after a substring test); the candidates are
validated and typed here and in _numbers. The redactor resolves overlaps between groups.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from sidecar.redaction._base import BUILTIN_TYPES, Entity
from sidecar.redaction._numbers import NumberClassifier
from sidecar.redaction._patterns import GROUP_TYPES, GROUPS, INDEX, Spans, holds, scan
from sidecar.redaction._validate import email_key, entropy, iban_key, ip_key, jwt_ok

__all__ = ["PatternDetector"]

_TRAILING = ".,:;)]}'\"`!?"
# A value that names no secret: booleans, placeholders, references to one held elsewhere.
_NOT_SECRET = frozenset({
    "true", "false", "null", "none", "nil", "undefined", "yes", "no", "empty", "required",
    "optional", "redacted", "hidden", "masked", "changeme?", "string", "value", "example"})
_PASSWORD_WORDS = ("pass", "pwd", "passphrase", "credential")
_AT = re.compile(r"\s*(?:\[at\]|\(at\)|\{at\}|<at>|\sat\s|\s@\s)\s*", re.IGNORECASE)
_LABEL = re.compile(r"(\s*(?:\[dot\]|\(dot\)|\{dot\}|<dot>|\sdot\s|\.)\s*|)([A-Za-z0-9-]+)",
                    re.IGNORECASE)
_KEY_SPLIT = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
_KEY_PART = re.compile(
    r"(?:api|access|secret|private|client|auth|refresh|session|bearer|master|signing"
    r"|encryption|app|db|admin|root|user)?(?:key|secret|token|password|passwd|pwd|pass"
    r"|passphrase|credentials?|auth|authorization|bearer|signature)s?"
    # run together in an environment variable: PGPASSWORD, MYSQLPWD, NPMTOKEN
    r"|[a-z0-9]{1,12}(?:password|passwd|secret|token|pwd|passphrase)s?")
_TLDS = frozenset(
    "com org net edu gov mil int io co ai app dev info biz me us uk de fr es it nl be ch at"
    " se no dk fi pl cz pt ie ca au nz jp cn in br mx ru za kr sg hk tw ar cl".split())

Validator = Callable[[str, Spans], list[Entity]]

# How far before a candidate's start and after its end each group's validator reads the
# text (_numbers reads four words within 48 characters before and one word within 16
# after; an IP address looks at 12 characters before and 2 after; an e-mail address after
# ':' looks up to 300 characters back for a URL's scheme). Groups not listed read only
# their candidate. Keep in step with the validators: the memo of long texts relies on it.
_REACH: dict[str, tuple[int, int]] = {
    "number": (48, 16), "ipv4": (12, 2), "ipv6": (12, 2), "email": (1, 0)}
_EMAIL_URL_REACH = 301
_MEMO_MIN_CHARS = 2048  # shorter texts rarely repeat a candidate: the memo would only cost
_MEMO_MAX_ENTRIES = 4096  # distinct neighbourhoods remembered per text (bounded memory)


class PatternDetector:
    """The built-in entity types (see BUILTIN_TYPES).

    ``types`` selects which of them are reported; ``phone_region`` is the country assumed
    for phone numbers written without a country code (it only shapes their keys: the same
    number with and without +country code gets one placeholder); ``email_obfuscations``
    also finds addresses written "jane at example dot com" or "jane[at]example.com".
    """

    name = "patterns"

    def __init__(self, types: Iterable[str] = BUILTIN_TYPES, *, phone_region: str = "US",
                 email_obfuscations: bool = True) -> None:
        self.types = frozenset(types)
        unknown = self.types - set(BUILTIN_TYPES)
        if unknown:
            raise ValueError(f"unknown entity types: {sorted(unknown)}")
        self.phone_region = phone_region.upper()
        self._numbers = NumberClassifier(self.types, self.phone_region)
        validators: dict[str, Validator] = {
            "tokens": self._tokens, "kv": self._kv, "email": self._email,
            "obfuscated": self._obfuscated, "iban": self._iban, "ipv4": self._ip,
            "ipv6": self._ip, "number": self._number,
        }
        self._groups = [(group, validators[group]) for group, _ in GROUPS
                        if self.types.intersection(GROUP_TYPES[group])
                        and (email_obfuscations or group != "obfuscated")]

    def detect(self, text: str) -> list[Entity]:
        """Entities of the enabled types in ``text`` (they may overlap)."""
        if "\\" in text:
            # Escaped line breaks and tabs left in text taken from JSON or logs
            # ("Fax:\\n0932-5500640") separate what they separate once unescaped; a space
            # and the character itself keep every offset.
            text = text.replace("\\n", " \n").replace("\\r", " \r").replace("\\t", " \t")
        data: str | bytes
        if text.isascii():
            encoded = text.encode()
            data = encoded
            digits = len(encoded) - len(encoded.translate(None, b"0123456789"))
        else:
            data = text
            digits = sum(map(text.count, "0123456789"))
        found: list[Entity] = []
        long = len(text) > _MEMO_MIN_CHARS
        for group, validate in self._groups:
            if _may_hold(group, text, data, digits):
                if long and group != "tokens":  # tokens: a check cheaper than the memo
                    found.extend(_memoized(group, validate, text, data))
                    continue
                for match in scan(group, data):
                    found.extend(validate(text, match))
        return found

    @staticmethod
    def _tokens(text: str, match: Spans) -> list[Entity]:
        if match[INDEX["urlauth"]][0] >= 0:
            start, end = match[INDEX["urlpw"]]
            return [Entity("SECRET", start, end)]
        start, end = match[0]
        if match[INDEX["jwt"]][0] >= 0 and not jwt_ok(text[start:end]):
            return []
        return [Entity("SECRET", start, end)]

    @staticmethod
    def _kv(text: str, match: Spans) -> list[Entity]:
        start, end = match[INDEX["kvval"]]
        value = text[start:end].rstrip(_TRAILING)
        if len(value) < 4 or value.lower() in _NOT_SECRET or len(set(value)) < 3:
            return []
        if value.startswith(("${", "{{", "%(", "$(")) or value.startswith("<") or (
                value.startswith("$") and value[1:].replace("_", "").isalnum()
                and value[1:].isupper()):
            return []  # a reference to a secret held elsewhere ($DB_PASSWORD, ${TOKEN})
        key_start, key_end = match[INDEX["kvkey"]]
        key = text[key_start:key_end]
        if not any(_KEY_PART.fullmatch(part) for part in _key_parts(key)):
            return []  # "monkey", "keyboard", "passport": no key word of their own
        loose = match[INDEX["kvloose"]][0] >= 0
        if loose or not _keyed(key, match, text):
            # "the token is ...", "github token 3f2a...": only a high-entropy value.
            if not _high_entropy(value):
                return []
        return [Entity("SECRET", start, start + len(value))]

    @staticmethod
    def _email(text: str, match: Spans) -> list[Entity]:
        start, end = match[0]
        while start < end and text[start] in ".'-+":
            start += 1
        if start and text[start - 1] == ":":
            scheme = text.rfind("://", max(0, start - 300), start)
            if scheme >= 0 and not any(ch.isspace() for ch in text[scheme:start]):
                return []  # the password and host of a URL (scheme://user:pw@host)
        key = email_key(text[start:end])
        return [] if key is None else [Entity("EMAIL", start, end, key)]

    @staticmethod
    def _obfuscated(text: str, match: Spans) -> list[Entity]:
        start, end = match[0]
        value = text[start:end]
        at = _AT.search(value)
        if at is None or ("@" in value and " @ " not in value):
            return []
        local = value[:at.start()].lstrip(".+-")
        if not local or local.lower() in ("me", "us", "him", "her", "them", "you", "it"):
            return []
        # The domain's labels and the separators before them; drop labels from the end
        # until the last is a top-level domain ("... dot org. Your" ends at "org").
        labels = [(m.group(1), m.group(2), m.end()) for m in _LABEL.finditer(value, at.end())]
        plain_at = at.group().strip().lower() == "at"
        while len(labels) > 1:
            tld = labels[-1][1].lower()
            dotted = any("dot" in sep.lower() for sep, _, _ in labels[1:])
            if tld.isalpha() and (tld in _TLDS or (len(tld) == 2 and (dotted or not plain_at))):
                if plain_at and not dotted:
                    return []  # "look at example.com": prose, not an address
                domain = ".".join(label for _, label, _ in labels)
                key = f"{local}@{domain}".casefold()
                return [Entity("EMAIL", start + len(value[:at.start()]) - len(local),
                               start + labels[-1][2], key)]
            labels.pop()
        return []

    @staticmethod
    def _ip(text: str, match: Spans) -> list[Entity]:
        start, end = match[0]
        if text[end:end + 2][:1] == "." and text[end + 1:end + 2].isdigit():
            return []  # part of a longer dotted number
        if start and text[start - 1] in ".:" or text[end:end + 1] == ":":
            if "." in text[start:end]:
                return []
        before = text[max(0, start - 12):start].lower().rstrip(" :")
        if before.endswith(("v", "version", "ver", "release", "build", "firmware")):
            return []
        key = ip_key(text[start:end])
        return [] if key is None else [Entity("IP_ADDRESS", start, end, key)]

    @staticmethod
    def _iban(text: str, match: Spans) -> list[Entity]:
        start, end = match[0]
        # A grouped candidate may have swallowed a word before or after ("DE89 GB82 WEST
        # ...", "... 00 and"): try the groups from each start that can begin an IBAN, the
        # longest first (a few groups at most).
        groups = text[start:end].split(" ")
        offset = start
        for first in range(len(groups)):
            head = groups[first]
            if len(head) >= 4 and head[:2].isalpha() and head[2:4].isdigit():
                for last in range(len(groups), first, -1):
                    candidate = " ".join(groups[first:last])
                    if len(candidate) < 15:
                        break
                    key = iban_key(candidate)
                    if key is not None:
                        return [Entity("IBAN", offset, offset + len(candidate), key)]
            offset += len(head) + 1
        return []

    def _number(self, text: str, match: Spans) -> list[Entity]:
        start, end = match[0]
        return self._numbers.classify(text, start, end)


def _memoized(group: str, validate: Validator, text: str,
              data: str | bytes) -> list[Entity]:
    """``validate`` on each candidate of ``group``, deciding a candidate only once per
    distinct neighbourhood: a validator reads nothing of the text outside the candidate's
    reach (_reach), so two candidates with the same text in reach and the same spans
    relative to it get the same entities, shifted. A trigger repeated a million times is
    then decided a handful of times, not a million."""
    memo: dict[tuple[str, tuple[int, ...]], list[Entity]] = {}
    found: list[Entity] = []
    append = found.append
    before, after = _REACH.get(group, (0, 0))
    email = group == "email"
    for match in scan(group, data):
        start, end = match[0]
        back = _EMAIL_URL_REACH if email and ":" in text[start - 1 if start else 0:end] else before
        base = start - back if start > back else 0
        spans = (start - base, end - base) if len(match) == 1 else tuple(
            s - base if s >= 0 else -1 for span in match for s in span)
        key = (text[base:end + after], spans)
        entities = memo.get(key)
        if entities is None:
            entities = validate(text, match)
            if len(memo) < _MEMO_MAX_ENTRIES:
                memo[key] = [Entity(e.type, e.start - base, e.end - base, e.key)
                             for e in entities]
            found.extend(entities)
        else:
            for e in entities:
                append(Entity(e.type, e.start + base, e.end + base, e.key))
    return found


def _may_hold(group: str, text: str, data: str | bytes, digits: int) -> bool:
    """Whether ``text`` holds what every candidate of ``group`` holds (``data``: the text or
    its ASCII bytes; ``digits``: how many ASCII digits it has)."""
    if group == "number":
        return digits >= 7
    if group == "iban":
        return digits >= 8  # every country's IBAN has eight digits or more
    if group == "ipv4":
        return digits >= 4 and text.count(".") >= 3
    if group == "email":
        return "@" in text
    if group == "ipv6":
        return "::" in text or text.count(":") >= 7  # what ip_key accepts
    return holds(group, data)  # a trigger pattern: tokens, kv, obfuscated


def _key_parts(key: str) -> list[str]:
    """The words of a key name: snake, kebab, dotted and camel case split, lower case."""
    return [part.lower() for part in _KEY_SPLIT.findall(key)]


def _keyed(key: str, match: Spans, text: str) -> bool:
    """Whether a key = value assignment says plainly that the value is a secret: a compound
    key name (aws_secret_access_key, DB_PASSWORD, apiKey), a quoted value, or a password
    word; a lone word and a colon ("key: understanding") is prose unless the value is more
    than letters."""
    start, end = match[INDEX["kvval"]]
    value = text[start:end]
    quoted = match[INDEX["kvquote"]][1] > match[INDEX["kvquote"]][0]
    camel = not key.isupper() and any(ch.isupper() for ch in key[1:])
    compound = camel or any(ch in key for ch in "_.-")
    if quoted or compound:
        return True
    lower = key.lower()
    if any(lower.startswith(w) for w in _PASSWORD_WORDS):
        return not value.isalpha() or len(value) >= 12
    return not value.isalpha()


def _high_entropy(value: str) -> bool:
    if len(value) < 16:
        return False
    has_alpha = any(ch.isalpha() for ch in value)
    has_digit = any(ch.isdigit() for ch in value)
    return has_alpha and has_digit and entropy(value) >= 3.0
