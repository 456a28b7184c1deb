"""Settings that moved to ``runtime.*`` keep their old ``kafka.*`` names as aliases."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from sidecar.config import RuntimeSettings, Settings, load_settings
from sidecar.config._renamed import RENAMED
from sidecar.errors import ConfigError

# A value per moved setting that is not its default, as YAML and as an environment value.
_VALUES = {"shutdown_deadline_seconds": 7.5, "dedup_window": 12, "dedup_max_bytes": 4096}
_OTHER = {"shutdown_deadline_seconds": 9.0, "dedup_window": 13, "dedup_max_bytes": 8192}
_FIELDS = [pytest.param(new[1], id=new[1]) for new in RENAMED.values()]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("CITEWATCH_"):
            monkeypatch.delenv(key)


def _yaml(tmp_path: Path, section: str, field: str, value: object) -> Path:
    config = tmp_path / f"{section}.yaml"
    config.write_text(f"{section}:\n  {field}: {value}\n")
    return config


def test_every_renamed_setting_is_a_runtime_field_and_no_kafka_field() -> None:
    from sidecar.config import KafkaSettings

    for (old_section, old), (new_section, new) in RENAMED.items():
        assert (old_section, new_section) == ("kafka", "runtime")
        assert new in RuntimeSettings.model_fields
        assert old not in KafkaSettings.model_fields
    assert set(_VALUES) == {new for _, new in RENAMED.values()}


@pytest.mark.parametrize("field", _FIELDS)
def test_old_and_new_yaml_key_give_the_same_settings(tmp_path: Path, field: str) -> None:
    old = load_settings(_yaml(tmp_path, "kafka", field, _VALUES[field]))
    new = load_settings(_yaml(tmp_path, "runtime", field, _VALUES[field]))
    assert getattr(new.runtime, field) == _VALUES[field]
    assert old.model_dump() == new.model_dump()


@pytest.mark.parametrize("field", _FIELDS)
def test_old_and_new_env_var_give_the_same_settings(
    monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    monkeypatch.setenv(f"CITEWATCH_KAFKA_{field.upper()}", str(_VALUES[field]))
    old = load_settings()
    monkeypatch.delenv(f"CITEWATCH_KAFKA_{field.upper()}")
    monkeypatch.setenv(f"CITEWATCH_RUNTIME_{field.upper()}", str(_VALUES[field]))
    new = load_settings()
    assert getattr(new.runtime, field) == _VALUES[field]
    assert old.model_dump() == new.model_dump()


def test_the_old_name_also_works_as_a_keyword_and_keeps_the_rest_of_its_section() -> None:
    settings = Settings(kafka={"dedup_window": 12, "group_id": "g"})
    assert (settings.runtime.dedup_window, settings.kafka.group_id) == (12, "g")


def test_an_old_name_is_logged_once_as_deprecated_with_its_new_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    config = _yaml(tmp_path, "kafka", "shutdown_deadline_seconds", 7.5)
    monkeypatch.setenv("CITEWATCH_KAFKA_DEDUP_WINDOW", "12")
    with caplog.at_level(logging.WARNING, logger="sidecar.config._renamed"):
        load_settings(config)
    assert [r.getMessage() for r in caplog.records] == [
        "CITEWATCH_KAFKA_DEDUP_WINDOW is deprecated: set CITEWATCH_RUNTIME_DEDUP_WINDOW instead",
        f"kafka.shutdown_deadline_seconds (config file {config}) is deprecated: set "
        "runtime.shutdown_deadline_seconds instead",
    ]


def test_new_names_log_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="sidecar.config"):
        load_settings(_yaml(tmp_path, "runtime", "dedup_window", 12))
    assert caplog.records == []


@pytest.mark.parametrize("field", _FIELDS)
def test_both_names_with_different_values_in_one_file_stop_start_up(
    tmp_path: Path, field: str
) -> None:
    config = tmp_path / "both.yaml"
    config.write_text(
        f"kafka:\n  {field}: {_VALUES[field]}\nruntime:\n  {field}: {_OTHER[field]}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert str(caught.value) == (
        f"invalid settings: runtime.{field}={_OTHER[field]!r} (config file {config}) and "
        f"kafka.{field}={_VALUES[field]!r} (config file {config}) disagree: kafka.{field} "
        f"is the deprecated name of runtime.{field}; set only runtime.{field}"
    )


def test_both_names_with_different_values_in_the_environment_stop_start_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEWATCH_KAFKA_SHUTDOWN_DEADLINE_SECONDS", "7.5")
    monkeypatch.setenv("CITEWATCH_RUNTIME_SHUTDOWN_DEADLINE_SECONDS", "9")
    with pytest.raises(
        ConfigError,
        match="CITEWATCH_RUNTIME_SHUTDOWN_DEADLINE_SECONDS='9' "
        r"\(environment\) and CITEWATCH_KAFKA_SHUTDOWN_DEADLINE_SECONDS='7.5'",
    ):
        load_settings()


@pytest.mark.parametrize(
    ("file_section", "env_section"),
    [
        pytest.param("kafka", "RUNTIME", id="old-in-file"),
        pytest.param("runtime", "KAFKA", id="old-in-env"),
    ],
)
def test_old_and_new_name_split_across_file_and_environment_stop_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file_section: str, env_section: str
) -> None:
    config = _yaml(tmp_path, file_section, "dedup_window", 12)
    monkeypatch.setenv(f"CITEWATCH_{env_section}_DEDUP_WINDOW", "13")
    with pytest.raises(
        ConfigError,
        match="disagree: kafka.dedup_window is the deprecated "
        "name of runtime.dedup_window; set only runtime.dedup_window",
    ):
        load_settings(config)


def test_both_names_with_one_value_are_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "both.yaml"
    config.write_text(
        "kafka:\n  shutdown_deadline_seconds: 9\nruntime:\n  shutdown_deadline_seconds: 9.0\n"
    )
    monkeypatch.setenv("CITEWATCH_KAFKA_SHUTDOWN_DEADLINE_SECONDS", "9")
    assert load_settings(config).runtime.shutdown_deadline_seconds == 9.0


def test_a_flag_overrides_either_name(tmp_path: Path) -> None:
    config = _yaml(tmp_path, "kafka", "shutdown_deadline_seconds", 7.5)
    settings = load_settings(config, overrides={"runtime.shutdown_deadline_seconds": 3})
    assert settings.runtime.shutdown_deadline_seconds == 3.0


def test_an_invalid_value_under_the_old_name_is_reported_under_the_new_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"runtime\.dedup_window"):
        load_settings(_yaml(tmp_path, "kafka", "dedup_window", -1))
