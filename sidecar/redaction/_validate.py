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
from functools import cache
from typing import Any

import phonenumbers
from stdnum import iban as stdnum_iban

from sidecar.redaction._phone import plain_number, valid_number

__all__ = [
    "card_key",
    "digits_of",
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
_VERSION_WORDS = frozenset({
    "v", "version", "ver", "release", "build", "firmware", "python", "node", "section",
    "clause", "chapter", "article", "paragraph", "para"})
_VERSION_WORDS_DOT = frozenset({"ver", "para"})
_LAST_WORD = re.compile(r"\w+\Z")
_WORD_CHAR = re.compile(r"\w")
_DATE = re.compile(r"(?<!\d)(?:(?:19|20)\d\d[-./](?:0?[1-9]|1[0-2])[-./]\d\d"
                   r"|\d\d?[-./]\d\d?[-./](?:19|20)\d\d)(?!\d)")
_NANP_REGIONS = frozenset({"US", "CA"})
# How North American numbers are grouped: 4155552671, 415 555 2671, 1 415 555 2671, 415 5552671
# (the lengths of the digit runs, whatever separates them).
_NANP_GROUPS = ((10,), (11,), (3, 3, 4), (1, 3, 3, 4), (3, 7), (1, 10))
_NANP_SHAPE = re.compile(r"\D*(?:" + "|".join(
    r"\D+".join(rf"\d{{{n}}}" for n in lengths) for lengths in _NANP_GROUPS) + r")\D*")
# A dot-separated group with fewer than two digits.
_SHORT_DOT_GROUP = re.compile(r"(?:\A|(?<=\.))[^\d.]*(?:\d[^\d.]*)?(?=\.|\Z)")
# Issuer prefixes (IIN ranges) of the payment card networks and their number lengths. The
# prefixes do not overlap, so one alternation tells the network.
_CARD_NETWORKS: tuple[tuple[str, frozenset[int]], ...] = (
    ("4", frozenset({13, 16, 19})),                       # Visa
    ("5[1-5]|2[2-7]", frozenset({16})),                   # Mastercard
    ("3[47]", frozenset({15})),                           # American Express
    ("6011|65|64[4-9]", frozenset(range(16, 20))),        # Discover
    ("3(?:0[0-5]|[68])", frozenset(range(14, 20))),       # Diners Club
    ("35", frozenset(range(16, 20))),                     # JCB
    ("62", frozenset(range(16, 20))),                     # UnionPay
)
_CARD_NETWORK = re.compile("|".join(f"(?P<n{i}>{prefix})"
                                    for i, (prefix, _) in enumerate(_CARD_NETWORKS)))
_CARD_LENGTHS = {f"n{i}": lengths for i, (_, lengths) in enumerate(_CARD_NETWORKS)}


_NON_DIGIT = re.compile(r"\D")
_SEPARATORS = str.maketrans(dict.fromkeys(" \u00a0().+-"))
_DIGIT_RUN = re.compile(r"\d+")
_ASCII_DIGIT = re.compile("[0-9]")
_LUHN_DOUBLE = str.maketrans("0123456789", "0246813579")
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4_ADDRESS = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}")
_SEPARATOR = re.compile("[ ().\u00a0-]")
_CARD_CHARS = re.compile(r"[0-9 -]+")
_IBAN_DIGITS = str.maketrans({chr(code): str(code - 55) for code in range(65, 91)})


def digits_of(value: str) -> str:
    """The decimal digits of a candidate, in order."""
    # Candidates hold decimal digits and these separators only; anything else goes the
    # slow way.
    digits = value.translate(_SEPARATORS)
    return digits if digits.isdecimal() or not digits else _NON_DIGIT.sub("", value)


