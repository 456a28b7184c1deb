"""Regenerates tests/redaction/corpus.jsonl: ``python -m tests.redaction.build_corpus``.

The corpus is labelled by construction: sentences written for citewatch's domain (support
answers, policies, incident notes) with slots filled by fabricated values of known type and
span. Values are synthetic (documentation IP ranges, 555 numbers, test card ranges...). Each
line: {"text": ..., "entities": [{"type", "start", "end"}], "kind": "positive"|"negative"}.
Negatives are the tricky cases: order numbers failing Luhn, prices, durations, dates,
versions shaped like phone numbers or IPs, policy numbers, commit hashes, times.
"""

from __future__ import annotations

import ipaddress
import json
import random
import re
import string
from pathlib import Path
from typing import Any

import phonenumbers
from stdnum import iban, luhn

__all__ = ["build", "main"]

CORPUS = Path(__file__).with_name("corpus.jsonl")

FIRST = ["anna", "li.wei", "j.smith", "maria-jose", "omar", "k_tanaka", "sam+billing", "eve.o"]
DOMAINS = ["example.com", "mail.example.org", "corp.example.net", "example.co.uk", "ex.io"]


def email(rng: random.Random) -> str:
    name = rng.choice(FIRST)
    if rng.random() < 0.3:
        name = name.capitalize()
    return f"{name}{rng.randint(1, 99) if rng.random() < 0.4 else ''}@{rng.choice(DOMAINS)}"


def phone(rng: random.Random) -> str:
    while True:
        area = rng.choice(["415", "212", "646", "312", "617", "206", "303", "512"])
        exchange = rng.randint(200, 989)
        line = rng.randint(1000, 9999)
        style = rng.randrange(6)
        if style == 0:
            text = f"({area}) {exchange}-{line}"
        elif style == 1:
            text = f"{area}-{exchange}-{line}"
        elif style == 2:
            text = f"+1 {area} {exchange} {line}"
        elif style == 3:
            text = f"{area}.{exchange}.{line}"
        elif style == 4:
            text = rng.choice(["+44 20 7946 0", "+49 30 9018", "+33 1 42 68 5"])
            text += str(rng.randint(100, 999))
        else:
            text = f"+1-{area}-{exchange}-{line}"
        if phonenumbers.is_valid_number(phonenumbers.parse(text, "US")):
            return text


def card(rng: random.Random, *, valid: bool = True) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("37", 15), ("6011", 16)])
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    check = luhn.calc_check_digit(body)
    if not valid:
        check = str((int(check) + rng.randint(1, 9)) % 10)
    digits = body + check
    sep = rng.choice([" ", "-", ""])
    if length == 15:
        return sep.join([digits[:4], digits[4:10], digits[10:]])
    return sep.join(digits[i:i + 4] for i in range(0, 16, 4))


def make_iban(rng: random.Random) -> str:
    country, bban_len = rng.choice([("DE", 18), ("GB", 18), ("FR", 23), ("NL", 14)])
    if country == "GB":
        bban = "NWBK" + "".join(rng.choice(string.digits) for _ in range(14))
    elif country == "NL":
        bban = "ABNA" + "".join(rng.choice(string.digits) for _ in range(10))
    else:
        bban = "".join(rng.choice(string.digits) for _ in range(bban_len))
    check = iban.calc_check_digits(country + "00" + bban)
    compact = country + check + bban
    if rng.random() < 0.5:
        return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))
    return compact


def ssn(rng: random.Random) -> str:
    area = rng.choice([rng.randint(1, 665), rng.randint(667, 899)])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def ip(rng: random.Random) -> str:
    if rng.random() < 0.6:
        net = rng.choice(["192.0.2.", "198.51.100.", "203.0.113.", "10.12.", "172.16."])
        while net.count(".") < 3:
            net += f"{rng.randint(0, 255)}."
        return net + str(rng.randint(1, 254))
    return str(ipaddress.IPv6Address(0x20010DB8 << 96 | rng.getrandbits(64)))


