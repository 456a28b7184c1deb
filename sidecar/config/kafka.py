"""The Kafka source and sinks (``kafka.*``)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, field_validator

from sidecar._userinfo import mask_userinfo
from sidecar.config._section import Section

__all__ = ["KafkaSettings"]


class KafkaSettings(Section):
    """The Kafka source and sinks. Security options pass straight to kafka-python. What
    every runtime shares (the shutdown deadline, the replay window) is in ``runtime.*``."""

    bootstrap_servers: str = "localhost:9092"
    """Comma-separated host:port list."""
    input_topic: str = "rag.traces"
    """Topic the RAG application publishes traces to."""
    group_id: str = "citewatch"
    """Consumer group."""
    evaluations_topic: str = "rag.citation.evaluations"
    """Where evaluation records go, keyed by trace_id."""
    dead_letter_topic: str = "rag.traces.DLT"
    """Where records that cannot be evaluated go, unchanged, with headers saying why."""
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    """kafka-python security_protocol."""
    sasl_mechanism: str | None = None
    """kafka-python sasl_mechanism, e.g. PLAIN, SCRAM-SHA-512."""
    sasl_plain_username: str | None = None
    """SASL user name."""
    sasl_plain_password: SecretStr | None = None
    """SASL password (masked by `citewatch config show`)."""
    ssl_cafile: str | None = None
    """CA bundle for SSL."""
    ssl_certfile: str | None = None
    """Client certificate for SSL."""
    ssl_keyfile: str | None = None
    """Client key for SSL."""
    max_in_flight: int = Field(default=1000, gt=0)
    """Records held uncommitted before partitions are paused (backpressure)."""
    max_in_flight_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    """Bytes of record values (and keys) handed to evaluation and not yet finished before
    partitions are paused (backpressure); they resume below half. A record in evaluation
    holds several times its size once decoded, redacted and judged."""
    lag_interval_seconds: float = Field(default=20.0, ge=1.0, le=300.0)
    """How often consumer lag is sampled."""
    auto_offset_reset: Literal["earliest", "latest"] = "earliest"
    """Where a new consumer group starts reading."""
    session_timeout_ms: int = Field(default=10_000, ge=1_000, le=300_000)
    """How long the group waits for a silent member before moving its partitions."""
    poll_timeout_ms: int = Field(default=100, ge=1, le=5_000)
    """Longest single poll(); short so shutdown and backpressure react quickly."""
    max_poll_records: int = Field(default=500, ge=1, le=100_000)
    """Records returned by one poll()."""
    commit_interval_seconds: float = Field(default=1.0, gt=0.0, le=60.0)
    """How often finished offsets are committed."""
    max_request_bytes: int = Field(default=16_777_216, gt=0)
    """Largest record the producer sends (a dead letter keeps the original value)."""
    rejoin_after_seconds: float = Field(default=120.0, ge=5.0, le=3600.0)
    """Rejoin the group when a rebalance has not handed out an assignment (even an empty
    one) for this long: kafka-python can leave a join stuck after the leader's sync."""
    startup_wait_seconds: float = Field(default=30.0, gt=0.0, le=3600.0)
    """How long start-up waits for an unreachable cluster before exiting 2."""
    wait_for_kafka: bool = False
    """Keep waiting for an unreachable cluster at start-up instead of exiting 2."""

    @field_validator("bootstrap_servers")
    @classmethod
    def _bootstrap_addresses(cls, value: str) -> str:
        for address in value.split(","):
            problem = _address_problem(address.strip())
            if problem is not None:
                raise ValueError(f"{mask_userinfo(address.strip())!r} {problem}")
        return value


_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$")


def _address_problem(address: str) -> str | None:
    """Why ``address`` is not a host[:port] a Kafka client can connect to, or None (no port
    means 9092, as kafka-python reads it)."""
    if _HOST.match(address) and not address.startswith("["):
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        return "is not host:port (e.g. kafka-1:9092)"
    if not _HOST.match(host):
        return "has no valid host name or address before the port"
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return f"has port {port!r}; a port is a number from 1 to 65535"
    return None
