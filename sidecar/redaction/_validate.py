"""Validation of candidate values: checksums, parsers and the canonical keys of values.

Each ``*_key`` function takes a candidate and returns the canonical key of the value (the
same value written two ways gets the same placeholder), or None when the candidate is not
of its type. A checksum here is part of a type's definition (an IBAN's mod 97, an address's
octets), never a veto on a wider shape: the shapes themselves are decided in _numbers and
_scanner.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import math
from collections import Counter

__all__ = [
    "email_key",
    "entropy",
    "iban_key",
    "ip_key",
    "jwt_ok",
    "luhn_valid",
]

# Countries that issue IBANs (the SWIFT registry, as python-stdnum ships it).
_IBAN_COUNTRIES = frozenset(
    "AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI"
    " GL GR GT HN HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI"
    " NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN TR UA VA VG XK YE"
    " DZ AO BJ BF CM CV CF TD KM CG CI GQ GA GW MG ML MA MZ NE SN TG IR".split())
_IBAN_DIGITS = str.maketrans({chr(code): str(code - 55) for code in range(65, 91)})
_LUHN_DOUBLE = str.maketrans("0123456789", "0246813579")


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of ASCII digits (python-stdnum's rule; the tests compare them)."""
    doubled = digits[-2::-2].translate(_LUHN_DOUBLE)
    total = sum(digits[-1::-2].encode()) + sum(doubled.encode()) - 48 * len(digits)
    return total % 10 == 0


def iban_key(candidate: str) -> str | None:
    """An IBAN in any case and grouping: a country that issues IBANs, 15 to 34 characters
    and the mod-97 checksum; the key is its compact upper-case form."""
    compact = candidate.replace(" ", "").upper()
    if not (15 <= len(compact) <= 34 and compact.isascii() and compact.isalnum()):
        return None
    if compact[:2] not in _IBAN_COUNTRIES or not compact[2:4].isdigit():
        return None
    rearranged = (compact[4:] + compact[:4]).translate(_IBAN_DIGITS)
    return compact if int(rearranged) % 97 == 1 else None


def ip_key(candidate: str) -> str | None:
    """An IPv4 or IPv6 address (stdlib ipaddress), in its canonical form."""
    if ":" in candidate:
        if "::" not in candidate and candidate.count(":") < 7:
            return None  # times and ratios (10:30:45) rather than a shortened address
        if not any(ch.isdigit() for ch in candidate):
            return None
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None


def email_key(candidate: str) -> str | None:
    """An e-mail address with a well-formed local part and domain; the key is lower case."""
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


def entropy(value: str) -> float:
    """Shannon entropy of the characters of ``value``, in bits per character."""
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())
