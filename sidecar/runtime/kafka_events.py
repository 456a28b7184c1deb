"""What the Kafka runner's poll thread is told by the other threads, and the consumer it
drives.

The poll thread owns the consumer; the other threads only queue events for it
(:data:`RunnerEvent`): the consumer's IO thread a partition set revoked, lost or assigned
(:class:`RebalanceEvents`, its rebalance listener), the worker a record finished
(:class:`Done`, once its evaluation record or dead letter is acknowledged).
"""

from __future__ import annotations

import queue
from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol

__all__ = [
    "Assigned",
    "Consumer",
    "Done",
    "RebalanceEvents",
    "Revoked",
    "RunnerEvent",
    "RunnerEvents",
    "kafka_listener",
]


class Done(NamedTuple):
    """A record finished: its evaluation record or dead letter was acknowledged."""

    tp: Any
    offset: int
    epoch: int


class Revoked(NamedTuple):
    """Partitions revoked or lost: their in-flight work is dropped."""

    partitions: frozenset[Any]


class Assigned(NamedTuple):
    """Partitions assigned to this member."""

    partitions: frozenset[Any]


RunnerEvent = Done | Revoked | Assigned
"""An event for the poll thread."""

RunnerEvents = queue.SimpleQueue[RunnerEvent]
"""The queue the other threads put events on and the poll thread drains."""


class Consumer(Protocol):
    """The part of kafka-python's KafkaConsumer the runner uses (fakes implement it too)."""

    def subscribe(self, topics: list[str], listener: Any = None) -> None: ...
    def unsubscribe(self) -> None: ...
    def poll(self, timeout_ms: int = 0, max_records: int | None = None) -> dict[Any, list[Any]]: ...
    def commit(self, offsets: dict[Any, Any] | None = None) -> None: ...
    def pause(self, *partitions: Any) -> None: ...
    def resume(self, *partitions: Any) -> None: ...
    def paused(self) -> set[Any]: ...
    def seek(self, partition: Any, offset: int) -> None: ...
    def assignment(self) -> set[Any]: ...
    def end_offsets(
        self,
        partitions: list[Any],
        timeout_ms: int | None = None,
    ) -> dict[Any, int]: ...
    def committed(self, partition: Any, timeout_ms: int | None = None) -> int | None: ...
    def close(self, autocommit: bool = True) -> None: ...


class RebalanceEvents:
    """A kafka-python 3.x rebalance listener that only queues events.

    Its methods run on the consumer's IO thread, which also drives heartbeats: they must
    return at once and must not call the consumer (a blocking commit there would stall the
    very loop that has to complete it). The poll thread applies the events: it drops the
    in-flight work of revoked or lost partitions; their uncommitted records are replayed by
    the next owner, which is what at-least-once means.
    """

    def __init__(self, events: RunnerEvents) -> None:
        self._events = events

    def on_partitions_revoked(self, revoked: Iterable[Any]) -> None:
        self._events.put(Revoked(frozenset(revoked)))

    def on_partitions_lost(self, lost: Iterable[Any]) -> None:
        self._events.put(Revoked(frozenset(lost)))

    def on_partitions_assigned(self, assigned: Iterable[Any]) -> None:
        self._events.put(Assigned(frozenset(assigned)))


def kafka_listener(events: RunnerEvents) -> RebalanceEvents:
    """A :class:`RebalanceEvents` that kafka-python accepts (it checks the base class)."""
    from kafka import ConsumerRebalanceListener

    class _Listener(RebalanceEvents, ConsumerRebalanceListener):  # type: ignore[misc]
        pass

    return _Listener(events)
