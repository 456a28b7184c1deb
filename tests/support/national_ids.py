"""Generators of the national identifiers with letters added to the first six: valid by
python-stdnum where it knows the format (Finnish HETU, Irish PPS, Chinese resident identity
number, Portuguese citizen card), by the published check where it does not (Singapore NRIC
and FIN, German pension insurance number, Taiwanese identification number)."""

from __future__ import annotations

import random
import string

from stdnum.cn import ric
from stdnum.fi import hetu
from stdnum.ie import pps
from stdnum.pt import cc

_CN_REGIONS = ["110105", "310104", "440305", "510107"]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _date(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(1, 28), rng.randint(1, 12), rng.randint(1930, 2015)


def finnish(rng: random.Random) -> str:
    while True:
        d, m, y = _date(rng)
        sign = "-" if y < 2000 else "A"
        head = f"{d:02d}{m:02d}{y % 100:02d}{sign}{rng.randint(2, 899):03d}"
        for check in "0123456789ABCDEFHJKLMNPRSTUVWXY":
            if check.isalpha() and hetu.is_valid(head + check):
                return head + check


def irish(rng: random.Random) -> str:
    while True:
        head = _digits(rng, 7)
        second = rng.choice(["", "", "W", "A", "H"])
        for check in string.ascii_uppercase[:23]:
            if pps.is_valid(head + check + second):
                return head + check + second


def chinese(rng: random.Random) -> str:
    while True:
        d, m, y = _date(rng)
        value = f"{rng.choice(_CN_REGIONS)}{y:04d}{m:02d}{d:02d}{_digits(rng, 3)}X"
        if ric.is_valid(value):
            return value


def portuguese(rng: random.Random) -> str:
    while True:
        head = f"{_digits(rng, 8)} {_digits(rng, 1)} {rng.choice('ABZ')}{rng.choice('ZYX')}"
        for check in string.digits:
            if cc.is_valid(head + check):
                return head + check


def singapore(rng: random.Random) -> str:
    prefix = rng.choice("STFG")
    digits = _digits(rng, 7)
    total = sum(int(c) * w for c, w in zip(digits, [2, 7, 6, 5, 4, 3, 2], strict=True))
    total += 4 if prefix in "TG" else 0
    table = "JZIHGFEDCBA" if prefix in "ST" else "XWUTRQPNMLK"
    return prefix + digits + table[total % 11]


def german(rng: random.Random) -> str:
    d, m, y = _date(rng)
    letter = rng.choice(string.ascii_uppercase)
    head = f"{rng.randint(10, 89):02d}{d:02d}{m:02d}{y % 100:02d}"
    serial = f"{rng.randint(0, 99):02d}"
    numbers = [int(c) for c in head] + [*divmod(ord(letter) - 64, 10)] + [int(c) for c in serial]
    products = [n * w for n, w in zip(numbers, [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1], strict=True)]
    check = sum(p // 10 + p % 10 for p in products) % 10
    if rng.random() < 0.5:
        return f"{head[:2]} {head[2:]} {letter} {serial}{check}"
    return f"{head}{letter}{serial}{check}"


_TW = dict(
    zip(
        string.ascii_uppercase,
        [
            10,
            11,
            12,
            13,
            14,
            15,
            16,
            17,
            34,
            18,
            19,
            20,
            21,
            22,
            35,
            23,
            24,
            25,
            26,
            27,
            28,
            29,
            32,
            30,
            31,
            33,
        ],
        strict=True,
    )
)


def taiwanese(rng: random.Random) -> str:
    letter = rng.choice(string.ascii_uppercase)
    body = rng.choice("12") + _digits(rng, 7)
    code = _TW[letter]
    total = code // 10 + (code % 10) * 9
    total += sum(int(c) * w for c, w in zip(body, range(8, 0, -1), strict=True))
    return letter + body + str((10 - total % 10) % 10)


GENERATORS = {
    "fi": finnish,
    "ie": irish,
    "cn": chinese,
    "pt": portuguese,
    "sg": singapore,
    "de": german,
    "tw": taiwanese,
}
