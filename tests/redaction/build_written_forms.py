"""The written-forms corpus: values as people write, paste and disguise them.

Each value is made by a writer of its format (an IBAN from a country's registered length
and the ISO 7064 mod-97 check digits, a card number with its Luhn digit, ...), written in
one of the ways a person writes it (grouped, spaced after the country code, dashed,
dotted), or disguised by one normalisation class (full-width digits, a zero-width space, a
soft hyphen, an en dash, a narrow no-break space, an HTML character reference), and put in
a sentence. Hard negatives (dates, year ranges, section numbers) hold no value.

Two splits from two seeds: ``dev`` (the rules may be looked at against it) and ``heldout``
(measured only). Regenerate with::

    python -m tests.redaction.build_written_forms > tests/fixtures/redaction/written_forms.jsonl

Each line: text, class, split, spans [[type, start, end]] of the values in the text.
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
from collections.abc import Callable, Iterator
from typing import Any

SPLITS = (("dev", 301), ("heldout", 302))
PER_CLASS = 40

IBAN_LENGTHS = {
    "DE": 22,
    "FR": 27,
    "GB": 22,
    "NL": 18,
    "ES": 24,
    "IT": 27,
    "BE": 16,
    "CH": 21,
    "AT": 20,
    "PL": 28,
    "PT": 25,
    "SE": 24,
    "NO": 15,
    "DK": 18,
    "FI": 18,
    "IE": 22,
    "LU": 20,
    "SA": 24,
    "TR": 26,
    "BR": 29,
}

SENTENCES = (
    "Please wire the deposit to {v} before Friday.",
    "My account is {v}",
    "IBAN: {v}",
    "Kontonummer {v}, danke!",
    "You can pay into {v} and send me the receipt.",
    "{v}",
    "Refund to ({v}) please.",
    "virement sur le compte {v} merci",
)
CONTACT = (
    "Call me on {v} tomorrow.",
    "My number is {v}",
    "Reach the office at {v}, ext. desk.",
    "{v}",
    "Write to {v} for the invoice.",
    "contact: {v}",
)


def _iban(rng: random.Random) -> str:
    country = rng.choice(sorted(IBAN_LENGTHS))
    bban = "".join(rng.choice(string.digits) for _ in range(IBAN_LENGTHS[country] - 4))
    if country in ("GB", "NL", "IE"):  # a bank code of letters
        bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + bban[4:]
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def _groups(value: str, size: int, sep: str = " ") -> str:
    return sep.join(value[i : i + size] for i in range(0, len(value), size))


IBAN_FORMS: dict[str, Callable[[str, random.Random], str]] = {
    "iban_compact": lambda v, r: v,
    "iban_groups_of_four": lambda v, r: _groups(v, 4),
    "iban_space_after_country": lambda v, r: f"{v[:2]} {v[2:4]} {_groups(v[4:], 4)}",
    "iban_unbroken_after_spaced_country": lambda v, r: f"{v[:2]} {v[2:]}",
    "iban_unbroken_after_check_digits": lambda v, r: f"{v[:4]} {v[4:]}",
    "iban_dashes": lambda v, r: _groups(v, 4, "-"),
    "iban_dots": lambda v, r: _groups(v, 4, "."),
    "iban_other_grouping": lambda v, r: f"{v[:4]} {_groups(v[4:], r.choice((3, 5, 6)))}",
    "iban_lower_case": lambda v, r: _groups(v.lower(), 4),
}


def _luhn_complete(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str(-total % 10)


def _card(rng: random.Random) -> str:
    prefix = rng.choice(("4", "51", "55", "37", "6011"))
    length = 15 if prefix == "37" else 16
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - 1 - len(prefix)))
    return _luhn_complete(body)


def _phone(rng: random.Random) -> str:
    return f"{rng.randint(201, 989)}-{rng.randint(201, 989)}-{rng.randint(1000, 9999)}"


def _ssn(rng: random.Random) -> str:
    return f"{rng.randint(101, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"


def _email(rng: random.Random) -> str:
    user = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))
    domain = rng.choice(("example.com", "mail.example.org"))
    return f"{user}.{rng.choice(('smith', 'lee', 'garcia'))}@{domain}"


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# (class, type, value writer, disguise, sentences)
OBFUSCATIONS: tuple[
    tuple[str, str, Callable[[random.Random], str], Callable[[str], str], tuple[str, ...]], ...
] = (
    ("phone_en_dash", "PHONE", _phone, lambda v: v.replace("-", "\u2013"), CONTACT),
    ("phone_narrow_nbsp", "PHONE", _phone, lambda v: v.replace("-", "\u202f"), CONTACT),
    ("phone_full_width", "PHONE", _phone, _fullwidth, CONTACT),
    ("phone_zero_width", "PHONE", _phone, lambda v: "\u200b".join(v), CONTACT),
    ("phone_word_joiner", "PHONE", _phone, lambda v: v.replace("-", "\u2060-\u2060"), CONTACT),
    (
        "phone_arabic_indic",
        "PHONE",
        _phone,
        lambda v: "".join(chr(0x660 + int(c)) if c.isdigit() else c for c in v),
        CONTACT,
    ),
    (
        "ssn_zero_width",
        "US_SSN",
        _ssn,
        lambda v: v.replace("-", "-\u200b"),
        ("SSN {v} on file", "social security number: {v}"),
    ),
    (
        "ssn_minus_sign",
        "US_SSN",
        _ssn,
        lambda v: v.replace("-", "\u2212"),
        ("SSN {v} on file", "social security number: {v}"),
    ),
    (
        "card_full_width",
        "CREDIT_CARD",
        _card,
        _fullwidth,
        ("card {v} expired", "Charge {v} for the order"),
    ),
    (
        "card_soft_hyphen",
        "CREDIT_CARD",
        _card,
        lambda v: _groups(v, 4, "\u00ad"),
        ("card {v} expired", "Charge {v} for the order"),
    ),
    ("iban_soft_hyphen", "IBAN", _iban, lambda v: _groups(v, 4, "\u00ad"), SENTENCES),
    ("iban_full_width", "IBAN", _iban, lambda v: _fullwidth(_groups(v, 4)), SENTENCES),
    ("email_full_width_at", "EMAIL", _email, lambda v: v.replace("@", "\uff20"), CONTACT),
    ("email_entity_at", "EMAIL", _email, lambda v: v.replace("@", "&#64;"), CONTACT),
    (
        "email_named_entity",
        "EMAIL",
        _email,
        lambda v: v.replace("@", "&commat;").replace(".", "&period;"),
        CONTACT,
    ),
    ("email_zero_width", "EMAIL", _email, lambda v: v.replace("@", "\u200b@\u200b"), CONTACT),
)


def _token(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random) -> str:
    return _token(rng, 4) + rng.choice("!#%") + _token(rng, rng.randint(5, 9))


WORDS = ("crickets", "sunflower", "marmalade", "lighthouse", "tangerine", "butterscotch")


def _jwt(rng: random.Random) -> str:
    def part(obj: str) -> str:
        return base64.urlsafe_b64encode(obj.encode()).decode().rstrip("=")

    return ".".join(
        (
            part('{"alg":"HS256","typ":"JWT"}'),
            part(f'{{"sub":"{rng.randint(1, 10**9)}","iat":{rng.randint(1, 10**9)}}}'),
            _token(rng, 43, string.ascii_letters + string.digits + "-_"),
        )
    )


BASE64 = string.ascii_letters + string.digits + "+/"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
# (class, writer of (text before the secret, secret, text after)); the formats as each
# provider documents its tokens: a prefix and the characters and length that follow.
SECRETS: tuple[tuple[str, Callable[[random.Random], tuple[str, str, str]]], ...] = (
    ("secret_go_typed_var", lambda r: ('var apiKey string = "', _password(r), '"')),
    ("secret_makefile_conditional", lambda r: ("DEPLOY_TOKEN ?= ", _token(r, 24), "\n")),
    ("secret_makefile_immediate", lambda r: ("DB_PASSWORD ::= ", _password(r), "\n")),
    (
        "secret_java_set_property",
        lambda r: ('System.setProperty("db.password", "', _password(r), '");'),
    ),
    ("secret_php_append", lambda r: ('$password .= "', _password(r), '";')),
    ("secret_xml_multiline", lambda r: ("<password>\n    ", _password(r), "\n</password>")),
    ("secret_password_of_letters", lambda r: ("password: ", r.choice(WORDS), "")),
    ("secret_my_password_is", lambda r: ("my password is ", r.choice(WORDS), " so log in")),
    ("secret_curl_user", lambda r: ("curl -u admin:", _password(r), " https://api.example.com")),
    (
        "secret_docker_login",
        lambda r: ("docker login -u ci -p ", _password(r), " registry.example.com"),
    ),
    (
        "secret_netrc",
        lambda r: ("machine api.example.com\n  login bob\n  password ", _password(r), "\n"),
    ),
    ("secret_grafana_cloud", lambda r: ("GRAFANA=", "glc_" + _token(r, 60, BASE64), "")),
    (
        "secret_digitalocean",
        lambda r: (
            "",
            r.choice(("dop", "doo", "dor")) + "_v1_" + _token(r, 64, "0123456789abcdef"),
            " in the env",
        ),
    ),
    ("secret_square", lambda r: ("square ", "EAAA" + _token(r, 60, BASE64[:-2] + "-_"), "")),
    (
        "secret_gitlab",
        lambda r: (
            "use ",
            r.choice(("gldt-", "glrt-", "glptt-", "glft-", "glcbt-")) + _token(r, 20),
            " for CI",
        ),
    ),
    ("secret_aws_session", lambda r: ("session ", "IQoJb3JpZ2luX2Vj" + _token(r, 200, BASE64), "")),
    ("secret_bedrock", lambda r: ("bedrock ", "ABSK" + _token(r, 120, BASE64), "")),
    ("secret_age", lambda r: ("key ", "AGE-SECRET-KEY-1" + _token(r, 58, BECH32), "")),
    (
        "secret_teams_webhook",
        lambda r: (
            "post to ",
            "https://contoso.webhook.office.com/webhookb2/"
            + _token(r, 36)
            + "@"
            + _token(r, 36)
            + "/IncomingWebhook/"
            + _token(r, 32),
            "",
        ),
    ),
    (
        "secret_slack_workflow",
        lambda r: (
            "",
            "https://hooks.slack.com/workflows/T"
            + _token(r, 8)
            + "/A"
            + _token(r, 8)
            + "/"
            + _token(r, 24),
            "",
        ),
    ),
    (
        "secret_azure_client_secret",
        lambda r: (
            "client secret ",
            _token(r, 3) + "8Q~" + _token(r, 34, BASE64[:-2] + "_~.-"),
            "",
        ),
    ),
    (
        "secret_azure_sas",
        lambda r: (
            "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=",
            _token(r, 43) + "%3D",
            "",
        ),
    ),
    ("secret_base64_jwt", lambda r: ("session ", base64.b64encode(_jwt(r).encode()).decode(), "")),
    ("secret_jwt", lambda r: ("Authorization ", _jwt(r), "")),
)


def _secret_line(
    name: str, parts: tuple[str, str, str], split: str, repeat: bool
) -> dict[str, Any]:
    before, secret, after = parts
    text = before + secret + after
    spans = [["SECRET", len(before), len(before) + len(secret)]]
    if repeat:  # the same secret quoted again further on
        spans.append(["SECRET", len(text) + 13, len(text) + 13 + len(secret)])
        text += " and later: " + f" {secret} again"
    return {"text": text, "class": name, "split": split, "spans": spans}


NEGATIVES: dict[str, Callable[[random.Random], str]] = {
    "negative_date_time": lambda r: (
        f"{r.choice(('Mon', 'Thu', 'Sat'))} {r.randint(1, 28)} "
        f"{r.choice(('Feb', 'Jun', 'Oct'))} {r.randint(1990, 2024)} "
        f"{r.randint(0, 23):02d}.{r.randint(0, 59):02d}"
    ),
    "negative_year_range": lambda r: r.choice(
        (
            f"the war years {r.randint(1900, 1980)}-{r.randint(10, 99)}",
            f"in the {r.randint(1990, 2030)}/{r.randint(10, 99)} season",
            f"from {r.randint(1800, 2000)}\u2013{r.randint(10, 99)} onwards",
        )
    ),
    "negative_section_number": lambda r: (
        f"{r.choice(('see section', 'as in clause', 'Article', 'per paragraph', '§'))} "
        f"{r.randint(1, 30)}.{r.randint(1, 12)}.{r.randint(1, 9)}.{r.randint(1, 9)} of the "
        f"agreement"
    ),
    "negative_password_prose": lambda r: r.choice(
        (
            "the password is required",
            "Enter your password, then click Save",
            "your password is too short",
            "password: see the vault",
            "the password is incorrect",
        )
    ),
    "negative_port_mapping": lambda r: f"docker run -p {r.randint(1024, 9999)}:80 nginx",
    "negative_amount_and_dosage": lambda r: (
        f"{r.randint(2, 900)} mg twice daily, total \u20ac{r.randint(1000, 99999):,}"
    ),
}


def _lines(split: str, seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for name, form in IBAN_FORMS.items():
        for _ in range(PER_CLASS):
            written = form(_iban(rng), rng)
            yield _line(rng.choice(SENTENCES), written, "IBAN", name, split)
    for name, kind, writer, disguise, sentences in OBFUSCATIONS:
        for _ in range(PER_CLASS):
            yield _line(rng.choice(sentences), disguise(writer(rng)), kind, name, split)
    for name, writer in SECRETS:
        for _ in range(PER_CLASS):
            yield _secret_line(name, writer(rng), split, repeat=False)
    for i in range(PER_CLASS):
        name, writer = SECRETS[i % len(SECRETS)]
        yield _secret_line("secret_repeated", writer(rng), split, repeat=True)
    for name, negative in NEGATIVES.items():
        for _ in range(PER_CLASS):
            yield {"text": negative(rng), "class": name, "split": split, "spans": []}


def _line(sentence: str, written: str, kind: str, name: str, split: str) -> dict[str, Any]:
    start = sentence.index("{v}")
    text = sentence.replace("{v}", written)
    return {
        "text": text,
        "class": name,
        "split": split,
        "spans": [[kind, start, start + len(written)]],
    }


def build() -> list[dict[str, Any]]:
    """Every line of both splits."""
    return [line for split, seed in SPLITS for line in _lines(split, seed)]


def main() -> None:
    for line in build():
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
