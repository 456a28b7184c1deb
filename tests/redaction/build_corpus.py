"""The labelled redaction corpus, generated from a seed: ``build(split)``.

Labelled by construction: texts in varied styles (support chat, e-mail signatures, tickets,
JSON and YAML snippets, .env files, CSV rows, log lines, prose in several languages) with
slots filled by values of known type and span. Values come from two sources:

- Faker, in dozens of locales: phone numbers as each locale writes them, e-mail addresses,
  card numbers of every network Faker knows (Luhn-valid, 12 to 19 digits), IBANs, US SSNs
  and IP addresses, codici fiscali, National Insurance numbers and CURPs;
- generators written here: phone numbers from phonenumbers' example numbers for many
  regions in national, international and E.164 forms with varied separators, numbers that
  look like phones but are not valid ones (+1-919-182-0193, 555-201-7731x204), lower-case
  and grouped IBANs, obfuscated e-mail addresses, and secrets (keyed assignments in every
  common syntax, provider-prefixed keys, JWTs, PEM blocks, URL passwords, hex tokens after a
  key word), national identifiers with letters in their written forms (_national_ids.py).
  Only the value of a keyed assignment is labelled, never its key.

Hard negatives are written by hand (tests/redaction/_negatives.py): dates, times, order and
tracking numbers, ISBNs, coordinates, prices, versions, dosages, durations, counts, policy
and article numbers, percentages, ranges, measurements, codes of things shaped like national
identifiers; they also appear, unlabelled, inside positive texts.

Two splits: ``dev`` (the rules were tuned on it) and ``heldout`` (another seed, only
measured). ``python -m tests.redaction.build_corpus [split]`` prints a sample.
"""

from __future__ import annotations

import json
import random
import re
import string
import sys
from functools import cache
from typing import Any

import phonenumbers
from faker import Faker
from stdnum import iban as stdnum_iban

from tests.redaction._national_ids import national_id
from tests.redaction._negatives import NEGATIVE_TEMPLATES, fill_negative, negative_phrase

__all__ = ["GENERATORS", "SPLITS", "build"]

SPLITS = {"dev": 20261203, "heldout": 55501}
SIZE = 2400  # texts per split; about one in five is a hard negative

LOCALES = (
    "en_US en_GB en_AU en_CA en_IN en_IE en_NZ de_DE de_AT de_CH fr_FR fr_CH es_ES es_MX"
    " es_AR es_CO es_CL it_IT nl_NL nl_BE pt_PT pt_BR pl_PL cs_CZ sk_SK hu_HU ro_RO bg_BG"
    " el_GR da_DK sv_SE no_NO fi_FI lv_LV lt_LT hr_HR sl_SI tr_TR ru_RU uk_UA ja_JP zh_CN"
    " zh_TW ko_KR id_ID th_TH vi_VN he_IL fa_IR ar_AE hi_IN az_AZ ka_GE hy_AM"
).split()
REGIONS = (
    "US CA GB IE AU NZ IN ZA NG KE DE AT CH FR BE NL LU ES PT IT PL CZ SK HU RO BG GR DK SE"
    " NO FI EE LV LT HR SI TR RU UA JP CN TW KR ID TH VN IL IR AE SA EG MA BR MX AR CO CL PE"
    " SG MY PH HK"
).split()
CARD_TYPES = (
    "amex",
    "diners",
    "discover",
    "jcb15",
    "jcb16",
    "maestro",
    "mastercard",
    "visa13",
    "visa16",
    "visa19",
)


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def _fake(rng: random.Random, locale: str | None = None) -> Faker:
    fake = _faker(locale or rng.choice(LOCALES))
    fake.seed_instance(rng.getrandbits(32))
    return fake


def _digits(value: str) -> int:
    return sum(ch.isdigit() for ch in value)