def _token(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def secret(rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:
        return "sk-proj-" + _token(rng, 40)
    if kind == 1:
        return "AKIA" + _token(rng, 16, string.ascii_uppercase + string.digits)
    if kind == 2:
        return "ghp_" + _token(rng, 36)
    if kind == 3:
        return f"xoxb-{rng.randint(10**11, 10**12)}-{_token(rng, 24)}"
    if kind == 4:
        return ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiI" + _token(rng, 20)
                + "." + _token(rng, 43, string.ascii_letters + string.digits + "-_"))
    if kind == 5:
        return "sk-" + _token(rng, 48)
    return "glpat-" + _token(rng, 20)


GENERATORS = {"EMAIL": email, "PHONE": phone, "CREDIT_CARD": card, "IBAN": make_iban,
              "US_SSN": ssn, "IP_ADDRESS": ip, "SECRET": secret}

POSITIVE = [
    "Please email {EMAIL} if the refund has not arrived within 30 days.",
    "The customer ({EMAIL}) asked why the Pro plan costs $49 per month.",
    "Forwarded from {EMAIL}: my invoice shows 3 seats but we have 5.",
    "Reach our billing team on {PHONE} between 9:00 and 17:00 CET.",
    "Call me back at {PHONE}, my order is #88231.",
    "I tried {PHONE} twice and nobody answered.",
    "Customer phone: {PHONE}; prefers e-mail at {EMAIL}.",
    "My card {CREDIT_CARD} was charged twice for order 55120.",
    "Payment failed on card number {CREDIT_CARD} (expires 09/27).",
    "Refund to {CREDIT_CARD}, amount EUR 120.00.",
    "Please wire the 2,400 EUR to {IBAN} by Friday.",
    "Our IBAN is {IBAN}, reference INV-2024-0193.",
    "The SEPA transfer from {IBAN} bounced after 3 business days.",
    "My SSN is {US_SSN} and I need the 1099 form for 2023.",
    "Tax ID on file: {US_SSN}.",
    "Applicant social security number {US_SSN}, income $72,000.",
    "Requests from {IP_ADDRESS} exceeded 100 per minute.",
    "The login came from {IP_ADDRESS} at 03:14 UTC.",
    "Block {IP_ADDRESS} in the firewall until the audit finishes.",
    "The server at {IP_ADDRESS} went down twice this week.",
    "Use the API key {SECRET} for the staging project.",
    "Here is my token: {SECRET} please fix the 401 error.",
    "Set OPENAI_API_KEY={SECRET} in the .env file.",
    "The webhook sends Authorization: Bearer {SECRET} on every call.",
    "I pasted {SECRET} into the config, is that safe?",
    "Contact {EMAIL} or {PHONE} about card {CREDIT_CARD}.",
    "User {EMAIL} logged in from {IP_ADDRESS} with token {SECRET}.",
    "SSN {US_SSN}, account {IBAN}, phone {PHONE}.",
    "From: Support Bot <{EMAIL}>",
    "The health check on {IP_ADDRESS} port 8443 failed after 3 attempts.",
    'Config excerpt: {{"password": "{SECRET}", "retries": 3}}',
    "Is it okay that my payment card {CREDIT_CARD} appears in the receipt?",
    "Send the W-2 for {US_SSN} to {EMAIL}.",
    "Landline {PHONE} (office hours only, closed on 24 December).",
]

NEGATIVE = [
    "Refunds are available within 30 days when usage is below 100 requests.",
    "The Pro plan costs $1,299.99 per year or $129 per month.",
    "Order {BADCARD} could not be found in our system.",
    "Your order number is {BADCARD}; it ships in 3-5 business days.",
    "Tracking ID {BADCARD} shows the parcel in Leipzig.",
    "Upgrade to version 4.15.555.2671 to get the fix.",
    "Firmware 10.2.3.4 fixes the boot loop on model X200.",
    "Release v2.4.1 shipped on 2024-03-15 at 10:30:45 UTC.",
    "See section 3.2.1.4 of the policy for the exact wording.",
    "Policy number POL-2024-001234 covers water damage up to EUR 50,000.",
    "Claim 2024-000123-A was approved on 12/05/2024.",
    "The SLA guarantees 99.95% uptime and a 4-hour response time.",
    "We processed 1,234,567 requests in 24 hours with p99 latency of 350 ms.",
    "Password reset links expire after 15 minutes.",
    "The password must be at least 12 characters long.",
    "Rotate your API key every 90 days; the token limit is 4096 per request.",
    "The secret to fast refunds is filing within 14 days.",
    "Commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed the regression.",
    "The ratio is 3:2:1 across the three regions.",
    "Meeting moved to 14:30; dial-in details follow.",
    "Invoice INV-88213 totals 2,450.00 EUR including 19% VAT.",
    "Items 1001-1050 ship from warehouse 7.",
    "The error code was 0x80070005 after 3 retries.",
    "Python 3.11.7 and Node 20.10.0 are supported.",
    "Chapter 12 explains why 2024 revenue grew 18% over 2023.",
    "Deliveries take 2-3 weeks; 500 units ship per pallet.",
    "Your ticket 5551234 has been escalated to tier 2.",
    "ISBN 978-3-16-148410-0 is the second edition.",
    "Temperature ranged from -5 to 12 degrees.",
    "The UUID 123e4567-e89b-12d3-a456-426614174000 identifies the tenant.",
    "Version 1.2.3.4 of the agent reports 10.5.1 in its banner.",
    "Discount code SPRING2024 gives 20% off orders above $100.",
    "The batch contains 4111 records and 1111 duplicates.",
    "Reference DE-2024-7781 was assigned to the case.",
    "Use token-based auth; the session token expires in 3600 seconds.",
    "The job ran from 2024-01-01T00:00:00Z to 2024-01-02T06:30:00Z.",
]

NEGATIVE_COPIES = 4


def build(seed: int = 20261202) -> list[dict[str, Any]]:
    """The corpus lines, deterministic for a seed."""
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = []
    for _ in range(8):
        for template in POSITIVE:
            lines.append(_fill(template, rng, "positive"))
    for _ in range(NEGATIVE_COPIES):
        for template in NEGATIVE:
            lines.append(_fill(template, rng, "negative"))
    return lines


def _fill(template: str, rng: random.Random, kind: str) -> dict[str, Any]:
    text = ""
    entities: list[dict[str, Any]] = []
    cursor = 0
    for match in re.finditer(r"\{([A-Z_]+)\}", template):
        text += template[cursor:match.start()]
        slot = match.group(1)
        value = card(rng, valid=False) if slot == "BADCARD" else GENERATORS[slot](rng)
        if slot != "BADCARD":
            entities.append({"type": slot, "start": len(text), "end": len(text) + len(value)})
        text += value
        cursor = match.end()
    text += template[cursor:]
    return {"text": text, "entities": entities, "kind": kind}


def main() -> None:
    """Write corpus.jsonl beside this module."""
    with CORPUS.open("w", encoding="utf-8") as handle:
        for line in build():
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
