"""Redaction settings: validated at start-up, read from the environment."""

from __future__ import annotations

import pytest

from sidecar.config import load_settings
from sidecar.errors import ConfigError
from sidecar.redaction import build_redactor


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param({"redaction.modes": {"EMAIL": "hmac"}}, "hmac_key", id="hmac-without-key"),
        pytest.param(
            {"redaction.custom_patterns": [{"name": "X", "pattern": "("}]},
            "does not compile",
            id="bad-regex",
        ),
        pytest.param(
            {"redaction.custom_patterns": [{"name": "lower", "pattern": "x"}]},
            "must match",
            id="bad-name",
        ),
        pytest.param(
            {"redaction.types": ["EMAIL", "PASSPORT"]}, "redaction.types", id="unknown-type"
        ),
    ],
)
def test_bad_settings_stop_start_up(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(overrides=overrides)


def test_environment_sets_modes_and_key_and_the_key_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEWATCH_REDACTION_DEFAULT_MODE", "hmac")
    monkeypatch.setenv("CITEWATCH_REDACTION_HMAC_KEY", "s3cret-key-value")
    monkeypatch.setenv("CITEWATCH_REDACTION_ALLOW", '["help@example.com"]')
    settings = load_settings()
    redactor = build_redactor(settings.redaction)
    out = redactor.redact_text("help@example.com and anna@example.com").text
    assert out.startswith("help@example.com and <EMAIL_")
    assert "s3cret-key-value" not in repr(redactor) + settings.model_dump_json()
