"""The producer settings of the evaluations and dead-letter sinks."""

from __future__ import annotations

import warnings

import pytest

from exporters.kafka import producer_config


def test_producer_config_is_durable_and_batches_by_the_given_settings() -> None:
    config = producer_config(
        bootstrap_servers="a:9092,b:9092",
        security={"security_protocol": "SSL"},
        max_request_size=1_000_000,
        linger_ms=40,
        batch_size=131_072,
        compression_type="gzip",
    )
    assert config == {
        "bootstrap_servers": ["a:9092", "b:9092"],
        "acks": "all",
        "linger_ms": 40,
        "batch_size": 131_072,
        "compression_type": "gzip",
        "max_request_size": 1_000_000,
        "client_id": "citewatch",
        "security_protocol": "SSL",
    }


@pytest.mark.parametrize(
    ("given", "expected"),
    [pytest.param("none", None, id="none"), pytest.param("lz4", "lz4", id="lz4")],
)
def test_compression_none_is_kafka_pythons_none(given: str, expected: str | None) -> None:
    config = producer_config(
        bootstrap_servers="a:9092", security={}, max_request_size=1, compression_type=given
    )
    assert config["compression_type"] == expected


def test_kafka_python_knows_every_option() -> None:
    # kafka-python 3.0 reads its protocol schemas with a resources API deprecated in 3.11.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from kafka import KafkaProducer

    config = producer_config(
        bootstrap_servers="127.0.0.1:1", security={}, max_request_size=16_777_216
    )
    unknown = set(config) - set(KafkaProducer.DEFAULT_CONFIG)
    assert unknown == set()
