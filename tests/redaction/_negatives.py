"""Hand-written hard negatives: numbers and words that carry evidence and must stay.

Templates with slots for values generated in many formats (dates, times, order and tracking
numbers, ISBNs, coordinates, prices, versions, dosages, durations, counts, policy and article
numbers, percentages, ranges, measurements, hashes, codes of things shaped like national
identifiers: part, serial and model numbers, ISBNs ending in X, VINs, flight numbers,
postcodes) and fixed sentences that use the key words of secrets and the words "at" and
"dot" in prose.
"""

from __future__ import annotations

import random
import re
import string

from tests.redaction._national_ids import lookalike

__all__ = ["NEGATIVE_TEMPLATES", "fill_negative", "negative_phrase"]


def _d(rng: random.Random, n: int) -> str:
    return str(rng.randint(1, 9)) + "".join(rng.choice(string.digits) for _ in range(n - 1))


def _date(rng: random.Random) -> str:
    y, m, d = rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice(
        [
            f"{y}-{m:02d}-{d:02d}",
            f"{d:02d}.{m:02d}.{y}",
            f"{m:02d}/{d:02d}/{y}",
            f"{d}/{m}/{y}",
            f"{y}/{m:02d}/{d:02d}",
            f"{d:02d}-{m:02d}-{y}",
            f"{y}-{m:02d}-{d:02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
            f"{d:02d}.{m:02d}.{y} {rng.randint(0, 23)}:{rng.randint(0, 59):02d}",
        ]
    )


def _time(rng: random.Random) -> str:
    h, m, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    return rng.choice(
        [
            f"{h:02d}:{m:02d}",
            f"{h:02d}:{m:02d}:{s:02d}",
            f"{h}h{m:02d}",
            f"{h:02d}:{m:02d}:{s:02d}.{rng.randint(100, 999)}",
        ]
    )


def _order(rng: random.Random) -> str:
    return rng.choice(
        [
            _d(rng, rng.randint(7, 12)),
            f"{_d(rng, 3)}-{_d(rng, 7)}-{_d(rng, 7)}",
            f"{_d(rng, 4)} {_d(rng, 4)} {_d(rng, 4)}",
            f"{_d(rng, 4)}-{_d(rng, 6)}",
        ]
    )


def _tracking(rng: random.Random) -> str:
    return rng.choice(
        [
            f"1Z{_d(rng, 3)}AA{_d(rng, 10)}",
            f"9400 {_d(rng, 4)} {_d(rng, 4)} {_d(rng, 4)} {_d(rng, 4)} {_d(rng, 2)}",
            _d(rng, 12),
            f"JJD{_d(rng, 18)}",
            f"{_d(rng, 4)} {_d(rng, 4)} {_d(rng, 4)}",
        ]
    )


def _isbn(rng: random.Random) -> str:
    body = "978" + "".join(rng.choice(string.digits) for _ in range(9))
    check = (10 - sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body)) % 10) % 10
    full = body + str(check)
    return rng.choice(
        [
            full,
            f"{full[:3]}-{full[3]}-{full[4:7]}-{full[7:12]}-{full[12]}",
            f"{full[:3]}-{full[3:5]}-{full[5:9]}-{full[9:12]}-{full[12]}",
        ]
    )


def _coord(rng: random.Random) -> str:
    lat, lon = rng.uniform(-80, 80), rng.uniform(-179, 179)
    return rng.choice(
        [
            f"{lat:.6f}, {lon:.6f}",
            f"{lat:.6f} {lon:.6f}",
            f"{lat:.4f},{lon:.4f}",
            f"({lat:.5f}, {lon:.5f})",
        ]
    )


def _price(rng: random.Random) -> str:
    n = rng.randint(1000, 9_999_999)
    return rng.choice(
        [
            f"${n:,}.{rng.randint(0, 99):02d}",
            f"€ {n:,}".replace(",", "."),
            f"{n:,} EUR".replace(",", " "),
            f"USD {n}",
            f"£{n:,}",
            f"{n:,}.00 CHF",
            f"¥{n}",
            f"{n} €".replace(",", " "),
            f"{n:,} dollars".replace(",", " "),
        ]
    )


