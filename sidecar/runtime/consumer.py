"""The Kafka runtime of `citewatch run`: consume traces at least once, evaluate, emit, commit.

Threads and who owns what:

    poll thread (the caller of run())   consumer: poll, pause/resume, commit, end_offsets;
                                        the OffsetTracker; applies events from the queue
                                        (this module: KafkaRunner)
    worker thread (AsyncWorker)         decode, pipeline.evaluate (the judge), produce
                                        (runtime/kafka_records.py: KafkaRecordHandler)
    producer IO thread                  acks -> worker loop -> completion events
    consumer IO thread                  rebalance callbacks -> events (never a commit there)

A record's offset is finished once its evaluation record (or dead letter) is acknowledged;
the poll thread commits offset+1 of the highest contiguous finished record per partition,
with explicit offsets. Backpressure pauses partitions while too much is in flight, and the
poll thread keeps calling poll() with a short timeout so the group never drops it.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import Tracer

from exporters.kafka import KafkaEmitter
from exporters.prometheus import CitewatchMetrics
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.pipeline import Pipeline
from sidecar.runtime.backpressure import Backpressure
from sidecar.runtime.dead_letters import letter_content
from sidecar.runtime.kafka_events import (
    Consumer,
    Done,
    RebalanceEvents,
    Revoked,
    RunnerEvents,
    kafka_listener,
)
from sidecar.runtime.kafka_lag import sample_lag
from sidecar.runtime.kafka_records import KafkaRecordHandler, WorkItem
from sidecar.runtime.offsets import OffsetTracker
from sidecar.runtime.records import RecordProcessor
from sidecar.runtime.slow import SlowRecords
from sidecar.runtime.worker import AsyncWorker

if TYPE_CHECKING:
    from sidecar.review.sink import ReviewSink

__all__ = [
    "Consumer",
    "KafkaRunner",
    "RebalanceEvents",
    "WorkItem",
    "kafka_listener",
]

logger = logging.getLogger(__name__)

RETRY_PAUSE_SECONDS = 1.0
"""Pause of the poll loop after a retriable Kafka error (broker restarting, unreachable)."""


class KafkaRunner:
    """Consumes the input topic until ``stop`` is set, then shuts down within the deadline."""

    def __init__(
        self,
        *,
        settings: Settings,
        consumer: Consumer,
        emitter: KafkaEmitter,
        pipeline: Pipeline,
        metrics: CitewatchMetrics,
        offset_and_metadata: Callable[[int], Any] | None = None,
        listener: Callable[[RunnerEvents], Any] = RebalanceEvents,
        clock: Callable[[], float] = time.monotonic,
        tracer: Tracer | None = None,
        review: ReviewSink | None = None,
    ) -> None:
        self.settings = settings
        self.tracer = tracer
        self.kafka = settings.kafka
        self.consumer = consumer
        self.emitter = emitter
        self.pipeline = pipeline
        self.metrics = metrics
        self.clock = clock
        self._oam = offset_and_metadata or _kafka_offset_and_metadata
        self._listener = listener
        self.tracker = OffsetTracker()
        self.slow = SlowRecords(
            threshold_seconds=settings.runtime.slow_record_seconds,
            on_slow=metrics.slow_record,
            on_change=metrics.set_slow_in_progress,
            clock=clock,
        )
        self.records = RecordProcessor(
            pipeline=pipeline,
            limits=DecodeLimits.from_settings(settings),
            metrics=metrics,
            slow=self.slow,
            dedup_window=settings.runtime.dedup_window,
            dedup_max_bytes=settings.runtime.dedup_max_bytes,
        )
        self.worker = AsyncWorker()
        self.events: RunnerEvents = queue.SimpleQueue()
        self.assigned: set[Any] = set()
        self._resume_at: dict[Any, int] = {}  # first unfinished offset of revoked partitions
        self.flow = Backpressure(
            max_records=self.kafka.max_in_flight, max_bytes=self.kafka.max_in_flight_bytes
        )
        self._stopping = threading.Event()
        self.handler = KafkaRecordHandler(
            emitter=emitter,
            records=self.records,
            metrics=metrics,
            slow=self.slow,
            events=self.events,
            stopping=self._stopping,
            group_id=self.kafka.group_id,
            tracer=tracer,
            review=review,
            letters=letter_content(settings, pipeline, sink="kafka"),
        )
        self._last_commit = 0.0
        self._last_lag = 0.0
        self._last_poll = clock()
        self._joining_since: float | None = None  # set at subscribe and revoke, cleared at assign
        self.finished = 0

    @property
    def held_bytes(self) -> int:
        """Bytes of the records handed to the worker and not yet finished."""
        return self.flow.bytes

    # -- readiness -------------------------------------------------------------------------

    def ready(self) -> bool:
        """Partitions are assigned, the poll loop is turning and no record is slow."""
        stalled = self.clock() - self._last_poll > max(30.0, self.kafka.session_timeout_ms / 1000)
        return (
            bool(self.assigned)
            and not stalled
            and not self._stopping.is_set()
            and not self.slow.any_slow()
        )

    def live(self) -> bool:
        """The worker's loop has beaten within runtime.worker_stuck_seconds (liveness)."""
        return self.worker.stuck_for() < self.settings.runtime.worker_stuck_seconds

    # -- the loop --------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Poll, hand records to the worker, commit, until ``stop`` is set; then shut down."""
        self.worker.start()
        self.slow.start()
        self._subscribe()
        logger.info("consuming %s as group %s", self.kafka.input_topic, self.kafka.group_id)
        try:
            while not stop.is_set():
                try:
                    self.step()
                except Exception as exc:
                    # A broker restart surfaces as retriable errors from poll(): wait and go
                    # on; anything else is a bug and ends the run (offsets stay committed).
                    if not getattr(exc, "retriable", False):
                        raise
                    logger.warning(
                        "Kafka unavailable (%s); retrying in %.1fs",
                        type(exc).__name__,
                        RETRY_PAUSE_SECONDS,
                    )
                    stop.wait(RETRY_PAUSE_SECONDS)
        finally:
            self.shutdown()

    def _subscribe(self) -> None:
        self.consumer.subscribe([self.kafka.input_topic], listener=self._listener(self.events))
        self._joining_since = self.clock()

    def _rejoin_if_stuck(self) -> None:
        """A rebalance that never hands out an assignment leaves the member idle forever
        (seen with kafka-python 3.0 when topic metadata changed during the leader's sync):
        leave and join again. An idle member with an empty assignment is not stuck."""
        if self._joining_since is None:
            return
        waited = self.clock() - self._joining_since
        if waited < self.kafka.rejoin_after_seconds:
            return
        logger.warning(
            "no partition assignment for %.0fs; rejoining group %s", waited, self.kafka.group_id
        )
        self.consumer.unsubscribe()
        self._subscribe()

    def step(self) -> None:
        """One turn of the poll loop."""
        self._apply_events()
        self._rejoin_if_stuck()
        batch = self.consumer.poll(
            timeout_ms=self.kafka.poll_timeout_ms, max_records=self.kafka.max_poll_records
        )
        self._last_poll = self.clock()
        self._apply_events()
        work = []
        for tp, records in batch.items():
            if tp not in self.assigned:
                # Revoked while poll() was returning: if the partition comes back with its
                # position kept, these records must be fetched again.
                if records:
                    first = records[0].offset
                    self._resume_at[tp] = min(self._resume_at.get(tp, first), first)
                continue
            work.append((tp, [self._factory(self._item(tp, record)) for record in records]))
        # The whole poll batch is one hand-off to the worker (one wakeup of its loop).
        self.worker.submit_all(work)
        self._apply_events()
        self._maybe_commit()
        self._backpressure()
        self._maybe_sample_lag()

    def _item(self, tp: Any, record: Any) -> WorkItem:
        epoch = self.tracker.start(tp, record.offset)
        self.flow.hold(tp, record.offset, len(record.value or b"") + len(record.key or b""))
        headers = tuple((name, value) for name, value in (record.headers or ()))
        timestamp = record.timestamp if getattr(record, "timestamp", -1) not in (None, -1) else None
        return WorkItem(
            tp=tp,
            topic=record.topic,
            partition=record.partition,
            offset=record.offset,
            epoch=epoch,
            timestamp=timestamp,
            key=record.key,
            value=record.value,
            headers=headers,
        )

    def _factory(self, item: WorkItem) -> Callable[[], Any]:
        return lambda: self.handler.process(item)

    # -- events from other threads ---------------------------------------------------------

    def _apply_events(self) -> None:
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                return
            if isinstance(event, Done):
                self.flow.release(event.tp, event.offset)
                if self.tracker.finish(event.tp, event.offset, event.epoch):
                    self.finished += 1
            elif isinstance(event, Revoked):
                tps = event.partitions
                logger.info("partitions revoked: %s", sorted(map(str, tps)))
                self.assigned -= tps
                self._resume_at.update(self.tracker.drop(tps))
                self.flow.release_partitions(tps)
                self._joining_since = self.clock()
                self.worker.cancel(tps)
            else:
                self._assigned(event.partitions)

    def _assigned(self, tps: frozenset[Any]) -> None:
        logger.info("partitions assigned: %s", sorted(map(str, tps)))
        self.assigned |= tps
        self._joining_since = None
        # kafka-python 3.x keeps the fetch position and the paused flag of a partition that
        # is in both the old and the new assignment. Its cancelled in-flight records would be
        # skipped, leaving a gap no commit can pass: seek back to the first unfinished one.
        for tp in tps:
            offset = self._resume_at.pop(tp, None)
            if offset is not None:
                self.consumer.seek(tp, offset)
                logger.info("replaying %s from offset %d", tp, offset)
        self._resume_at.clear()  # partitions that went elsewhere resume from their commit
        paused = self.consumer.paused()
        if paused:
            self.consumer.resume(*paused)
        self.flow.paused = False

    # -- commits, backpressure (runtime/backpressure.py), lag (runtime/kafka_lag.py) ------

    def commit(self) -> None:
        """Commit the positions that moved, for partitions still assigned."""
        positions = {
            tp: pos for tp, pos in self.tracker.committable().items() if tp in self.assigned
        }
        if not positions:
            return
        try:
            self.consumer.commit(offsets={tp: self._oam(pos) for tp, pos in positions.items()})
        except Exception as exc:  # rebalance in progress, broker away: retried next turn
            logger.warning("offset commit failed (%s); will retry", type(exc).__name__)
            return
        self.tracker.mark_committed(positions)
        logger.debug("committed %s", positions)

    def _maybe_commit(self) -> None:
        now = self.clock()
        if now - self._last_commit >= self.kafka.commit_interval_seconds:
            self._last_commit = now
            self.commit()

    def _backpressure(self) -> None:
        self.flow.apply(self.consumer, self.assigned, self.tracker.in_flight())

    def _maybe_sample_lag(self) -> None:
        now = self.clock()
        if now - self._last_lag < self.kafka.lag_interval_seconds or not self.assigned:
            return
        self._last_lag = now
        self.sample_lag()

    def sample_lag(self) -> None:
        """Set the lag gauge of every assigned partition: end offset minus committed."""
        sample_lag(self.consumer, self.assigned, self.metrics, self.clock)

    # -- shutdown --------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop polling, let in-flight work finish, commit, flush and close, all within
        ``runtime.shutdown_deadline_seconds``: a record still running then (a slow judge, a
        slow stage) is abandoned uncommitted and replayed by the next owner."""
        self._stopping.set()
        total = self.settings.runtime.shutdown_deadline_seconds
        deadline = self.clock() + total
        # Keep a share of the deadline for commit, flush, close and the process's own exit.
        reserve = min(5.0, total / 3)
        if self.assigned:
            self.consumer.pause(*self.assigned)
        logger.info("shutting down: %d records in flight", self.tracker.in_flight())
        aclose = getattr(self.pipeline.judge, "aclose", None)
        if aclose is not None:
            # Judge calls get what is left of the deadline, then give up (left for replay).
            asyncio.run_coroutine_threadsafe(
                aclose(max(0.1, total - reserve - 0.5)), self.worker.loop
            )
        while self.tracker.in_flight() > 0 and self.clock() < deadline - reserve:
            # Keep the group membership alive while waiting: paused poll() returns nothing.
            try:
                self.consumer.poll(timeout_ms=100, max_records=1)
            except Exception as exc:  # broker away: keep waiting for the worker anyway
                logger.debug("poll during shutdown failed (%s)", type(exc).__name__)
                time.sleep(0.1)
            self._apply_events()
        self._apply_events()
        self.commit()
        abandoned = self.tracker.in_flight()
        if abandoned:
            logger.warning("deadline reached: %d records left uncommitted for replay", abandoned)
        self.slow.stop()
        # A stage that never yields cannot be cancelled; its daemon thread ends with us.
        self.worker.stop(timeout=0.2)
        try:
            self.emitter.flush(timeout=max(0.1, (deadline - self.clock()) / 2))
        except Exception as exc:
            logger.warning("producer flush failed (%s)", type(exc).__name__)
        try:
            self.consumer.close(autocommit=False)
        finally:
            self.emitter.close(timeout=max(0.1, deadline - self.clock()))
        logger.info("stopped after %d records", self.finished)


def _kafka_offset_and_metadata(position: int) -> Any:
    from kafka.structs import OffsetAndMetadata

    return OffsetAndMetadata(position, "", -1)
