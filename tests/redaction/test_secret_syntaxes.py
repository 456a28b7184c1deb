"""Every secret syntax docs/redaction.md lists, in each of its written forms (the key bare or
quoted, the value bare or quoted, the operator with and without spaces), through
`citewatch redact`: the value, and only the value, becomes a placeholder."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tests.redaction._cli import check, record_claims, redact

VALUE = "Zx8s9Qw2Lk4nPq7R"
KEYS = ["api_token", "password", "clientSecret", "DB_PASSWORD"]
OPERATORS = ["=", ":", "=>", "?=", ":=", "::=", ":::=", ".=", "+=", "<-"]
KEY_QUOTES = ["", '"', "'"]
VALUE_QUOTES = ["", '"', "'"]
SPACES = ["", " ", "  ", "\t"]


def _assignments() -> list[tuple[str, str]]:
    forms = []
    for key in KEYS:
        for op in OPERATORS:
            for kq in KEY_QUOTES:
                for vq in VALUE_QUOTES:
                    for sp in SPACES:
                        written = f"{kq}{key}{kq}{sp}{op}{sp}{vq}{{v}}{vq}"
                        forms.append((f"{key}{kq}{op}{vq}{sp!r}", written))
    return forms


# Syntaxes beyond a key, an operator and a value; {v} is the secret.
SYNTAXES = [
    ("ruby-hash-rocket", '{"api_token" => "{v}"}'),
    ("ruby-symbol-rocket", "{:api_token => '{v}'}"),
    ("ruby-symbol-key", '{api_token: "{v}"}'),
    ("ruby-index", 'config[:api_token] = "{v}"'),
    ("php-array-double", '$config["api_token"] = "{v}";'),
    ("php-array-single", "$config['api_token'] = '{v}';"),
    ("php-array-literal", "'api_token' => '{v}',"),
    ("php-property", '$this->apiToken = "{v}";'),
    ("logstash", 'password => "{v}"'),
    ("makefile-immediate", "API_TOKEN :::= {v}"),
    ("makefile-posix", "API_TOKEN ::= {v}"),
    ("makefile-conditional", "API_TOKEN ?= {v}"),
    ("go-var", 'var apiToken string = "{v}"'),
    ("java-set-property", 'props.setProperty("db.password", "{v}");'),
    ("xml-element", "<password>{v}</password>"),
    ("xml-element-lines", "<password>\n  {v}\n</password>"),
    ("authorization-bearer", "Authorization: Bearer {v}"),
    ("env-export", "export GITHUB_TOKEN={v}"),
    ("yaml-nested", "db:\n  password: {v}\n"),
    ("json", '{"client_secret": "{v}"}'),
    ("ini", "[db]\npassword = {v}"),
    ("toml", 'api_key = "{v}"'),
    ("r-arrow", 'password <- "{v}"'),
    ("keyword-pw", "pw: {v}"),
    ("keyword-passwort", "Passwort: {v}"),
    ("keyword-kennwort", "Kennwort: {v}"),
    ("keyword-contrasena", "contrasena: {v}"),
    ("keyword-senha", "senha = {v}"),
    ("keyword-dbpw", "DBPW={v}"),
    ("prose-mixed", "the password is {v}"),
    ("prose-was", "my password was {v}."),
    ("prose-is-now", "The passphrase is now '{v}'"),
    ("prose-token", "github token {v}"),
    ("curl-user", "curl -u admin:{v} https://api.example.com"),
    ("docker-login", "docker login -u bob -p {v} registry.example.com"),
    ("mysql", "mysql -u root -p{v} app"),
    ("long-flag", "tool --password {v}"),
    ("netrc", "machine api.example.com login bob password {v}"),
    ("url", "https://bob:{v}@api.example.com/v1"),
    ("url-no-user", "redis://:{v}@cache.example.com:6379/0"),
    ("url-srv", "mongodb+srv://app:{v}@cluster0.example.net/db"),
    ("jdbc-query", "jdbc:mysql://db.example.com:3306/app?user=root&password={v}"),
    ("jdbc-semicolons", "jdbc:sqlserver://db.example.com;user=sa;password={v};"),
    ("odbc", "Server=db.example.com;Database=app;Uid=sa;Pwd={v};"),
    ("libpq", "host=db.example.com user=app password={v} dbname=app"),
]

# Values found by their own shape, wherever they stand.
SHAPES = [
    (
        "azure-storage-key",
        "key Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
        "K1SZFPTOtr/KBHBeksoGMGw==",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    ),
    (
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    ),
    (
        "azure-shared-access-key",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=send;"
        "SharedAccessKey=q8Yh2m0Kc5vTn3PzR7wLxB1dF4gJ6sA9eU2iO5yV8nM=",
        "q8Yh2m0Kc5vTn3PzR7wLxB1dF4gJ6sA9eU2iO5yV8nM=",
    ),
    (
        "azure-ad-client-secret",
        "secret: abc8Q~Zx8s9Qw2Lk4nPq7RZx8s9Qw2Lk4nPq7R",
        "abc8Q~Zx8s9Qw2Lk4nPq7RZx8s9Qw2Lk4nPq7R",
    ),
    (
        "oracle-jdbc",
        "jdbc:oracle:thin:scott/Tg7x2Kq9Lm@db.example.com:1521:orcl",
        "Tg7x2Kq9Lm",
    ),
]

FORMS = [(name, form.replace("{v}", VALUE).replace("{{v}}", VALUE)) for name, form in SYNTAXES]
ASSIGNMENTS = [(name, form.replace("{v}", VALUE)) for name, form in _assignments()]


@cache
def _redacted() -> dict[str, str]:
    texts = [text for _, text in ASSIGNMENTS + FORMS] + [text for _, text, _ in SHAPES]
    return dict(zip(texts, redact(texts), strict=True))


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in ASSIGNMENTS])
def test_every_written_form_of_an_assignment(text: str) -> None:
    assert _redacted()[text] == text.replace(VALUE, "<SECRET_1>")


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in FORMS])
def test_every_listed_syntax(text: str) -> None:
    assert _redacted()[text] == text.replace(VALUE, "<SECRET_1>")


@pytest.mark.parametrize(
    ("text", "secret"), [pytest.param(text, secret, id=name) for name, text, secret in SHAPES]
)
def test_keys_found_by_their_shape(text: str, secret: str) -> None:
    # (Oracle's "password@host" also reads as an e-mail address, which hides it whole.)
    assert secret not in _redacted()[text]
    assert "<SECRET_1>" in _redacted()[text] or "<EMAIL_1>" in _redacted()[text]


def test_a_secret_in_a_trace_reaches_neither_the_judge_nor_the_record(tmp_path: Path) -> None:
    values = [text for _, text in FORMS[:8]]
    requests, records = check(values, tmp_path)
    assert VALUE not in requests and VALUE not in records
    assert record_claims(records) == [
        f"On file: {text.replace(VALUE, '<SECRET_1>')}." for text in values
    ]


def test_what_only_looks_like_a_new_syntax_stays() -> None:
    # base64 of text has an account key's length; a password ending in "pw" is no key
    # before the URL after it
    text_b64 = (
        "U3VhIG5vdmEgdGFyZWZhIMOpIGNvbmZpcm1hciBhIHJlc3Bvc3RhIHNlbSB2ZXJpZmljYXIgYXMgZm9udGVzLg=="
    )
    texts = [f"note {text_b64}", "curl -u admin:p9W9!pw https://api.example.com"]
    assert redact(texts) == [texts[0], "curl -u admin:<SECRET_1> https://api.example.com"]