def _version(rng: random.Random) -> str:
    return rng.choice(
        [
            f"v{rng.randint(1, 20)}.{rng.randint(0, 99)}.{rng.randint(0, 9999)}",
            f"version {rng.randint(1, 12)}.{rng.randint(0, 9)}.{_d(rng, 5)}.{_d(rng, 4)}",
            f"build {rng.randint(1, 9)}.{rng.randint(0, 99)}.{_d(rng, 4)}.{rng.randint(1, 999)}",
            f"release {rng.randint(1, 20)}.{rng.randint(0, 20)}.{rng.randint(0, 20)}",
        ]
    )


def _dosage(rng: random.Random) -> str:
    return rng.choice(
        [
            f"{rng.choice([250, 500, 1000])} mg",
            f"2 x {rng.choice([250, 500])} mg",
            f"{rng.randint(1, 99) * 100000:,} IU",
            f"{rng.randint(1, 50) * 100000} IU",
            f"{rng.randint(1, 20) * 100000} units",
        ]
    )


def _duration(rng: random.Random) -> str:
    return rng.choice(
        [
            f"{rng.randint(1, 90)} days",
            f"{_d(rng, 7)} seconds",
            f"{_d(rng, 7)} ms",
            f"{rng.randint(1, 72)} hours",
        ]
    )


def _count(rng: random.Random) -> str:
    n = rng.randint(1_000_000, 99_999_999)
    return rng.choice(
        [
            f"{n:,} requests",
            f"{n:,} users".replace(",", " "),
            f"{n} rows",
            f"{n:,} customers".replace(",", "."),
            f"{n} tokens",
            f"{n} downloads",
        ]
    )


def _policy(rng: random.Random) -> str:
    year = rng.randint(2015, 2030)
    return rng.choice(
        [
            f"POL-{year}-{_d(rng, 6)}",
            f"policy no. {_d(rng, 8)}",
            f"policy {_d(rng, 3)}-{_d(rng, 7)}",
            f"claim {year}-{_d(rng, 6)}-A",
        ]
    )


def _article(rng: random.Random) -> str:
    n = rng.randint(1, 99)
    return rng.choice(
        [
            f"Article {n}({rng.randint(1, 9)})",
            f"§ {rng.randint(1, 999)}g BGB",
            f"section {rng.randint(1000, 1999)}.{_d(rng, 3)}",
            f"Art. {n} GDPR",
            f"clause {rng.randint(1, 30)}.{rng.randint(1, 9)}.{rng.randint(1, 9)}",
        ]
    )


def _percent(rng: random.Random) -> str:
    return rng.choice([f"{rng.uniform(0, 100):.2f}%", f"{rng.randint(1, 99)} %", f"{_d(rng, 7)}%"])


def _range(rng: random.Random) -> str:
    a = rng.randint(1000, 4999)
    return rng.choice(
        [
            f"{a}-{a + rng.randint(1, 4000)}",
            f"{a} - {a + rng.randint(1, 4000)}",
            f"{rng.randint(1990, 2010)}-{rng.randint(2011, 2030)}",
        ]
    )


def _measure(rng: random.Random) -> str:
    width, height = rng.choice([1920, 2560, 3840]), rng.choice([1080, 1440, 2160])
    return rng.choice(
        [
            f"{width} x {height} pixels",
            f"{_d(rng, 7)} km",
            f"{_d(rng, 8)} bytes",
            f"{_d(rng, 7)} kg",
            f"{_d(rng, 4)} {_d(rng, 3)} m²",
        ]
    )


def _hash(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([7, 12, 40])))


