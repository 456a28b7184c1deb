"""Kafka sinks: the evaluations topic and the dead-letter topic.

Evaluation records are keyed by trace_id (a compacted topic keeps one per trace). Dead
letters carry the source record's key, value and headers (unchanged, or redacted when the
runtime says so: the citewatch.dlt.payload header tells which) and add headers saying where
the record came from and why it could not be evaluated. Both return the producer's
future: the caller commits the source offset only once it has succeeded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from schemas import EvaluationRecord

__all__ = [
    "DLT_HEADER_PREFIX",
    "DeadLetter",
    "KafkaEmitter",
    "Producer",
    "dead_letter_headers",
    "producer_config",
]

logger = logging.getLogger(__name__)

DLT_HEADER_PREFIX = "citewatch.dlt."
"""Every header a dead letter gains starts with this."""

MAX_ERROR_MESSAGE = 1000


class Producer(Protocol):
    """The part of kafka-python's KafkaProducer the sinks use."""

    def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        headers: list[tuple[str, bytes]] | None = None,
        partition: int | None = None,
        timestamp_ms: int | None = None,
    ) -> Any:
        """Queue a record; returns a future with add_callback/add_errback."""
        ...

    def flush(self, timeout: float | None = None) -> None:
        """Wait until queued records are sent."""
        ...

    def close(self, timeout: float | None = None) -> None:
        """Flush and release the connections."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class DeadLetter:
    """The source record of a dead letter and the reason it could not be evaluated."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None
    key: bytes | None
    value: bytes | None
    headers: Sequence[tuple[str, bytes | None]] = ()
    error_class: str
    error_message: str
    reason: str
    payload: str = "raw"
    """How the key, value and headers are carried: raw (as read) or redacted."""


def dead_letter_headers(letter: DeadLetter, *, group_id: str) -> list[tuple[str, bytes]]:
    """The source record's headers followed by the citewatch.dlt.* headers."""
    added = {
        "original.topic": letter.topic,
        "original.partition": str(letter.partition),
        "original.offset": str(letter.offset),
        "original.timestamp": "" if letter.timestamp is None else str(letter.timestamp),
        "consumer.group": group_id,
        "error.class": letter.error_class,
        "error.reason": letter.reason,
        "error.message": letter.error_message[:MAX_ERROR_MESSAGE],
        "payload": letter.payload,
    }
    kept = [
        (name, value if value is not None else b"")
        for name, value in letter.headers
        if not name.startswith(DLT_HEADER_PREFIX)
    ]
    return kept + [
        (DLT_HEADER_PREFIX + name, value.encode("utf-8")) for name, value in added.items()
    ]


class KafkaEmitter:
    """Sends evaluation records and dead letters through one injected producer."""

    def __init__(
        self,
        producer: Producer,
        *,
        evaluations_topic: str,
        dead_letter_topic: str,
        group_id: str,
        serialize: Callable[[EvaluationRecord], bytes] | None = None,
    ) -> None:
        self.producer = producer
        self.evaluations_topic = evaluations_topic
        self.dead_letter_topic = dead_letter_topic
        self.group_id = group_id
        self._serialize = serialize or (lambda record: record.model_dump_json().encode("utf-8"))

    def send_evaluation(self, record: EvaluationRecord, *, payload: bytes | None = None) -> Any:
        """Produce ``record`` keyed by its trace_id; returns the producer's future.

        ``payload`` is the record already serialised (the runtime serialises inside its
        failure boundary); without it the emitter's serialiser is used, and whatever it
        raises propagates before anything is queued.
        """
        return self.producer.send(
            self.evaluations_topic,
            value=payload if payload is not None else self._serialize(record),
            key=record.trace_id.encode("utf-8"),
        )

    def send_dead_letter(self, letter: DeadLetter) -> Any:
        """Produce the record (as the letter carries it) to the dead-letter topic; returns
        the future."""
        return self.producer.send(
            self.dead_letter_topic,
            value=letter.value,
            key=letter.key,
            headers=dead_letter_headers(letter, group_id=self.group_id),
        )

    def flush(self, timeout: float | None = None) -> None:
        """Wait for queued records to be acknowledged."""
        self.producer.flush(timeout=timeout)

    def close(self, timeout: float | None = None) -> None:
        """Flush and close the producer."""
        self.producer.close(timeout=timeout)


def producer_config(
    *,
    bootstrap_servers: str,
    security: dict[str, Any],
    max_request_size: int,
    linger_ms: int = 20,
    batch_size: int = 262_144,
    compression_type: str = "none",
) -> dict[str, Any]:
    """kafka-python KafkaProducer settings for durable, ordered sends.

    ``linger_ms`` and ``batch_size`` decide how many records share a produce request: each
    new batch wakes kafka-python's sender thread, which competes with the evaluating thread
    for the interpreter lock, so a batch that fills for tens of milliseconds costs far less
    per record than one sent at once (measured in docs/operations.md, Scaling).
    """
    return {
        "bootstrap_servers": bootstrap_servers.split(","),
        "acks": "all",
        "linger_ms": linger_ms,
        "batch_size": batch_size,
        "compression_type": None if compression_type == "none" else compression_type,
        "max_request_size": max_request_size,
        "client_id": "citewatch",
        **security,
    }
