from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.config import load_settings
from sidecar.errors import ConfigError


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for key in list(os.environ):
        if key.startswith("CITEWATCH_"):
            monkeypatch.delenv(key)


def test_defaults() -> None:
    settings = load_settings()
    assert settings.kafka.input_topic == "rag.traces"
    assert settings.metrics.port == 9464
    assert settings.scoring.weight_correctness == 0.45


def test_precedence_flags_over_env_over_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "citewatch.yaml"
    config.write_text(
        "metrics:\n  port: 1111\nkafka:\n  group_id: from-file\n  input_topic: file-topic\n"
    )
    monkeypatch.setenv("CITEWATCH_METRICS_PORT", "2222")
    monkeypatch.setenv("CITEWATCH_KAFKA_GROUP_ID", "from-env")
    settings = load_settings(config, overrides={"kafka.group_id": "from-flag"})
    assert settings.metrics.port == 2222
    assert settings.kafka.group_id == "from-flag"
    assert settings.kafka.input_topic == "file-topic"


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        pytest.param("metrics:\n  port: 99999\n", "metrics.port", id="port-range"),
        pytest.param("scoring:\n  weight_validity: 0.9\n", "sum to 1.0", id="weights"),
        pytest.param("kafka:\n  bogus: 1\n", "kafka.bogus", id="unknown-field"),
        pytest.param(
            "producer:\n  compression_type: brotli\n",
            "producer.compression_type",
            id="unknown-codec",
        ),
        pytest.param("producer:\n  linger_ms: -1\n", "producer.linger_ms", id="negative-linger"),
        pytest.param("- a list\n", "mapping", id="not-a-mapping"),
        pytest.param("metrics: [\n", "not valid YAML", id="bad-yaml"),
    ],
)
def test_invalid_settings_are_one_clear_line(tmp_path: Path, yaml_text: str, message: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(yaml_text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(config)
    assert "\n" not in str(info.value).strip()


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings(tmp_path / "absent.yaml")


def test_secret_is_masked_in_dumps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWATCH_KAFKA_SASL_PLAIN_PASSWORD", "hunter2-secret")
    dumped = load_settings().model_dump_json()
    assert "hunter2-secret" not in dumped


def test_a_codec_whose_package_is_missing_stops_start_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "zstandard" else real(name, *a),
    )
    config = tmp_path / "c.yaml"
    config.write_text("producer:\n  compression_type: zstd\n")
    with pytest.raises(ConfigError, match="needs the zstandard package"):
        load_settings(config)


def test_producer_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWATCH_PRODUCER_LINGER_MS", "20")
    monkeypatch.setenv("CITEWATCH_PRODUCER_COMPRESSION_TYPE", "gzip")
    settings = load_settings(None)
    assert (settings.producer.linger_ms, settings.producer.compression_type) == (20, "gzip")


@pytest.mark.parametrize(
    ("servers", "problem"),
    [
        pytest.param(
            "localhost:notaport",
            "'localhost:notaport' has port 'notaport'; a port is a number from 1 to 65535",
            id="port-not-a-number",
        ),
        pytest.param(
            "kafka-1:9092,:9093", "':9093' is not host:port (e.g. kafka-1:9092)", id="no-host"
        ),
        pytest.param(
            "kafka-1:70000",
            "'kafka-1:70000' has port '70000'; a port is a number from 1 to 65535",
            id="port-too-large",
        ),
        pytest.param(
            "kafka 1:9092",
            "'kafka 1:9092' has no valid host name or address before the port",
            id="space-in-host",
        ),
    ],
)
def test_config_validate_refuses_bad_bootstrap_addresses(servers: str, problem: str) -> None:
    from click.testing import CliRunner

    from sidecar.cli import cli

    result = CliRunner().invoke(
        cli, ["config", "validate"], env={"CITEWATCH_KAFKA_BOOTSTRAP_SERVERS": servers}
    )
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"Error: invalid settings: kafka.bootstrap_servers: Value error, {problem}"
    )


@pytest.mark.parametrize(
    "servers", ["localhost", "kafka-1:9092,kafka-2:9093", "[::1]:9092", "10.0.0.7:29092"]
)
def test_good_bootstrap_addresses_are_valid(servers: str) -> None:
    assert (
        load_settings(None, overrides={"kafka.bootstrap_servers": servers}).kafka.bootstrap_servers
        == servers
    )