def _uuid(rng: random.Random) -> str:
    h = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_SLOTS = {
    "DATE": _date,
    "TIME": _time,
    "ORDER": _order,
    "TRACKING": _tracking,
    "ISBN": _isbn,
    "COORD": _coord,
    "PRICE": _price,
    "VERSION": _version,
    "DOSAGE": _dosage,
    "DURATION": _duration,
    "COUNT": _count,
    "POLICY": _policy,
    "ARTICLE": _article,
    "PERCENT": _percent,
    "RANGE": _range,
    "MEASURE": _measure,
    "HASH": _hash,
    "UUID": _uuid,
    "LOOKALIKE": lookalike,
}

NEGATIVE_TEMPLATES = [
    "Refunds are available within {DURATION} when usage is below 100 requests.",
    "The Pro plan costs {PRICE} per year.",
    "Your order number is {ORDER}; it ships in 3-5 business days.",
    "Order {ORDER} could not be found in our system.",
    "Tracking number {TRACKING} shows the parcel in Leipzig.",
    "Your parcel {TRACKING} left the depot on {DATE}.",
    "Upgrade to {VERSION} to get the fix.",
    "Release {VERSION} shipped on {DATE} at {TIME} UTC.",
    "See {ARTICLE} for the exact wording of the obligation.",
    "The policy {POLICY} covers water damage up to {PRICE}.",
    "The SLA guarantees {PERCENT} uptime and a 4-hour response time.",
    "We processed {COUNT} in 24 hours with p99 latency of 350 ms.",
    "Take {DOSAGE} twice daily for {DURATION}.",
    "The recommended dose is {DOSAGE} per day, not more than {DOSAGE}.",
    "ISBN {ISBN} is the second edition.",
    "The warehouse is at {COORD}.",
    "Coordinates {COORD} ({MEASURE} from the coast).",
    "Pages {RANGE} cover the appendix.",
    "Revenue grew {PERCENT} between {DATE} and {DATE}.",
    "Commit {HASH} fixed the regression in {VERSION}.",
    "The tenant {UUID} was migrated on {DATE}.",
    "Meeting moved to {TIME}; the invoice totals {PRICE}.",
    "The screen is {MEASURE}, the file is {MEASURE}.",
    "Backups older than {DURATION} are deleted; {COUNT} were kept.",
    "Between {DATE} and {DATE} we saw {COUNT}.",
    "Policy number {POLICY} was renewed for {PRICE}.",
    "The batch contains 4111 records and 1111 duplicates.",
    "Password reset links expire after 15 minutes.",
    "The password must be at least 12 characters long.",
    "Rotate your API key every 90 days; the token limit is 4096 per request.",
    "The secret to fast refunds is filing within 14 days.",
    "Use token-based auth; the session token expires in 3600 seconds.",
    "Look at example.com for the pricing page, or meet us at the office.",
    "Key: the refund window is 30 days. Token: none needed.",
    "We will be at the conference on {DATE}; see the dot plot in the appendix.",
    "The ratio is 3:2:1 across the three regions.",
    "The error code was 0x80070005 after 3 retries.",
    "Python 3.11.7 and Node 20.10.0 are supported.",
    "Temperature ranged from -5 to 12 degrees on {DATE}.",
    "Discount code SPRING2024 gives 20% off orders above $100.",
    "Items {RANGE} ship from warehouse 7.",
    "The job ran from {DATE} to {DATE}.",
    "Your ticket 5551234 has been escalated to tier 2.",
    "Please check {LOOKALIKE} before it ships on {DATE}.",
    "We replaced {LOOKALIKE} under warranty; {LOOKALIKE} is back in stock.",
    "Noted for the audit: {LOOKALIKE}.",
]


def fill_negative(template: str, rng: random.Random) -> str:
    """The template with each slot filled by a generated value."""
    return re.sub(r"\{([A-Z]+)\}", lambda m: _SLOTS[m.group(1)](rng), template)


def negative_phrase(rng: random.Random) -> str:
    """One hard-negative sentence, to mix into a positive text unlabelled."""
    return fill_negative(rng.choice(NEGATIVE_TEMPLATES), rng)
