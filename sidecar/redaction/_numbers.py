"""Runs of digits and separators: phone numbers, payment cards, US social security numbers.

Recall first. A run of the right shape is redacted unless its context clearly makes it
something else; checksums decide between types, never whether a phone-shaped run is kept:

- PHONE: optional + or 00 and country code, optional (0) trunk, 7 to 15 digits in groups
  separated by spaces, dots, dashes, slashes or parentheses (or none), optional extension
  (x204, ext. 12).
- CREDIT_CARD: 12 to 19 digits grouped by spaces or dashes (or none) that pass Luhn, any
  network; 12 to 15 digits only when grouped like a card (groups of four or more).
- US_SSN: AAA-GG-SSSS (never-issued areas, groups and serials excluded), or nine digits
  after SSN / social security.

Something else: a date or time, a version, an amount with a currency, a percentage, a range,
a decimal (coordinates), a measurement or count with a unit, an ISBN, an IP address, or an
identifier (glued to letters, after #, or after a word such as order, tracking, invoice,
policy, article, ISBN, version). When a run holds several numbers ("30 5510 9466 8523
4706"), its whole tokens are tried in windows and the strongest non-overlapping ones kept.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from phonenumbers import country_code_for_region

from sidecar.redaction._base import Entity
from sidecar.redaction._validate import luhn_valid

__all__ = ["NumberClassifier"]

_WORD = re.compile(r"[^\W\d_]+|[#§$€£¥₹₽₩%]")  # context words, read in bounded windows
_PHONE_WORDS = frozenset(
    "phone tel telephone telefon téléphone teléfono telefone mobile mob mobil cell cellphone"
    " handy fax call calling called ring text sms whatsapp signal dial reach contact hotline"
    " helpline tél tlf ph landline direct switchboard office home work caller callback"
    " appelez appeler appelle llame llámenos llamar llámame rufen anrufen ruf chiamare"
    " chiama chiamate ligue ligar bel bellen ring zadzwoń numer número numéro nummer"
    " rückruf".split())
_ID_WORDS = frozenset(
    "order orders invoice tracking track ticket case ref reference policy article art section"
    " sec clause chapter isbn issn sku serial model part item booking confirmation receipt"
    " transaction txn batch lot shipment parcel consignment claim patent doi version ver v"
    " build release firmware pmid ean upc gtin id uuid hash commit page pages pp year years"
    " isin cusip vin imei mac zip postcode".split())
# Before an amount or a count: not a phone number, though a card number may follow ("paid
# with 4111 ...").
_AMOUNT_WORDS = frozenset(
    "population total count revenue budget salary price cost costs amount balance sum paid"
    " pay payment fee fees usd eur gbp chf jpy inr aud cad sek nok dkk pln cny rmb rs kr zł"
    " # § $ € £ ¥ ₹ ₽ ₩".split())
_SSN_WORDS = frozenset({"ssn", "ss", "social", "security"})
_CARD_WORDS = frozenset(
    "card cards visa mastercard amex maestro discover diners jcb unionpay credit debit cc pan"
    .split())
_UNITS = frozenset(
    "mg g kg mcg µg ug ml l cl dl km m cm mm nm mi ft lb lbs oz kcal cal iu units unit hz khz"
    " mhz ghz kb mb gb tb pb kib mib gib bytes byte bits bit ms s sec secs second seconds min"
    " mins minute minutes h hr hrs hour hours day days week weeks month months year years"
    " users user requests request rows row items item tokens token words word people persons"
    " customers visits views downloads records times steps calls messages pages page copies"
    " km/h mph rpm kw kwh mw w mah % percent pct usd eur gbp chf jpy inr dollars euros"
    " pounds yen rupees € $ £ ¥ ₹ sqft m2 m² km² ha acres points pts votes shares tonnes"
    " tons t".split())
_CONTEXT_WORDS = _PHONE_WORDS | _ID_WORDS | _AMOUNT_WORDS | _SSN_WORDS | _CARD_WORDS
_CURRENCY = "$€£¥₹₽₩"
_TRUNKS = frozenset({"0", "1", "8"})
_DATE = re.compile(r"\(?(?:(?:19|20)\d\d([-./])(?:0?[1-9]|1[0-2])\1(?:0?[1-9]|[12]\d|3[01])"
                   r"|(?:0?[1-9]|[12]\d|3[01])([-./])(?:0?[1-9]|1[0-2])\2(?:19|20)?\d\d"
                   r"|(?:0?[1-9]|1[0-2])([-./])(?:0?[1-9]|[12]\d|3[01])\3(?:19|20)\d\d)\)?")
_DECIMAL = re.compile(r"-?(?:[1-9]\d{0,2}|0)\.\d{4,}")
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_SSN = re.compile(r"(\d{3})([- ])(\d{2})\2(\d{4})")
_SEPARATORS = " \u00a0./()-"
_STRIP = str.maketrans("", "", _SEPARATORS + "+")
_EXT_MARKS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#. \u00a0"
_TO_BLANK = str.maketrans(dict.fromkeys("\u00a0./()+-", " "))
_GROUP_SPLIT = re.compile(r"[ \u00a0./()+-]+")
_STRENGTH = {"CREDIT_CARD": 0, "US_SSN": 1, "PHONE": 2}
_MAX_GROUPS = 7  # blank-separated groups of one number: +33 6 12 34 56 78 x12


class _Run(NamedTuple):
    start: int
    end: int


_SENTENCE_END = re.compile(r"(?s:.*)(?:[.!?] (?=[A-Z])|[\n;])")


def _words_before(text: str, start: int) -> list[str]:
    """The last four words before ``start`` (within 48 characters and after the last digit),
    nearest first, lower case; stops at a sentence end or a line break."""
    window = text[max(0, start - 48):start]
    # Only words since the last digit: "v1.2 3760 ..." says nothing about 3760.
    last_digit = max(map(window.rfind, "0123456789"))
    if last_digit >= 0:
        window = window[last_digit + 1:]
    if "\n" in window or ";" in window or ". " in window or "! " in window or "? " in window:
        stop = _SENTENCE_END.match(window)
        if stop is not None:
            window = window[stop.end():]
    return _WORD.findall(window.lower())[-4:][::-1]


def _word_after(text: str, end: int) -> str:
    window = text[end:end + 16].lstrip(" \u00a0")
    match = _WORD.match(window)
    return match.group().lower() if match else ""


@cache
def _country_code(region: str) -> int:
    return country_code_for_region(region) or 1


class NumberClassifier:
    """Classifies a run of digits and separators found by the ``number`` pattern."""

    def __init__(self, types: frozenset[str], region: str) -> None:
        self.ssn = "US_SSN" in types
        self.card = "CREDIT_CARD" in types
        self.phone = "PHONE" in types
        self.region = region
        self.country_code = _country_code(region)

    def classify(self, text: str, start: int, end: int) -> list[Entity]:
        """Entities in ``text[start:end]`` (a candidate of the number pattern)."""
        body_end = end
        ext = ""
        tail = text[start:end]
        head = tail.rstrip("0123456789")
        if head[-1:].isalpha() or head.rstrip()[-1:] in ("#", "."):
            # The extension (x204, ext. 12, #3): digits after letters; the body ends at the
            # last digit before them.
            marker = head.rstrip(" .")
            if marker[-1:].isalpha() or marker[-1:] == "#":
                ext = tail[len(head):]
                body_end = start + len(marker.rstrip(_EXT_MARKS))
        if text[start] == "(" and ")" not in text[start:body_end]:
            start += 1
        glued = _glued_before(text, start) or (start > 0 and text[start - 1] in _CURRENCY)
        if glued:
            # The first token goes on an identifier (v1.2, POL-2024): skip it.
            space = text.find(" ", start, body_end)
            if space < 0:
                return []
            start = space + 1
        if self._excluded_by_surroundings(text, start, body_end if not ext else end):
            return []
        nearest = next((w for w in _words_before(text, start) if w in _CONTEXT_WORDS), "")
        if nearest in _ID_WORDS:
            return []
        # Tokens separated by blanks; dates, decimals, IP addresses, lone dashes and a last
        # token that is an hour (10:30) split the run into segments.
        tokens = []
        offset = start
        for piece in text[start:body_end].replace("\u00a0", " ").split(" "):
            if piece:
                tokens.append(_Run(offset, offset + len(piece)))
            offset += len(piece) + 1
        segments: list[list[_Run]] = [[]]
        for i, token in enumerate(tokens):
            value = text[token.start:token.end]
            barrier = (i == len(tokens) - 1 and not ext and text[token.end:token.end + 1] == ":"
                       and text[token.end + 1:token.end + 2].isdigit())
            if not barrier and not value.isdigit():
                # Only tokens with separators can be dates, decimals or addresses.
                bare = value.strip("()")
                barrier = (_DATE.fullmatch(value) is not None or value.strip("-/.()") == ""
                           or ("." in bare and (_DECIMAL.fullmatch(bare) is not None
                                                or _IPV4.fullmatch(bare) is not None)))
            if barrier:
                segments.append([])
                continue
            ssn = len(value) == 11 and _SSN.fullmatch(value) is not None
            if ssn and segments[-1]:
                segments.append([])  # "30 536-22-1234": an SSN stands on its own
            elif value[0] == "(" and segments[-1] and not (
                    len(segments[-1]) == 1 and (
                        text[segments[-1][0].start] == "+"
                        # a trunk prefix: 1 (415) 555-2671, 8 (912) 345-40-83, 0 (30) 901820
                        or text[segments[-1][0].start:segments[-1][0].end] in _TRUNKS)
                    or text.startswith("00", segments[-1][0].start)):
                segments.append([])  # "30 (415) 555-2671": an area code starts a number
            segments[-1].append(token)
            if ssn:
                segments.append([])
        tail_segment = segments[-1]
        if (not ext and tail_segment and _word_after(text, body_end) in _UNITS
                and text[tail_segment[-1].start:tail_segment[-1].end].strip("()").isdigit()):
            # "2 times", "1209600 seconds", "100 000 000 requests": the last number is a
            # quantity, unless the run is a card number (a checksum outweighs the word after
            # it) or a phone number of nine digits or more that would lose a group
            # ("608 334 7226 days").
            context = nearest if len(segments) == 1 else ""
            first, last_token = tail_segment[0].start, tail_segment[-1]
            whole = self._value(text, first, last_token.end, context, "", None)
            shorter = None if len(tail_segment) == 1 else self._value(
                text, first, tail_segment[-2].end, context, "", None)
            if whole is None or (whole.type != "CREDIT_CARD" and (
                    shorter is not None or len(tail_segment) == 1
                    or _thousands(text[first:last_token.end])
                    or sum(ch.isdigit() for ch in text[first:last_token.end]) < 9)):
                tail_segment.pop()
        found: list[Entity] = []
        last = tokens[-1] if tokens else None
        for index, segment in enumerate(segments):
            if not segment:
                continue
            context = nearest if index == 0 else ""
            has_ext = bool(ext) and segment[-1] == last
            entity = None if len(segment) > _MAX_GROUPS else self._value(
                text, segment[0].start, segment[-1].end, context, ext if has_ext else "",
                end if has_ext else None)
            if entity is not None and entity.type == "PHONE" and _may_hide_a_card(text, segment):
                # "5644 3592 4100 555": a card and a stray number read as one phone number;
                # a checksum-backed reading of part of it wins.
                windows = self._windows(text, segment, context)
                if any(window.type != "PHONE" for window in windows):
                    found.extend(windows)
                    continue
            if entity is not None:
                found.append(entity)
            elif len(segment) > 1:
                found.extend(self._windows(text, segment, context))
        return found

    def _windows(self, text: str, segment: list[_Run], context: str) -> list[Entity]:
        # Every window of up to _MAX_GROUPS tokens holding 7 to 19 digits: a bounded number
        # of tries per token, whatever the length of the run.
        windows: list[Entity] = []
        count = len(segment)
        digits = [0]
        for token in segment:
            digits.append(digits[-1] + len(text[token.start:token.end].translate(_STRIP)))
        spans = [(i, j) for i in range(count)
                 for j in range(i + 1, min(count, i + _MAX_GROUPS) + 1)
                 if 7 <= digits[j] - digits[i] <= 19 and (i, j) != (0, count)]
        for i, j in spans:
            entity = self._value(text, segment[i].start, segment[j - 1].end,
                                 context if i == 0 else "", "", None)
            if entity is not None:
                windows.append(entity)
        windows.sort(key=lambda e: (_STRENGTH[e.type], e.start - e.end, e.start))
        chosen: list[Entity] = []
        for entity in windows:
            if all(entity.end <= other.start or other.end <= entity.start for other in chosen):
                chosen.append(entity)
        return sorted(chosen)

    @staticmethod
    def _excluded_by_surroundings(text: str, start: int, end: int) -> bool:
        before = text[start - 1:start] if start else ""
        if before == "#":
            return True  # item #12345678
        after = text[end:end + 2]
        if not after:
            return False
        if after[0].isalpha() and after[0] not in "xX":
            return True  # glued to letters: 2024-03-15T10, 12345678abc, 100000mg
        if after[0] in "%_" + _CURRENCY:
            return True
        if after[0] in "-/" and after[1:2].isalnum():
            # glued to a code (12-34-56-AB), unless to a label: "780-775-0277-Office"
            return _word_after(text, end + 1) not in _PHONE_WORDS
        return after[:1] == "," and after[1:2].isdigit() and not text[end + 1:end + 4].isdigit()

    def _value(self, text: str, start: int, end: int, nearest: str, ext: str,
               ext_end: int | None) -> Entity | None:
        while end > start and text[end - 1] in " \u00a0(.-/":
            end -= 1
        while start < end and text[start] in ") \u00a0.-/":
            start += 1
        value = text[start:end]
        digits = value.translate(_STRIP)
        if not digits.isdigit() or not digits.isascii():
            return None
        count = len(digits)
        if count < 7:
            return None
        span_end = ext_end if ext_end is not None else end
        if self.ssn and count == 9:
            ssn = _ssn(value, nearest in _SSN_WORDS)
            if ssn is not None:
                return Entity("US_SSN", start, end, ssn)
            if nearest in _SSN_WORDS and (value.isdigit() or _SSN.fullmatch(value)):
                # Recall first: nine digits after "SSN" are one even in a range never issued.
                return Entity("US_SSN", start, end, digits)
        phone_context = nearest in _PHONE_WORDS
        international = value.lstrip("(").startswith(("+", "00"))
        card = (self.card and 12 <= count <= 19 and not ext and not international
                and _card_shaped(value, count, nearest in _CARD_WORDS)
                and len(set(digits)) > 1 and luhn_valid(digits))
        if card:
            return Entity("CREDIT_CARD", start, end, digits)
        if (self.phone and count <= 15 and nearest not in _AMOUNT_WORDS
                and self._phone_shaped(value, digits, international, phone_context)):
            return Entity("PHONE", start, span_end, self._phone_key(value, digits, ext))
        return None

    @staticmethod
    def _phone_shaped(value: str, digits: str, international: bool,
                      phone_context: bool) -> bool:
        if value.isdigit():
            return True  # recall first: a bare run of 7 to 15 digits is phone-shaped
        if ((value.count("-") + value.count(".") + value.count("/") >= 2
             and _DATE.fullmatch(value)) or (value.count(".") == 3 and _IPV4.fullmatch(value))
                or (len(digits) == 13 and _isbn(digits))):
            return False
        groups = value.translate(_TO_BLANK).split()  # split on every separator
        if sum(len(g) == 1 for g in groups) > 2:
            return False  # single digits in a row ("1 2 3 4 5 6 7") are no phone number
        grouped = len(groups) > 1 or not value.isdigit()
        if not grouped and not international:
            return True  # recall first: a bare run of 7 to 15 digits is phone-shaped
        if international or phone_context:
            return True
        if "." in value and all(ch.isdigit() or ch == "." for ch in value):
            if any(len(g) < 2 for g in groups):
                return False  # a version (1.12.0.1234)
        if len(groups) == 2 and "-" in value and len(groups[0]) == len(groups[1]) > 2:
            if int(groups[0]) < int(groups[1]):
                return False  # a range (1200-1450)
        if len(groups) >= 3 and len(groups[0]) <= 2 and groups[0][0] != "0" and all(
                len(g) == 3 for g in groups[1:]) and set(value) - set(digits) <= {".", ","}:
            return False  # thousands separators: 12.345.678, 12,345,678
        # Space-grouped (21 238 158) stays phone-shaped: without a unit, currency or count
        # word after it nothing clearly makes it a quantity, and many numbering plans group
        # their digits so.
        return True

    def _phone_key(self, value: str, digits: str, ext: str) -> str:
        value = value.lstrip("(")
        if value.startswith("+"):
            national_trunk = value.find("(0)")
            if national_trunk >= 0:
                head = value[:national_trunk].translate(_STRIP)
                digits = head + digits[len(head) + 1:]
            key = "+" + digits
        elif digits.startswith("00"):
            key = "+" + digits[2:]
        elif self.country_code == 1 and len(digits) == 11 and digits[0] == "1":
            key = "+" + digits
        elif digits[0] == "0":
            key = f"+{self.country_code}{digits[1:]}"
        else:
            key = f"+{self.country_code}{digits}"
        return f"{key}x{ext}" if ext else key


def _thousands(value: str) -> bool:
    """Whether digit groups read as one number with thousands separators: 1 234 567,
    100 000 000, 12.345.678."""
    groups = _GROUP_SPLIT.split(value)
    separators = set(_GROUP_SPLIT.findall(value))
    return (len(groups) >= 3 and len(separators) == 1 and 1 <= len(groups[0]) <= 3
            and groups[0][0] != "0" and all(len(g) == 3 for g in groups[1:]))


def _may_hide_a_card(text: str, segment: list[_Run]) -> bool:
    """Whether a phone-shaped run of several tokens holds a token of nine digits or more,
    or three groups of four: the shapes in which a card number can sit."""
    if len(segment) < 2:
        return False
    lengths = [len(text[t.start:t.end].translate(_STRIP)) for t in segment]
    return max(lengths) >= 9 or lengths.count(4) >= 3


def _glued_before(text: str, start: int) -> bool:
    """Whether the run starts inside a word or an identifier (POL-2024-001234, v1.2, x_12)."""
    before = text[start - 1:start] if start else ""
    if not before:
        return False
    if before.isalnum() or before == "_":
        return True
    return before in "-/." and start >= 2 and text[start - 2].isalnum()


def _card_shaped(value: str, count: int, context: bool) -> bool:
    if (value[0] == "0" and not context) or any(ch in value for ch in "./()+\u00a0"):
        return False
    if " " in value and "-" in value:
        return False  # mixed separators: a card followed by another number
    groups = value.replace("-", " ").split()
    if count >= 16 or len(groups) == 1:
        return True
    return len(groups[0]) == 4 and all(len(g) >= 3 for g in groups[:-1])


def _ssn(value: str, context: bool) -> str | None:
    match = _SSN.fullmatch(value)
    if match:
        area, group, serial = match.group(1), match.group(3), match.group(4)
    elif context and len(value) == 9 and value.isdigit():
        area, group, serial = value[:3], value[3:5], value[5:]
    else:
        return None
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return None
    return area + group + serial


def _isbn(digits: str) -> bool:
    if len(digits) == 13 and digits.startswith(("978", "979")):
        total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
        return total % 10 == 0
    return False
