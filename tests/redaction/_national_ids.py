"""National identifiers that hold letters, for the generated corpus (build_corpus.py).

Each format as people write it: Italian codici fiscali (Faker's it_IT, some in lower case,
some with omocodia letters in place of digits, a few with a wrong check character), British
National Insurance numbers (valid prefixes and Faker's ``ZZ ... T`` placeholders, compact or
grouped), Spanish DNIs and NIEs (compact, with a dash or a space, the DNI also dotted),
Indian PANs and Mexican CURPs. ``lookalike`` makes the hard negatives: codes of things that
have a national identifier's shape or come close.
"""

from __future__ import annotations

import random
import string
from functools import cache

from faker import Faker

__all__ = ["cf_check", "dni_letter", "lookalike", "national_id"]

_ODD = [
    1,
    0,
    5,
    7,
    9,
    13,
    15,
    17,
    19,
    21,
    2,
    4,
    18,
    20,
    11,
    3,
    6,
    8,
    12,
    14,
    16,
    10,
    22,
    25,
    24,
    23,
]
_OMOCODIA = "LMNPQRSTUV"  # the letters that stand for 0-9
_DNI = "TRWAGMYFPDXBNJZSQVHLCKE"
# National Insurance prefixes: no D, F, I, Q, U, V; no O second; not BG, GB, KN, NK, NT, TN, ZZ
_NI_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
_NI_SECOND = "ABCEGHJKLMNPRSTWXYZ"


def _value(c: str) -> int:
    return int(c) if c.isdigit() else ord(c) - ord("A")


def cf_check(first15: str) -> str:
    """The check character of a codice fiscale's first 15 characters (upper case)."""
    total = sum(_ODD[_value(c)] if i % 2 == 0 else _value(c) for i, c in enumerate(first15))
    return chr(ord("A") + total % 26)


def dni_letter(number: int) -> str:
    """The check letter of a DNI number (an NIE's with X, Y, Z read as 0, 1, 2)."""
    return _DNI[number % 23]


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def _fake(rng: random.Random, locale: str) -> Faker:
    fake = _faker(locale)
    fake.seed_instance(rng.getrandbits(32))
    return fake


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def codice_fiscale(rng: random.Random) -> str:
    code = str(_fake(rng, "it_IT").ssn())
    roll = rng.random()
    if roll < 0.15:  # omocodia: digits turned into letters from the right, check recomputed
        chars = list(code[:15])
        for place in [14, 13, 12, 10, 9, 7, 6][: rng.randint(1, 3)]:
            chars[place] = _OMOCODIA[int(chars[place])]
        code = "".join(chars) + cf_check("".join(chars))
    elif roll < 0.22:  # a wrong check character: still someone's code, mistyped
        code = code[:15] + rng.choice(string.ascii_uppercase.replace(code[15], ""))
    return code.lower() if rng.random() < 0.15 else code


def national_insurance(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return str(_fake(rng, "en_GB").ssn())
    prefix = rng.choice(_NI_FIRST) + rng.choice(_NI_SECOND)
    while prefix in ("BG", "GB", "KN", "NK", "NT", "TN"):
        prefix = rng.choice(_NI_FIRST) + rng.choice(_NI_SECOND)
    d, suffix = _digits(rng, 6), rng.choice("ABCD")
    value = rng.choice(
        [
            f"{prefix}{d}{suffix}",
            f"{prefix} {d[:2]} {d[2:4]} {d[4:]} {suffix}",
            f"{prefix} {d} {suffix}",
            f"{prefix}-{d[:2]}-{d[2:4]}-{d[4:]}-{suffix}",
        ]
    )
    return value.lower() if " " not in value and "-" not in value and rng.random() < 0.2 else value


def dni_or_nie(rng: random.Random) -> str:
    if rng.random() < 0.6:
        number = rng.randint(1, 99_999_999)
        d, letter = f"{number:08d}", dni_letter(number)
        return rng.choice(
            [
                f"{d}{letter}",
                f"{d}-{letter}",
                f"{d} {letter}",
                f"{d[:2]}.{d[2:5]}.{d[5:]}-{letter}",
                f"{d}{letter.lower()}",
            ]
        )
    first = rng.choice("XYZ")
    number = rng.randint(0, 9_999_999)
    letter = dni_letter(int("XYZ".index(first) * 10_000_000 + number))
    d = f"{number:07d}"
    return rng.choice([f"{first}{d}{letter}", f"{first}-{d}-{letter}", f"{first}{d}-{letter}"])


def pan(rng: random.Random) -> str:
    letters = lambda n: "".join(rng.choice(string.ascii_uppercase) for _ in range(n))  # noqa: E731
    return f"{letters(3)}{rng.choice('PCHFATBLJG')}{letters(1)}{_digits(rng, 4)}{letters(1)}"


def curp(rng: random.Random) -> str:
    return str(_fake(rng, "es_MX").curp())


def national_id(rng: random.Random) -> str:
    """A national identifier with letters, of a random format."""
    return rng.choices(
        [codice_fiscale, national_insurance, dni_or_nie, pan, curp], weights=[3, 3, 3, 1, 1]
    )[0](rng)


def lookalike(rng: random.Random) -> str:
    """A code of a thing that looks like a national identifier, with the words around it."""
    up = string.ascii_uppercase
    letters = lambda n: "".join(rng.choice(up) for _ in range(n))  # noqa: E731
    number = rng.randint(10_000_000, 99_999_999)
    wrong = rng.choice(_DNI.replace(dni_letter(number), ""))
    cf = f"{letters(6)}{_digits(rng, 2)}A{_digits(rng, 2)}{letters(1)}{_digits(rng, 3)}"
    cf_wrong = rng.choice(up.replace(cf_check(cf), ""))
    isbn = f"0-{_digits(rng, 3)}-{_digits(rng, 5)}-X"
    vin = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(17))
    return rng.choice(
        [
            f"part no. {letters(2)}{_digits(rng, 6)}{rng.choice('ABCD')}",
            f"SKU {letters(2)} {_digits(rng, 2)} {_digits(rng, 2)} {_digits(rng, 2)} {letters(1)}",
            f"order {number}{wrong}",
            f"serial {number}-{wrong}",
            f"model {cf}{cf_wrong}",
            f"ISBN {isbn}",
            f"VIN {vin}",
            f"flight {letters(2)}{rng.randint(10, 9999)}",
            f"postcode {rng.choice(['SW1A 1AA', 'EC1A 1BB', 'M1 1AE', 'B33 8TH', 'CR2 6XH'])}",
            f"the {letters(3)} {rng.randint(2, 9)}{_digits(rng, 3)} model",
            f"firmware {letters(2)}{_digits(rng, 2)}.{_digits(rng, 2)}.{_digits(rng, 3)}",
            f"tracking {letters(2)}{_digits(rng, 9)}{letters(2)}",
        ]
    )
