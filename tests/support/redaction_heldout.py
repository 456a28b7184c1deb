"""A held-out split of the forms the third round of redaction work added, for
bench/redaction_rounds.py: values generated from seeds no test uses, in the contexts and
written forms of each class, and the must-stay corpus's held-out sentences.

A case is redacted when none of its values is left in the redacted text as written; a
must-stay sentence is kept when the redacted text is the sentence.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from pathlib import Path

import phonenumbers

from tests.support.national_ids import GENERATORS as NATIONAL

__all__ = ["CLASSES", "MUST_STAY", "cases", "must_stay"]

MUST_STAY = Path(__file__).parents[1] / "fixtures" / "redaction" / "must_stay.jsonl"
THING_WORDS = ["transaction", "policy", "ref", "claim", "case", "ticket", "order", "booking"]
KEYS = ["api_token", "password", "client_secret", "DB_PASSWORD", "authToken", "pwd"]
OPERATORS = ["=", ":", "=>", "?=", ":=", "::=", ":::=", ".=", "<-"]
TERRITORIES = ["GF", "PF", "TF", "GP", "MQ", "YT", "NC", "RE", "BL", "MF", "PM", "WF"]
TRUNK_REGIONS = ["GB", "DE", "FR", "AU", "NL", "IT", "BE", "AT", "CH", "IE", "NZ"]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _card(rng: random.Random) -> str:
    prefix = rng.choice(["4", "51", "52", "53", "54", "55", "6011", "35"])
    body = prefix + _digits(rng, 15 - len(prefix))
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    digits = body + str((10 - total % 10) % 10)
    sep = rng.choice([" ", "-", "", "."])
    return sep.join(digits[i : i + 4] for i in range(0, 16, 4))


def _ssn(rng: random.Random) -> str:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def _phone(rng: random.Random, regions: list[str], kind: int) -> str:
    while True:
        region = rng.choice(regions)
        number = phonenumbers.example_number_for_type(
            region, rng.choice([phonenumbers.PhoneNumberType.MOBILE, None])
        )
        if number is not None:
            return phonenumbers.format_number(number, kind)


def _iban(country: str, bban: str) -> str:
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


def _thing_card(rng: random.Random) -> tuple[str, list[str]]:
    v = _card(rng)
    return f"Re {rng.choice(THING_WORDS)} {v}, thanks.", [v]


def _thing_ssn(rng: random.Random) -> tuple[str, list[str]]:
    v = _ssn(rng)
    return f"Re {rng.choice(THING_WORDS)} {v}, thanks.", [v]


def _thing_phone(rng: random.Random) -> tuple[str, list[str]]:
    regions = sorted(phonenumbers.SUPPORTED_REGIONS)
    v = _phone(rng, regions, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    return f"Re {rng.choice(THING_WORDS)} {v}, thanks.", [v]


def _assignment(rng: random.Random) -> tuple[str, list[str]]:
    value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(18))
    key, op = rng.choice(KEYS), rng.choice(OPERATORS)
    kq, vq, sp = rng.choice(["", '"', "'"]), rng.choice(["", '"', "'"]), rng.choice(["", " "])
    form = rng.choice(["{kq}{k}{kq}{sp}{op}{sp}{vq}{v}{vq}", "$config[{kq}{k}{kq}] = {vq}{v}{vq};"])
    text = form.format(kq=kq, k=key, sp=sp, op=op, vq=vq, v=value)
    return text, [value]


def _keyword_line(rng: random.Random) -> tuple[str, list[str]]:
    value = "".join(rng.choice(string.ascii_letters + string.digits + "!#%") for _ in range(12))
    if not any(c.isdigit() for c in value):
        value += "7"
    form = rng.choice(
        ["pw: {v}", "Passwort: {v}", "Kennwort = {v}", "the password is {v}", "my pw was {v}."]
    )
    return form.format(v=value), [value]


def _national(rng: random.Random) -> tuple[str, list[str]]:
    v = NATIONAL[rng.choice(sorted(NATIONAL))](rng)
    return f"{rng.choice(['ID', 'Number:', 'order', 'my id is'])} {v}, thanks.", [v]


def _ipv6_v4(rng: random.Random) -> tuple[str, list[str]]:
    v4 = ".".join(str(rng.randint(1, 254)) for _ in range(4))
    hextets = [f"{rng.randint(0, 0xFFFF):x}" for _ in range(6)]
    v = rng.choice([":".join(hextets), "0:0:0:0:0:ffff", "0000:0000:0000:0000:0000:FFFF"])
    return f"client {v}:{v4} connected", [f"{v}:{v4}", v4]


def _glued(rng: random.Random) -> tuple[str, list[str]]:
    national = _phone(rng, TRUNK_REGIONS, phonenumbers.PhoneNumberFormat.NATIONAL)
    v = "-".join(national.replace("(", "").replace(")", "").split())
    word = rng.choice(["cust", "user", "acct", "contact", "caller"])
    return f"logged as {word}-{v} today", [v]


def _iban_gaps(rng: random.Random) -> tuple[str, list[str]]:
    country, bban = rng.choice(
        [("DE", _digits(rng, 18)), ("FR", _digits(rng, 23)), ("NL", "ABNA" + _digits(rng, 10))]
    )
    value = _iban(country, bban)
    gap = rng.choice(["  ", "\t", "   "])
    written = gap.join(value[i : i + 4] for i in range(0, len(value), 4))
    return f"Pay to {written} today.", [written, value[4:8] + gap + value[8:12]]


def _iban_territory(rng: random.Random) -> tuple[str, list[str]]:
    value = _iban(rng.choice(TERRITORIES), _digits(rng, 23))
    written = rng.choice([value, " ".join(value[i : i + 4] for i in range(0, len(value), 4))])
    return f"Pay to {written} today.", [written]


CLASSES: dict[str, Callable[[random.Random], tuple[str, list[str]]]] = {
    "thing word + card": _thing_card,
    "thing word + SSN": _thing_ssn,
    "thing word + phone": _thing_phone,
    "secret assignment forms": _assignment,
    "keyword lines and prose passwords": _keyword_line,
    "national IDs with letters": _national,
    "IPv6 embedding IPv4, written out": _ipv6_v4,
    "hyphen-glued phone": _glued,
    "IBAN with wide gaps": _iban_gaps,
    "IBAN of a territory code": _iban_territory,
}


def cases(per_class: int = 200, seed: int = 390_001) -> dict[str, list[tuple[str, list[str]]]]:
    """``per_class`` cases of each class, from ``seed`` (no test uses it)."""
    rng = random.Random(seed)
    return {name: [make(rng) for _ in range(per_class)] for name, make in CLASSES.items()}


def must_stay(split: str = "heldout") -> list[str]:
    """The must-stay corpus's sentences of ``split``."""
    lines = [json.loads(line) for line in MUST_STAY.read_text(encoding="utf-8").splitlines()]
    return [line["text"] for line in lines if line["split"] == split]
