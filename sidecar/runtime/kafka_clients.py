"""Every Kafka client citewatch builds, configured from the settings in this one place.

The consumer commits explicit offsets only (``enable_auto_commit=False``: an offset is
committed once its evaluation record or dead letter is acknowledged, see
``runtime/consumer.py``); the producer is durable and ordered (``exporters.kafka``); all
three clients share the security options. kafka-python's errors are matched by class here
too: an unreachable broker is waited for, bad client settings stop start-up.
"""

from __future__ import annotations

from typing import Any

from exporters.kafka import producer_config as _producer_config
from sidecar.config import Settings

__all__ = [
    "CLIENT_ID",
    "admin_config",
    "build_clients",
    "consumer_config",
    "producer_config",
    "retriable_startup_error",
    "security_config",
]

CLIENT_ID = "citewatch"
"""The ``client.id`` of every client, as brokers log and quota it."""


def security_config(settings: Settings) -> dict[str, Any]:
    """kafka-python security options from the settings (unset ones left out)."""
    kafka = settings.kafka
    options: dict[str, Any] = {"security_protocol": kafka.security_protocol}
    for name in (
        "sasl_mechanism",
        "sasl_plain_username",
        "ssl_cafile",
        "ssl_certfile",
        "ssl_keyfile",
    ):
        value = getattr(kafka, name)
        if value is not None:
            options[name] = value
    if kafka.sasl_plain_password is not None:
        options["sasl_plain_password"] = kafka.sasl_plain_password.get_secret_value()
    return options


def _bootstrap(settings: Settings) -> list[str]:
    return settings.kafka.bootstrap_servers.split(",")


def consumer_config(settings: Settings) -> dict[str, Any]:
    """KafkaConsumer settings: the group, explicit commits, fetches as large as the largest
    record the producer may send."""
    kafka = settings.kafka
    return {
        "bootstrap_servers": _bootstrap(settings),
        "group_id": kafka.group_id,
        "client_id": CLIENT_ID,
        "enable_auto_commit": False,
        "auto_offset_reset": kafka.auto_offset_reset,
        "session_timeout_ms": kafka.session_timeout_ms,
        "heartbeat_interval_ms": max(1000, kafka.session_timeout_ms // 3),
        "max_partition_fetch_bytes": max(1_048_576, kafka.max_request_bytes),
        **security_config(settings),
    }


def producer_config(settings: Settings) -> dict[str, Any]:
    """KafkaProducer settings of the evaluations and dead-letter producer (acks=all)."""
    kafka, producer = settings.kafka, settings.producer
    return _producer_config(
        bootstrap_servers=kafka.bootstrap_servers,
        security=security_config(settings),
        max_request_size=kafka.max_request_bytes,
        linger_ms=producer.linger_ms,
        batch_size=producer.batch_size,
        compression_type=producer.compression_type,
    )


def admin_config(settings: Settings) -> dict[str, Any]:
    """KafkaAdminClient settings: the same cluster, client ID and security."""
    return {
        "bootstrap_servers": _bootstrap(settings),
        "client_id": CLIENT_ID,
        **security_config(settings),
    }


def build_clients(settings: Settings) -> tuple[Any, Any]:
    """A connected ``(KafkaProducer, KafkaConsumer)``; blocks while the clients bootstrap.

    Raises kafka-python's errors (see :func:`retriable_startup_error`); a producer built
    before the consumer failed is closed first.
    """
    from kafka import KafkaConsumer, KafkaProducer

    producer = KafkaProducer(**producer_config(settings))
    try:
        consumer = KafkaConsumer(**consumer_config(settings))
    except BaseException:
        producer.close(timeout=0)
        raise
    return producer, consumer


def retriable_startup_error(exc: BaseException) -> bool:
    """An unreachable broker is waited for; bad client settings stop start-up."""
    from kafka.errors import KafkaConfigurationError, KafkaError

    return isinstance(exc, KafkaError) and not isinstance(exc, KafkaConfigurationError)
