"""The settings object, its sections gathered, and how it is built from flags,
environment, a YAML file and the defaults."""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from sidecar.config._renamed import Renames, RenamingSource
from sidecar.config.checks import ChecksSettings
from sidecar.config.citations import CitationsSettings
from sidecar.config.claims import ClaimsSettings
from sidecar.config.dead_letters import DeadLetterSettings
from sidecar.config.gate import GateSettings
from sidecar.config.input import InputSettings
from sidecar.config.judge import JudgeSettings
from sidecar.config.kafka import KafkaSettings
from sidecar.config.limits import LimitsSettings
from sidecar.config.metrics import MetricsSettings
from sidecar.config.producer import ProducerSettings
from sidecar.config.redaction import RedactionSettings
from sidecar.config.review import ReviewSettings
from sidecar.config.runtime import RuntimeSettings
from sidecar.config.sampling import SamplingSettings
from sidecar.config.scoring import ScoringSettings
from sidecar.errors import ConfigError, describe_validation_error

__all__ = ["Settings", "load_settings"]


class Settings(BaseSettings):
    """Everything `citewatch run` and `citewatch check` need."""

    model_config = SettingsConfigDict(
        env_prefix="CITEWATCH_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        extra="forbid",
        validate_default=True,
    )

    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    producer: ProducerSettings = Field(default_factory=ProducerSettings)
    input: InputSettings = Field(default_factory=InputSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    checks: ChecksSettings = Field(default_factory=ChecksSettings)
    citations: CitationsSettings = Field(default_factory=CitationsSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    claims: ClaimsSettings = Field(default_factory=ClaimsSettings)
    scoring: ScoringSettings = Field(default_factory=ScoringSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    redaction: RedactionSettings = Field(default_factory=RedactionSettings)
    dead_letters: DeadLetterSettings = Field(default_factory=DeadLetterSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)

    @model_validator(mode="after")
    def _review_topic_needs_kafka(self) -> Settings:
        if self.input.path is not None and self.review.topic and not self.review.store:
            raise ValueError(
                "review.topic needs the Kafka runtime; with input.path (--input) "
                "set review.store instead"
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Highest first: flags (passed as init data by load_settings), environment, YAML file;
        # each gives the settings that moved (sidecar/config/_renamed.py) under either name.
        renames = Renames()
        sources = [
            RenamingSource(init_settings, renames, where="flags", overrides=True),
            RenamingSource(env_settings, renames, where="environment"),
        ]
        config_file = _CONFIG_FILE.get()
        if config_file is not None:
            sources.append(
                RenamingSource(
                    _YamlFile(settings_cls, config_file),
                    renames,
                    where=f"config file {config_file}",
                )
            )
        return tuple(sources)


_CONFIG_FILE: ContextVar[Path | None] = ContextVar("citewatch_config_file", default=None)
"""The YAML file of the settings being built by :func:`load_settings`, if any."""


class _YamlFile(YamlConfigSettingsSource):
    """pydantic-settings' YAML source, with one-line errors for a file it cannot use."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        try:
            # The source skips a missing file silently; a named config file must exist.
            path.open("rb").close()
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
        self._path = path
        super().__init__(settings_cls, yaml_file=path, yaml_file_encoding="utf-8")

    def _read_file(self, file_path: Path) -> dict[str, Any]:
        import yaml  # the source's own parser, imported by it too: only with a config file

        try:
            loaded = super()._read_file(file_path)
        except OSError as exc:
            raise ConfigError(f"cannot read config file {self._path}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            detail = " ".join(str(exc).split())
            raise ConfigError(f"config file {self._path} is not valid YAML: {detail}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {self._path} must hold a mapping of sections")
        return loaded


def load_settings(
    config_file: str | Path | None = None,
    *,
    overrides: dict[str, Any] | None = None,
) -> Settings:
    """Build the settings from flags (``overrides``), environment, YAML file and defaults.

    Raises :class:`ConfigError` with one readable line naming every bad field.
    """
    token = _CONFIG_FILE.set(Path(config_file) if config_file is not None else None)
    try:
        return Settings(**_nest(overrides or {}))
    except ValidationError as exc:
        raise ConfigError("invalid settings: " + describe_validation_error(exc)) from None
    finally:
        _CONFIG_FILE.reset(token)


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Turn {"judge.model": "x", "metrics": {...}} into nested sections; drops None values."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if value is None:
            continue
        if "." in key:
            section, field = key.split(".", 1)
            nested.setdefault(section, {})[field] = value
        else:
            nested[key] = value
    return nested
