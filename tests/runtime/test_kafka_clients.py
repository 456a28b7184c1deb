"""The Kafka client settings come from one place and are ones kafka-python knows."""

from __future__ import annotations

import warnings

import pytest

# kafka-python 3.0 reads its protocol schemas with importlib.resources.read_text, deprecated
# in Python 3.11 (the same guard as tests/integration/conftest.py).
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka.errors import BrokerNotAvailableError, KafkaConfigurationError, KafkaTimeoutError

from sidecar.config import Settings
from sidecar.runtime.kafka_clients import (
    admin_config,
    consumer_config,
    producer_config,
    retriable_startup_error,
)

SECURE = {
    "kafka": {
        "bootstrap_servers": "k1:9093,k2:9093",
        "group_id": "g",
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "citewatch",
        "sasl_plain_password": "s3cret",
        "ssl_cafile": "/etc/ca.pem",
        "session_timeout_ms": 30_000,
        "max_request_bytes": 4_194_304,
    },
    "producer": {"linger_ms": 5, "batch_size": 65_536, "compression_type": "gzip"},
}
SECURITY = {
    "security_protocol": "SASL_SSL",
    "sasl_mechanism": "SCRAM-SHA-512",
    "sasl_plain_username": "citewatch",
    "sasl_plain_password": "s3cret",
    "ssl_cafile": "/etc/ca.pem",
}


def test_consumer_commits_explicitly_and_carries_the_security_options() -> None:
    assert consumer_config(Settings.model_validate(SECURE)) == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "group_id": "g",
        "client_id": "citewatch",
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        "session_timeout_ms": 30_000,
        "heartbeat_interval_ms": 10_000,
        "max_partition_fetch_bytes": 4_194_304,
        **SECURITY,
    }


def test_producer_is_durable_and_batches_by_the_producer_section() -> None:
    assert producer_config(Settings.model_validate(SECURE)) == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "acks": "all",
        "linger_ms": 5,
        "batch_size": 65_536,
        "compression_type": "gzip",
        "max_request_size": 4_194_304,
        "client_id": "citewatch",
        **SECURITY,
    }


def test_admin_shares_the_cluster_and_security() -> None:
    assert admin_config(Settings.model_validate(SECURE)) == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "client_id": "citewatch",
        **SECURITY,
    }


def test_plaintext_leaves_unset_security_options_out() -> None:
    config = consumer_config(Settings())
    assert config["security_protocol"] == "PLAINTEXT"
    assert not {key for key in config if key.startswith(("sasl_", "ssl_"))}


@pytest.mark.parametrize(
    ("build", "client"),
    [
        pytest.param(consumer_config, KafkaConsumer, id="consumer"),
        pytest.param(producer_config, KafkaProducer, id="producer"),
        pytest.param(admin_config, KafkaAdminClient, id="admin"),
    ],
)
def test_every_option_is_one_kafka_python_knows(build: object, client: type) -> None:
    config = build(Settings.model_validate(SECURE))  # type: ignore[operator]
    assert set(config) - set(client.DEFAULT_CONFIG) == set()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("error", "retriable"),
    [
        pytest.param(BrokerNotAvailableError(), True, id="broker-unavailable"),
        pytest.param(KafkaTimeoutError(), True, id="timeout"),
        pytest.param(KafkaConfigurationError("bad"), False, id="bad-settings"),
        pytest.param(ValueError("bad"), False, id="not-kafka"),
    ],
)
def test_an_unreachable_broker_is_waited_for_and_bad_settings_are_not(
    error: BaseException, retriable: bool
) -> None:
    assert retriable_startup_error(error) is retriable
