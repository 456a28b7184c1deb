"""Every Kafka client citewatch builds, configured from the settings in this one place.

The consumer commits explicit offsets only (``enable_auto_commit=False``: an offset is
committed once its evaluation record or dead letter is acknowledged, see
``runtime/consumer.py``); the producer is durable and ordered (``exporters.kafka``); all
clients share the security options, each with its ``kafka.client_overrides`` entry on top
(the review topic's consumer or the producer on a principal of its own). kafka-python's
errors are matched by class here too: an unreachable broker is waited for, bad client
settings stop start-up.
"""

from __future__ import annotations

from typing import Any

from exporters.kafka import producer_config as _producer_config
from sidecar.config import Settings
from sidecar.config.kafka import KafkaClient, KafkaSecurity, security_problem
from sidecar.errors import ConfigError
from sidecar.runtime.kafka_security import check_files, token_provider

__all__ = [
    "CLIENT_ID",
    "admin_config",
    "build_clients",
    "check_client_files",
    "consumer_config",
    "producer_config",
    "retriable_startup_error",
    "review_consumer_config",
    "security_config",
    "setting_prefix",
]

CLIENT_ID = "citewatch"
"""The ``client.id`` of every client, as brokers log and quota it."""


_PASSED = (
    "sasl_mechanism",
    "sasl_plain_username",
    "sasl_kerberos_service_name",
    "sasl_kerberos_domain_name",
    "ssl_cafile",
    "ssl_certfile",
    "ssl_keyfile",
    "ssl_crlfile",
)


def setting_prefix(settings: Settings, client: KafkaClient) -> str:
    """Where ``client``'s security settings are read: ``kafka.client_overrides.<client>``
    when it has an entry, else ``kafka`` (error messages name the setting)."""
    if client in settings.kafka.client_overrides:
        return f"kafka.client_overrides.{client}"
    return "kafka"


def security_config(settings: Settings, client: KafkaClient = "consumer") -> dict[str, Any]:
    """kafka-python security options of ``client`` from the settings (unset ones left
    out); an OAUTHBEARER client gets its token provider, made here (raises
    :class:`~sidecar.errors.ConfigError` when it cannot be)."""
    security: KafkaSecurity = settings.kafka.security_for(client)
    options: dict[str, Any] = {"security_protocol": security.security_protocol}
    for name in _PASSED:
        value = getattr(security, name)
        if value is not None:
            options[name] = value
    for name in ("sasl_plain_password", "ssl_password"):
        secret = getattr(security, name)
        if secret is not None:
            options[name] = secret.get_secret_value()
    if not security.ssl_check_hostname:
        options["ssl_check_hostname"] = False
    if security.sasl_mechanism == "OAUTHBEARER":
        options["sasl_oauth_token_provider"] = token_provider(
            security, setting_prefix(settings, client)
        )
    return options


def check_client_files(settings: Settings, clients: tuple[KafkaClient, ...]) -> None:
    """Before any connection, stop with :class:`~sidecar.errors.ConfigError` on security
    settings of the ``clients`` that cannot work (a SASL mechanism without its
    credentials, see :func:`~sidecar.config.kafka.security_problem`) and read every file
    they name (see :func:`~sidecar.runtime.kafka_security.check_files`)."""
    for client in clients:
        security, where = settings.kafka.security_for(client), setting_prefix(settings, client)
        problem = security_problem(security, where)
        if problem is not None:
            raise ConfigError(problem)
        check_files(security, where)


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
        **security_config(settings, "consumer"),
    }


def review_consumer_config(settings: Settings, group: str) -> dict[str, Any]:
    """KafkaConsumer settings of the review topic's consumer: its own group and client ID,
    its own security when ``kafka.client_overrides.review`` says so."""
    return {
        "bootstrap_servers": _bootstrap(settings),
        "group_id": group,
        "client_id": "citewatch-review",
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        **security_config(settings, "review"),
    }


def producer_config(settings: Settings) -> dict[str, Any]:
    """KafkaProducer settings of the evaluations and dead-letter producer (acks=all)."""
    kafka, producer = settings.kafka, settings.producer
    return _producer_config(
        bootstrap_servers=kafka.bootstrap_servers,
        security=security_config(settings, "producer"),
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