def email(rng: random.Random) -> str:
    """An e-mail address of a random locale, sometimes obfuscated or capitalised."""
    fake = _fake(rng)
    address = rng.choice([fake.email, fake.free_email, fake.company_email])()
    if not address.isascii():
        address = _fake(rng, "en_US").email()
    roll = rng.random()
    if roll < 0.06:
        local, domain = address.split("@")
        return f"{local} at {domain.replace('.', ' dot ')}"
    if roll < 0.10:
        local, domain = address.split("@")
        return f"{local} [at] {domain.replace('.', ' [dot] ')}"
    if roll < 0.13:
        local, domain = address.split("@")
        return f"{local}(at){domain}"
    if roll < 0.2:
        return address.capitalize() if rng.random() < 0.5 else address.upper()
    return address


def _example_phone(rng: random.Random) -> str:
    region = rng.choice(REGIONS)
    kind = rng.choice(
        [phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE]
    )
    number = phonenumbers.example_number_for_type(region, kind)
    if number is None:
        number = phonenumbers.example_number(region)
    assert number is not None
    # Vary the subscriber digits: a new number of the same shape.
    national = str(number.national_number)
    keep = max(2, len(national) - 4)
    number.national_number = int(
        national[:keep] + "".join(rng.choice(string.digits) for _ in range(len(national) - keep))
    )
    style = rng.choice(
        [
            phonenumbers.PhoneNumberFormat.INTERNATIONAL,
            phonenumbers.PhoneNumberFormat.NATIONAL,
            phonenumbers.PhoneNumberFormat.E164,
        ]
    )
    text = phonenumbers.format_number(number, style)
    if style != phonenumbers.PhoneNumberFormat.E164 and rng.random() < 0.3:
        text = text.replace(" ", rng.choice([".", "-"]))
    if style == phonenumbers.PhoneNumberFormat.INTERNATIONAL and rng.random() < 0.2:
        text = "00" + text[1:]
    return text


def _handwritten_phone(rng: random.Random) -> str:
    """Shapes that are phone numbers to a reader, valid in phonenumbers' metadata or not."""
    d = lambda n: "".join(rng.choice(string.digits) for _ in range(n))  # noqa: E731
    shapes = [
        lambda: f"+1-{rng.randint(200, 989)}-{rng.randint(100, 999)}-{d(4)}",
        lambda: f"555-{rng.randint(100, 999)}-{d(4)}x{rng.randint(10, 9999)}",
        lambda: f"({rng.randint(200, 989)}) {rng.randint(200, 989)}-{d(4)} ext. {d(3)}",
        lambda: f"+44 (0)20 {d(4)} {d(4)}",
        lambda: f"+44 7700 {d(6)}",
        lambda: f"(0{rng.randint(2, 9)}) {d(4)} {d(4)}",
        lambda: f"0049 30 {d(6)}",
        lambda: f"0{rng.randint(1, 7)} {d(2)} {d(2)} {d(2)} {d(2)}",
        lambda: f"0{rng.randint(1, 7)}.{d(2)}.{d(2)}.{d(2)}.{d(2)}",
        lambda: f"030/{d(6)}",
        lambda: f"+49 (0) {rng.randint(30, 89)} {d(7)}",
        lambda: f"+{rng.randint(20, 99)} {d(3)} {d(3)} {d(3)}",
        lambda: f"{rng.randint(200, 989)}.{rng.randint(200, 989)}.{d(4)}",
        lambda: f"+1 ({rng.randint(200, 989)}) {d(3)}-{d(4)}",
        lambda: f"{rng.randint(200, 989)} {d(3)} {d(4)}",
    ]
    return rng.choice(shapes)()


def phone(rng: random.Random) -> str:
    """A phone number: a Faker locale's, an example number of a region, or a shape of ours."""
    while True:
        roll = rng.random()
        if roll < 0.45:
            try:
                value = _fake(rng).phone_number()
            except AttributeError:  # a locale without a phone provider
                continue
        elif roll < 0.75:
            value = _example_phone(rng)
        else:
            value = _handwritten_phone(rng)
        body = re.split(r"\s*(?:x|ext\.?)\s*\d+$", value)[0]
        # Four dotted groups of up to three digits read as an IPv4 address to anyone, and
        # 255.76177 as a decimal number.
        if 7 <= _digits(body) <= 15 and not re.fullmatch(
            r"\d{1,3}(?:\.\d{1,3}){3}|\d{1,3}\.\d{4,}", body
        ):
            return value


