"""Phone numbers: what phonenumbers.parse and is_valid_number decide, for the plain shapes.

phonenumbers is general: it strips international and national prefixes, extensions and
letters, then validates a number by trying every region of its country code, compiling and
matching one pattern per number type through several layers of calls. A candidate here is
only digits and separators, and most are either "+", a country code and a national number,
or ten North American digits. For those, the country code and national number are read off
the digits exactly as parse reads them, and validity is phonenumbers' own metadata (the same
patterns, lengths and region order) compiled once per region. Anything else (a national or
international prefix to strip, a leading zero, a non-geographic code) returns None here and
goes through phonenumbers itself. tests/redaction/test_phone.py compares the two.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from phonenumbers import COUNTRY_CODE_TO_REGION_CODE, PhoneMetadata

__all__ = ["plain_number", "valid_number"]

_NANP_REGIONS = frozenset({"US", "CA"})
_NON_GEOGRAPHIC = "001"
_MIN_NSN, _MAX_NSN = 2, 17  # phonenumbers' bounds on a national significant number


class _Desc(NamedTuple):
    lengths: frozenset[int]  # empty: any length
    pattern: re.Pattern[str]

    def matches(self, national: str) -> bool:
        if self.lengths and len(national) not in self.lengths:
            return False
        return self.pattern.fullmatch(national) is not None


class _Region(NamedTuple):
    leading_digits: re.Pattern[str] | None
    national_prefix: re.Pattern[str] | None
    general: _Desc | None
    # Per number length, the alternation of the number types that allow it: matching any
    # of them makes a number of the general shape valid.
    types: dict[int, re.Pattern[str]]
    any_length: re.Pattern[str] | None  # the types without length limits


def _desc(desc: object) -> _Desc | None:
    pattern = getattr(desc, "national_number_pattern", None)
    if not pattern:
        return None
    lengths = frozenset(getattr(desc, "possible_length", None) or ())
    return _Desc(lengths, re.compile(pattern))


@cache
def _region(region_code: str) -> _Region | None:
    """One region's metadata, compiled (the number types in _number_type_helper's order; a
    type phonenumbers would not report, such as mobile when it equals fixed line, adds
    nothing to validity)."""
    metadata = PhoneMetadata.metadata_for_region(region_code, None)
    if metadata is None:
        return None
    names = ["premium_rate", "toll_free", "shared_cost", "voip", "personal_number", "pager",
             "uan", "voicemail", "fixed_line"]
    if not metadata.same_mobile_and_fixed_line_pattern:
        names.append("mobile")
    descs = [d for d in (_desc(getattr(metadata, name)) for name in names) if d]
    by_length: dict[int, list[str]] = {}
    for desc in descs:
        for length in desc.lengths:
            by_length.setdefault(length, []).append(desc.pattern.pattern)
    unlimited = [desc.pattern.pattern for desc in descs if not desc.lengths]
    for patterns in by_length.values():
        patterns.extend(unlimited)
    prefix = metadata.national_prefix_for_parsing
    return _Region(
        re.compile(metadata.leading_digits) if metadata.leading_digits is not None else None,
        re.compile(prefix) if prefix else None,
        _desc(metadata.general_desc),
        {length: _alternation(patterns) for length, patterns in by_length.items()},
        _alternation(unlimited) if unlimited else None,
    )


def _alternation(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def _valid_for(region: _Region, national: str) -> bool:
    general = region.general
    if general is None or not general.matches(national):
        return False
    types = region.types.get(len(national), region.any_length)
    return types is not None and types.fullmatch(national) is not None


def plain_number(digits: str, *, international: bool, region: str) -> tuple[int, str] | None:
    """(country code, national number) as phonenumbers.parse reads these digits (all the
    digits of a candidate; ``international`` when it starts with "+"), or None when parse
    would have more to do than split them."""
    if not digits.isascii():
        return None
    if not international:
        if region in _NANP_REGIONS and len(digits) == 10 and digits[0] not in "01":
            return 1, digits  # no 011 prefix, no leading 1, no national prefix
        return None
    if digits[:1] in ("", "0"):
        return None
    for size in (1, 2, 3):
        code = int(digits[:size])
        if code in COUNTRY_CODE_TO_REGION_CODE:
            break
    else:
        return None
    national = digits[size:]
    if not _MIN_NSN <= len(national) <= _MAX_NSN or national[0] == "0":
        return None  # too short or long for parse, or an Italian-style leading zero
    main = COUNTRY_CODE_TO_REGION_CODE[code][0]
    compiled = _region(main) if main != _NON_GEOGRAPHIC else None
    if compiled is None:
        return None
    if compiled.national_prefix is not None and compiled.national_prefix.match(national):
        return None  # parse may strip a national prefix
    return code, national


def valid_number(code: int, national: str) -> bool | None:
    """phonenumbers.is_valid_number for this country code and national number (no leading
    zero); None when a region of the code cannot be decided here."""
    regions = COUNTRY_CODE_TO_REGION_CODE.get(code)
    if not regions:
        return False
    if _NON_GEOGRAPHIC in regions:
        return None
    if len(regions) == 1:
        only = _region(regions[0])
        return only is not None and _valid_for(only, national)
    # region_code_for_number: the first region whose leading digits match, or (without
    # leading digits) for which the number is valid.
    for region_code in regions:
        region = _region(region_code)
        if region is None:
            continue
        if region.leading_digits is not None:
            if region.leading_digits.match(national):
                return _valid_for(region, national)
        elif _valid_for(region, national):
            return True
    return False
