"""Every secret of the settings, and every OAUTHBEARER token, is masked in every log line:
as written, inside a str's or a bytes' repr (kafka-python's debug lines print its
configuration dict and the SASL requests it sends), in tracebacks too."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from sidecar._userinfo import MaskUserinfo, forget_secrets, mask_secrets, remember_secret
from sidecar.cli._common import remember_secrets
from sidecar.config import Settings

PASSWORD = "s3cr'et\\pw"


@pytest.fixture(autouse=True)
def _no_secrets_left() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


def _record(message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(
        "kafka.net.connection", logging.DEBUG, __file__, 1, message, args, None
    )


def _written(record: logging.LogRecord) -> str:
    MaskUserinfo().filter(record)
    return logging.Formatter("%(message)s").format(record)


def test_every_spelling_of_a_remembered_secret_is_masked() -> None:
    remember_secret(PASSWORD)
    config = {"sasl_plain_password": PASSWORD, "client_id": "citewatch"}
    request = b"\x00citewatch\x00" + PASSWORD.encode()
    line = _written(_record("configs %s sent %r as %s", config, request, PASSWORD))
    # The quote in the password makes repr quote with double quotes.
    assert line == (
        "configs {'sasl_plain_password': \"***\", 'client_id': 'citewatch'} "
        'sent b"\\x00citewatch\\x00***" as ***'
    )


def test_a_secret_in_a_traceback_is_masked() -> None:
    remember_secret(PASSWORD)
    try:
        raise ValueError(f"bad password {PASSWORD}")
    except ValueError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    text = _written(record) + (record.exc_text or "")
    assert PASSWORD not in text
    assert "bad password ***" in text


def test_short_values_are_not_masked_and_text_without_secrets_is_unchanged() -> None:
    remember_secret("abc")
    remember_secret(None)
    assert mask_secrets("abc def") == "abc def"


def test_every_secret_of_the_settings_is_remembered() -> None:
    settings = Settings.model_validate(
        {
            "kafka": {
                "security_protocol": "SASL_SSL",
                "sasl_mechanism": "PLAIN",
                "sasl_plain_username": "citewatch",
                "sasl_plain_password": "kafka-password-1",
                "ssl_password": "key-password-2",
                "client_overrides": {"review": {"sasl_plain_password": "review-password-3"}},
            },
            "judge": {"api_key": "judge-key-4"},
        }
    )
    remember_secrets(settings)
    shown = mask_secrets("kafka-password-1 key-password-2 review-password-3 judge-key-4 citewatch")
    assert shown == "*** *** *** *** citewatch"


def test_a_secret_str_alone_is_remembered() -> None:
    remember_secrets([SecretStr("token-value-5")])
    assert mask_secrets("Bearer token-value-5") == "Bearer ***"