def card(rng: random.Random) -> str:
    """A Luhn-valid card number of any network, bare or grouped."""
    digits = "0"
    while digits.startswith("0"):  # Faker's Maestro list has 0604, which no issuer uses
        digits = _fake(rng, "en_US").credit_card_number(rng.choice(CARD_TYPES))
    style = rng.randrange(4)
    if style == 0:
        return str(digits)
    sep = " " if style in (1, 3) else "-"
    if len(digits) == 15 and style == 3:
        return sep.join([digits[:4], digits[4:10], digits[10:]])
    return sep.join(digits[i : i + 4] for i in range(0, len(digits), 4))


def make_iban(rng: random.Random) -> str:
    """An IBAN of a random locale: compact, grouped by four, sometimes in lower case."""
    while True:
        try:
            value = _fake(rng).iban()
        except AttributeError:
            continue
        if stdnum_iban.is_valid(value) or value[:2] == "GB":
            break
    if rng.random() < 0.45:
        value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    if rng.random() < 0.15:
        value = value.lower()
    return value


def ssn(rng: random.Random) -> str:
    """A US social security number of an issuable area (Faker's en_US)."""
    return str(_fake(rng, "en_US").ssn())


def ip(rng: random.Random) -> str:
    """An IPv4 (public or private) or IPv6 address."""
    fake = _fake(rng, "en_US")
    return str(rng.choice([fake.ipv4_public, fake.ipv4_private, fake.ipv6])())


def _token(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def provider_key(rng: random.Random) -> str:
    """A key in a provider's own format."""
    upper = string.ascii_uppercase + string.digits
    hexd = "0123456789abcdef"
    return rng.choice(
        [
            lambda: "sk-proj-" + _token(rng, 48),
            lambda: "sk-ant-api03-" + _token(rng, 60, string.ascii_letters + string.digits + "_-"),
            lambda: "sk-" + _token(rng, 48),
            lambda: "AKIA" + _token(rng, 16, upper),
            lambda: "ghp_" + _token(rng, 36),
            lambda: "github_pat_" + _token(rng, 82, string.ascii_letters + string.digits + "_"),
            lambda: "glpat-" + _token(rng, 20),
            lambda: f"xoxb-{rng.randint(10**11, 10**12)}-{_token(rng, 24)}",
            lambda: "sk_live_" + _token(rng, 24),
            lambda: "rk_test_" + _token(rng, 24),
            lambda: "AIza" + _token(rng, 35, string.ascii_letters + string.digits + "_-"),
            lambda: "hf_" + _token(rng, 34),
            lambda: "npm_" + _token(rng, 36),
            lambda: "SG." + _token(rng, 22) + "." + _token(rng, 43),
            lambda: "AC" + _token(rng, 32, hexd),
            lambda: "gsk_" + _token(rng, 52),
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI"
                + _token(rng, 20)
                + "."
                + _token(rng, 43, string.ascii_letters + string.digits + "-_")
            ),
        ]
    )()


def _assignment_value(rng: random.Random) -> str:
    return rng.choice(
        [
            lambda: _token(rng, 40, string.ascii_letters + string.digits + "/+"),
            lambda: _token(rng, 40, "0123456789abcdef"),
            lambda: _token(rng, rng.randint(8, 14), string.ascii_letters + string.digits + "!#%&*"),
            lambda: provider_key(rng),
            lambda: _token(rng, 32, string.ascii_letters + string.digits),
        ]
    )()


_KEYS = [
    "aws_secret_access_key",
    "AWS_SECRET_ACCESS_KEY",
    "api_key",
    "API_KEY",
    "apiKey",
    "client_secret",
    "clientSecret",
    "DB_PASSWORD",
    "password",
    "db.password",
    "auth_token",
    "access_token",
    "refresh_token",
    "SLACK_BOT_TOKEN",
    "x-api-key",
    "private_key_id",
    "secret",
    "STRIPE_SECRET_KEY",
    "passphrase",
    "GITHUB_TOKEN",
    "session_secret",
    "encryption_key",
    "token",
    "pwd",
]


