"""Validation of candidate values: checksums and parsers instead of bare regexes.

Each function takes a candidate string (and sometimes the text before it, for context) and
returns the canonical key of the value when it is one, else None. Keys are what make the same
value written two ways get the same placeholder.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import math
import re
from collections import Counter

import phonenumbers
from phonenumbers import PhoneNumber
from stdnum import iban as stdnum_iban
from stdnum import luhn

__all__ = [
    "card_key",
    "email_key",
    "iban_key",
    "ip_key",
    "jwt_ok",
    "kv_secret_ok",
    "phone_key",
    "ssn_key",
]

_SSN_DASHED = re.compile(r"^(\d{3})([- ])(\d{2})\2(\d{4})$")
_SSN_CONTEXT = re.compile(r"(?i)(?:ssn|social security(?: number| no\.?)?|ss#)\W{0,4}$")
_VERSION_CONTEXT = re.compile(
    r"(?i)(?:\bv|\bversion|\bver\.?|\brelease|\bbuild|\bfirmware|\bpython|\bnode|\bsection"
    r"|\bclause|\bchapter|\barticle|\bparagraph|\bpara\.?|§)\s*:?\s*$"
)
_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|cell|fax|call|text|sms|whatsapp|dial|reach|contact"
    r"|hotline|number|no\.?)\b\W{0,6}(?:\w+\W+){0,3}$"
)
_DATE = re.compile(r"(?<!\d)(?:(?:19|20)\d\d[-./](?:0?[1-9]|1[0-2])[-./]\d\d"
                   r"|\d\d?[-./]\d\d?[-./](?:19|20)\d\d)(?!\d)")
_NANP_REGIONS = frozenset({"US", "CA"})
# How North American numbers are grouped: 4155552671, 415 555 2671, 1 415 555 2671, 415 5552671.
_NANP_GROUPS = frozenset({(10,), (11,), (3, 3, 4), (1, 3, 3, 4), (3, 7), (1, 10)})
# Issuer prefixes (IIN ranges) of the payment card networks and their number lengths.
_CARD_NETWORKS: tuple[tuple[re.Pattern[str], frozenset[int]], ...] = (
    (re.compile(r"^4"), frozenset({13, 16, 19})),                       # Visa
    (re.compile(r"^(?:5[1-5]|2[2-7])"), frozenset({16})),               # Mastercard
    (re.compile(r"^3[47]"), frozenset({15})),                           # American Express
    (re.compile(r"^(?:6011|65|64[4-9])"), frozenset(range(16, 20))),    # Discover
    (re.compile(r"^3(?:0[0-5]|[68])"), frozenset(range(14, 20))),       # Diners Club
    (re.compile(r"^35"), frozenset(range(16, 20))),                     # JCB
    (re.compile(r"^62"), frozenset(range(16, 20))),                     # UnionPay
)


_NON_DIGIT = re.compile(r"\D")
_CARD_CHARS = re.compile(r"[0-9 -]+")
_IBAN_DIGITS = str.maketrans({chr(code): str(code - 55) for code in range(65, 91)})


def _digits(value: str) -> str:
    """The digits of a candidate (candidates only hold decimal digits and separators)."""
    return _NON_DIGIT.sub("", value)


def ssn_key(candidate: str, before: str) -> str | None:
    """A US social security number: dashed (or spaced) AAA-GG-SSSS, or nine bare digits right
    after the words SSN / social security. Area 000, 666 and 900-999, group 00 and serial 0000
    are never issued."""
    match = _SSN_DASHED.match(candidate)
    if match:
        area, group, serial = match.group(1), match.group(3), match.group(4)
    elif len(candidate) == 9 and candidate.isdigit() and _SSN_CONTEXT.search(before[-40:]):
        area, group, serial = candidate[:3], candidate[3:5], candidate[5:]
    else:
        return None
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return None
    return area + group + serial


def card_key(candidate: str) -> str | None:
    """A payment card number: a known network's issuer prefix and length, digits grouped by
    spaces or dashes (not both), and a valid Luhn checksum (python-stdnum)."""
    if _CARD_CHARS.fullmatch(candidate) is None:
        return None
    if " " in candidate and "-" in candidate:
        return None  # mixed separators: a card followed by another number
    digits = candidate.replace(" ", "").replace("-", "")
    if not any(prefix.match(digits) and len(digits) in lengths
               for prefix, lengths in _CARD_NETWORKS):
        return None
    if len(set(digits)) < 2:
        return None
    return digits if luhn.is_valid(digits) else None


def phone_key(candidate: str, before: str, region: str) -> str | None:
    """A phone number valid for its country (phonenumbers), in E.164.

    Digits alone (no +, no grouping) are an order number as often as a phone number, so they
    count only after a word like phone, call or fax. Dotted groups count only when no version
    word precedes them and every group has two digits or more. Dates never count, and in
    North America (the default region) national numbers must be grouped as they are
    written there (415 555 2671, not 2024-03-15 30)."""
    digits = _digits(candidate)
    if not 7 <= len(digits) <= 15:
        return None
    international = candidate.startswith("+")
    grouped = any(ch in candidate for ch in " -().\u00a0")
    if not international and not grouped and not _PHONE_CONTEXT.search(before[-48:]):
        return None
    if _DATE.search(candidate):
        return None
    if not international and region in _NANP_REGIONS:
        lengths = tuple(len(g) for g in re.findall(r"\d+", candidate))
        if lengths not in _NANP_GROUPS:
            return None
    if "." in candidate and not international:
        groups = candidate.split(".")
        if _VERSION_CONTEXT.search(before[-16:]) or len(groups) > 4:
            return None
        if any(len(_digits(group)) < 2 for group in groups):
            return None
    national = _nanp_national(digits, international=international, region=region)
    if national is not None:
        # What phonenumbers.parse makes of this shape, without its general-purpose parsing
        # (a quarter of the cost): country code 1 and the ten digits. Valid for the US (the
        # first region of +1 and without leading digits, so what is_valid_number tries
        # first) or else for another +1 region.
        number = PhoneNumber(country_code=1, national_number=int(national))
        if phonenumbers.is_valid_number_for_region(number, "US") or (
                phonenumbers.is_valid_number(number)):
            return "+1" + national
        return None
    try:
        number = phonenumbers.parse(candidate, None if international else region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _nanp_national(digits: str, *, international: bool, region: str) -> str | None:
    """The ten-digit national number when the candidate is "+1" and ten digits, or ten
    digits in a North American region, the area code not starting with 0 or 1 (no national
    or international prefix to strip); else None (phonenumbers.parse decides)."""
    if international:
        if len(digits) == 11 and digits[0] == "1" and digits[1] not in "01":
            return digits[1:]
    elif len(digits) == 10 and digits[0] not in "01" and region in _NANP_REGIONS:
        return digits
    return None


def iban_key(candidate: str) -> str | None:
    """An IBAN with a valid country format and mod-97 checksum (python-stdnum)."""
    compact = candidate.replace(" ", "")
    if compact.isascii() and compact.isalnum():
        # The checksum first, as stdnum computes it: most candidates fail it, and stdnum's
        # country lookup costs twenty times more.
        rearranged = (compact[4:] + compact[:4]).upper().translate(_IBAN_DIGITS)
        if int(rearranged) % 97 != 1:
            return None
    try:
        return str(stdnum_iban.validate(candidate))
    except Exception:  # stdnum raises ValidationError subclasses, all of them mean "no"
        return None


def ip_key(candidate: str, before: str) -> str | None:
    """An IPv4 or IPv6 address (stdlib ipaddress), not a version string like v1.2.3.4."""
    if "." in candidate and ":" not in candidate and _VERSION_CONTEXT.search(before[-16:]):
        return None
    if ":" in candidate:
        if not any(ch.isdigit() for ch in candidate):
            return None
        if "::" not in candidate and candidate.count(":") < 7:
            return None
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None


def email_key(candidate: str) -> str | None:
    """An e-mail address with a well-formed local part and domain."""
    local, _, domain = candidate.rpartition("@")
    if not local or local.startswith(".") or local.endswith(".") or ".." in local:
        return None
    if ".." in domain or domain.startswith("-"):
        return None
    return candidate.casefold()


def jwt_ok(candidate: str) -> bool:
    """A JSON Web Token: its header is base64url JSON naming an algorithm or type."""
    header = candidate.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(decoded, dict) and ("alg" in decoded or "typ" in decoded)


def _entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "passphrase"})


def kv_secret_ok(keyword: str, value: str) -> bool:
    """Whether the value after a word like key, token, secret or password is a secret.

    After a password word: six characters or more, not all letters (prose like "password
    reset" or a title like "Password Policy" stays). After the other words: a high-entropy token of
    sixteen characters or more mixing letters and digits.
    """
    if keyword.casefold() in _PASSWORD_WORDS:
        return len(value) >= 6 and not value.isalpha()
    if len(value) < 16:
        return False
    has_alpha = any(ch.isalpha() for ch in value)
    has_digit = any(ch.isdigit() for ch in value)
    return has_alpha and has_digit and _entropy(value) >= 3.0