def _version_before(before: str) -> bool:
    """Whether the 16 characters before a candidate end in a version word (v, version,
    release, section...) and an optional colon: _VERSION_CONTEXT, decided from the last word
    (ASCII) or tried only where its word can start (it ends where the trailing blanks and
    colon begin; none is longer than nine characters), not at every character."""
    tail = before[-16:]
    end = len(tail.rstrip())
    if tail[end - 1:end] == ":":
        end = len(tail[:end - 1].rstrip())
    if not tail.isascii():
        return _VERSION_CONTEXT.search(tail, max(0, end - 9)) is not None
    dot = tail[end - 1:end] == "."
    word = _LAST_WORD.search(tail, max(0, end - dot - 10), end - dot)
    if word is None or word.end() != end - dot:
        return False
    if word.start() and _WORD_CHAR.match(tail, word.start() - 1):
        return False  # the word goes on before: no \b
    return word.group().lower() in (_VERSION_WORDS_DOT if dot else _VERSION_WORDS)


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
    spaces or dashes (not both), and a valid Luhn checksum (python-stdnum's rule)."""
    if _CARD_CHARS.fullmatch(candidate) is None:
        return None
    if " " in candidate and "-" in candidate:
        return None  # mixed separators: a card followed by another number
    digits = candidate.replace(" ", "").replace("-", "")
    network = _CARD_NETWORK.match(digits)
    if network is None or len(digits) not in _CARD_LENGTHS[network.lastgroup or ""]:
        return None
    if len(set(digits)) < 2:
        return None
    return digits if _luhn_valid(digits) else None


def _luhn_valid(digits: str) -> bool:
    """stdnum.luhn.is_valid for ASCII digits (the test compares them): from the right, every
    second digit doubled with its digits summed, the total a multiple of ten. stdnum's
    version walks the number in a generator; this one maps whole slices."""
    doubled = digits[-2::-2].translate(_LUHN_DOUBLE)
    # The byte values of ASCII digits are 48 + the digit.
    total = sum(digits[-1::-2].encode()) + sum(doubled.encode()) - 48 * len(digits)
    return total % 10 == 0


def phone_key(candidate: str, before: str, region: str, *,
              digits: str | None = None) -> str | None:
    """A phone number valid for its country (phonenumbers), in E.164.

    Digits alone (no +, no grouping) are an order number as often as a phone number, so they
    count only after a word like phone, call or fax. Dotted groups count only when no version
    word precedes them and every group has two digits or more. Dates never count, and in
    North America (the default region) national numbers must be grouped as they are
    written there (415 555 2671, not 2024-03-15 30). ``digits``: digits_of(candidate), when
    the caller has it already."""
    if digits is None:
        digits = digits_of(candidate)
    if not 7 <= len(digits) <= 15:
        return None
    international = candidate.startswith("+")
    grouped = _SEPARATOR.search(candidate) is not None
    if not international and not grouped and not _PHONE_CONTEXT.search(before[-48:]):
        return None
    if _DATE.search(candidate):
        return None
    if not international and region in _NANP_REGIONS:
        if _NANP_SHAPE.fullmatch(candidate) is None:
            return None
    if "." in candidate and not international:
        groups = candidate.split(".")
        if _version_before(before) or len(groups) > 4:
            return None
        if _SHORT_DOT_GROUP.search(candidate):
            return None
    plain = plain_number(digits, international=international, region=region)
    if plain is not None:
        code, national = plain
        valid = valid_number(code, national)
        if valid is not None:
            return f"+{code}{national}" if valid else None
    try:
        number = phonenumbers.parse(candidate, None if international else region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def iban_key(candidate: str) -> str | None:
    """An IBAN with a valid country format and mod-97 checksum (python-stdnum)."""
    compact = candidate.replace(" ", "")
    if not (compact.isascii() and compact.isalnum() and compact.isupper()):
        return _stdnum_iban(candidate)
    # stdnum's own steps (validate: checksum, registry entry, BBAN structure, country
    # module), with the registry lookup done once per country rather than per value.
    rearranged = (compact[4:] + compact[:4]).translate(_IBAN_DIGITS)
    if int(rearranged) % 97 != 1:
        return None
    country = _iban_country(compact[:2])
    if country is None:
        return _stdnum_iban(candidate)
    bban, module = country
    if bban is None or not bban.match(compact[4:]):
        return None
    if module is not None:
        try:
            module.validate(compact)
        except Exception:  # a ValidationError subclass
            return None
    return compact


def _stdnum_iban(candidate: str) -> str | None:
    try:
        return str(stdnum_iban.validate(candidate))
    except Exception:  # stdnum raises ValidationError subclasses, all of them mean "no"
        return None


@cache
def _iban_country(code: str) -> tuple[re.Pattern[str] | None, Any] | None:
    """The BBAN structure and country module of a country code, from stdnum's registry;
    None when this stdnum version lays them out differently (then validate() decides)."""
    try:
        info = stdnum_iban._ibandb.info(code)
        entry = info[0][1] if info and info[0][0] == code else {}
        bban = stdnum_iban._struct_to_re(entry["bban"]) if entry.get("bban") else None
        module = stdnum_iban._get_cc_module(code)
    except Exception:
        return None
    return bban, module


def ip_key(candidate: str, before: str) -> str | None:
    """An IPv4 or IPv6 address (stdlib ipaddress), not a version string like v1.2.3.4."""
    if "." in candidate and ":" not in candidate and _version_before(before):
        return None
    if ":" in candidate:
        if not any(ch.isdigit() for ch in candidate):
            return None
        if "::" not in candidate and candidate.count(":") < 7:
            return None
        try:  # what ip_address() ends with, after IPv4Address refused the colons
            return str(ipaddress.IPv6Address(candidate))
        except ValueError:
            return None
    if candidate.isascii():
        # IPv4Address's own rule (four decimal octets up to 255, no leading zeros), whose
        # canonical form is the candidate itself.
        return candidate if _IPV4_ADDRESS.fullmatch(candidate) else None
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
    terms = _entropy_terms(len(value))
    return -sum(map(terms.__getitem__, Counter(value).values()))


@cache
def _entropy_terms(total: int) -> tuple[float, ...]:
    """p log2 p for p = n / total, per count n (the same floats, summed in the same order)."""
    return (0.0, *(n / total * math.log2(n / total) for n in range(1, total + 1)))


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
    if value.isascii():  # letters are the cased characters, digits 0-9
        has_alpha = value.lower() != value.upper()
        has_digit = _ASCII_DIGIT.search(value) is not None
    else:
        has_alpha = any(ch.isalpha() for ch in value)
        has_digit = any(ch.isdigit() for ch in value)
    return has_alpha and has_digit and _entropy(value) >= 3.0