def secret_snippet(rng: random.Random) -> tuple[str, str, str]:
    """(text before, secret value, text after): only the value is labelled."""
    roll = rng.randrange(9)
    if roll == 0:
        return "", provider_key(rng), ""
    if roll == 1:
        body = "\n".join(
            _token(rng, 64, string.ascii_letters + string.digits + "+/")
            for _ in range(rng.randint(1, 4))
        )
        kind = rng.choice(["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "])
        return (
            "",
            (f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"),
            "",
        )
    if roll == 2:
        user = rng.choice(["app", "admin", "svc_etl", "postgres"])
        scheme = rng.choice(["postgres", "mysql", "redis", "amqp", "https"])
        return f"{scheme}://{user}:", _token(rng, 14), f"@db{rng.randint(1, 9)}.internal:5432/main"
    if roll == 3:
        word = rng.choice(
            [
                "github token",
                "the token is",
                "deploy key",
                "API key",
                "secret",
                "signing key",
                "access token for prod is",
            ]
        )
        return f"{word} ", _token(rng, 40, "0123456789abcdef"), ""
    key = rng.choice(_KEYS)
    value = _assignment_value(rng)
    syntax = rng.randrange(6)
    if syntax == 0:
        return f"{key} = ", value, ""
    if syntax == 1:
        return f"{key}: ", value, ""
    if syntax == 2:
        return f'"{key}": "', value, '"'
    if syntax == 3:
        return f"{key.upper().replace('.', '_').replace('-', '_')}=", value, ""
    if syntax == 4:
        return f"{key}='", value, "'"
    return "Authorization: Bearer ", _token(rng, 40), ""


def secret(rng: random.Random) -> str:
    """A secret that is one without a key word before it: a provider key, a JWT, a PEM block
    (for property tests; a password is a secret only by its key)."""
    if rng.random() < 0.1:
        body = _token(rng, 64, string.ascii_letters + string.digits + "+/")
        return f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    return provider_key(rng)


GENERATORS = {
    "EMAIL": email,
    "PHONE": phone,
    "CREDIT_CARD": card,
    "IBAN": make_iban,
    "US_SSN": ssn,
    "IP_ADDRESS": ip,
    "SECRET": secret,
    "NATIONAL_ID": national_id,
}

# Slots: {TYPE} for a value; {SECRET} for a snippet whose value alone is labelled; {NOISE}
# for an unlabelled hard-negative phrase.
POSITIVE = [
    "Please email {EMAIL} if the refund has not arrived within 30 days.",
    "The customer ({EMAIL}) asked why the Pro plan costs $49 per month. {NOISE}",
    "Hi team, {NOISE} Customer can be reached on {PHONE} after 6pm.",
    "Reach our billing team on {PHONE} between 9:00 and 17:00 CET.",
    "Call me back at {PHONE}, my order is #88231.",
    "I tried {PHONE} twice and nobody answered. {NOISE}",
    "Customer phone: {PHONE}; prefers e-mail at {EMAIL}.",
    "Tel. {PHONE} / Fax {PHONE}",
    "--\nMaria Keller\nHead of Support\nT {PHONE}\nM {PHONE}\n{EMAIL}",
    "Kontakt: {PHONE}, E-Mail {EMAIL}. {NOISE}",
    "Pour toute question, appelez le {PHONE} ou écrivez à {EMAIL}.",
    "Llámenos al {PHONE}; {NOISE}",
    "My card {CREDIT_CARD} was charged twice. {NOISE}",
    "Payment failed on card number {CREDIT_CARD} (expires 09/27).",
    "Refund to {CREDIT_CARD}, amount EUR 120.00.",
    "card_number,{CREDIT_CARD},status,declined",
    "Please wire the 2,400 EUR to {IBAN} by Friday.",
    "Our IBAN is {IBAN}, reference INV-2024-0193.",
    "Bitte überweisen Sie den Betrag auf {IBAN}. {NOISE}",
    "The SEPA transfer from {IBAN} bounced after 3 business days.",
    "My SSN is {US_SSN} and I need the 1099 form for 2023.",
    "Applicant social security number {US_SSN}, income $72,000.",
    "Requests from {IP_ADDRESS} exceeded 100 per minute. {NOISE}",
    "2024-03-15T10:30:45Z WARN auth: login from {IP_ADDRESS} user={EMAIL}",
    "Block {IP_ADDRESS} in the firewall until the audit finishes.",
    "Use {SECRET} for the staging project.",
    "Here is my config:\n{SECRET}\nretries: 3",
    '{{"user": "{EMAIL}", "phone": "{PHONE}", "retries": 3}}',
    "export {SECRET}\nexport REGION=eu-west-1",
    "I pasted {SECRET} into the config, is that safe? {NOISE}",
    "Contact {EMAIL} or {PHONE} about card {CREDIT_CARD}.",
    "User {EMAIL} logged in from {IP_ADDRESS} with {SECRET}.",
    "SSN {US_SSN}, account {IBAN}, phone {PHONE}.",
    "| name | phone | email |\n|---|---|---|\n| Jo | {PHONE} | {EMAIL} |",
    "From: Support Bot <{EMAIL}>\nSubject: ticket update\n{NOISE}",
    "Is it okay that my payment card {CREDIT_CARD} appears in the receipt?",
    "Send the W-2 for {US_SSN} to {EMAIL}.",
    "Landline {PHONE} (office hours only, closed on 24 December).",
    "{NOISE} The caller left {PHONE} as a callback number.",
    'customer:\n  phone: "{PHONE}"\n  iban: {IBAN}\n  {SECRET}',
    "ticket #4471: {NOISE} reporter {EMAIL}, mobile {PHONE}",
    "Il mio codice fiscale è {NATIONAL_ID}, per la fattura di 120 EUR.",
    "National Insurance number: {NATIONAL_ID}. {NOISE}",
    "Mi DNI es {NATIONAL_ID} y mi teléfono {PHONE}.",
    '{{"name": "Ana", "tax_id": "{NATIONAL_ID}", "email": "{EMAIL}"}}',
    "employee_id,national_id,start\n1042,{NATIONAL_ID},2024-03-01",
    "SSN {US_SSN} (US) or NI number {NATIONAL_ID} (UK), whichever applies.",
    "2024-05-02 10:14:07 INFO kyc: verified {NATIONAL_ID} for user={EMAIL} from {IP_ADDRESS}",
    "Attached is the scan of my ID card ({NATIONAL_ID}); {NOISE}",
]


def _fill(template: str, rng: random.Random) -> dict[str, Any]:
    text = ""
    entities: list[dict[str, Any]] = []
    cursor = 0
    for match in re.finditer(r"(?<!\{)\{([A-Z_]+)\}(?!\})", template):
        text += template[cursor : match.start()].replace("{{", "{").replace("}}", "}")
        slot = match.group(1)
        if slot == "NOISE":
            text += negative_phrase(rng)
        elif slot == "SECRET":
            before, value, after = secret_snippet(rng)
            text += before
            entities.append({"type": "SECRET", "start": len(text), "end": len(text) + len(value)})
            text += value + after
        else:
            value = GENERATORS[slot](rng)
            entities.append({"type": slot, "start": len(text), "end": len(text) + len(value)})
            text += value
        cursor = match.end()
    text += template[cursor:].replace("{{", "{").replace("}}", "}")
    return {"text": text, "entities": entities, "kind": "positive"}


@cache
def _build(split: str) -> tuple[str, ...]:
    rng = random.Random(SPLITS[split])
    lines = []
    for index in range(SIZE):
        if index % 5 == 4:
            line = {
                "text": fill_negative(rng.choice(NEGATIVE_TEMPLATES), rng),
                "entities": [],
                "kind": "negative",
            }
        else:
            line = _fill(rng.choice(POSITIVE), rng)
        lines.append(json.dumps(line, ensure_ascii=False))
    return tuple(lines)


def build(split: str = "dev") -> list[dict[str, Any]]:
    """The corpus lines of a split ("dev" or "heldout"), deterministic for its seed."""
    return [json.loads(line) for line in _build(split)]


def main() -> None:
    """Print the first lines of a split."""
    split = sys.argv[1] if len(sys.argv) > 1 else "dev"
    for line in build(split)[:40]:
        print(json.dumps(line, ensure_ascii=False))  # noqa: T201


if __name__ == "__main__":
    main()
