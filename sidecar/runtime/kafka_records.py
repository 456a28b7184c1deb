"""The worker-thread side of the Kafka consumer: one record from its value to an
acknowledged outcome.

:class:`KafkaRecordHandler` runs on the worker's event loop (`runtime/worker.py`). For each
record it evaluates through the record processor, produces the evaluation record or a dead
letter, waits for the broker's ack (retrying what can be retried), and reports the offset
as done to the poll thread through the event queue; the poll thread (`runtime/consumer.py`)
commits. Nothing here touches the consumer client.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from opentelemetry import trace as otel_trace
from opentelemetry.trace import NoOpTracer, Status, StatusCode, Tracer

from exporters.kafka import DeadLetter, KafkaEmitter
from exporters.prometheus import UNKNOWN_APP, CitewatchMetrics
from exporters.tracing import consume_span, record_evaluation
from schemas import EvaluationRecord, Trace
from sidecar.judge.resilience import Backoff
from sidecar.runtime.dead_letters import LetterContent
from sidecar.runtime.guard import Evaluated, Failure, Skipped, where
from sidecar.runtime.kafka_events import Done, RunnerEvents
from sidecar.runtime.records import RecordProcessor
from sidecar.runtime.slow import SlowRecords
from sidecar.runtime.worker import LoopInbox, wait_kafka_future

if TYPE_CHECKING:
    from sidecar.review.sink import ReviewSink

__all__ = ["SEND_BACKOFF_MAX", "SEND_BACKOFF_START", "KafkaRecordHandler", "WorkItem"]

logger = logging.getLogger(__name__)

SEND_BACKOFF_START = 0.5
"""Ceiling of the first wait before a produce is retried (the wait is jittered)."""
SEND_BACKOFF_MAX = 10.0
"""Ceiling of any wait between produce retries."""


class WorkItem(NamedTuple):
    """One consumed record on its way through the pipeline (a NamedTuple: the poll thread
    makes one per record, and a tuple is built in C where a frozen dataclass sets each
    field through ``object.__setattr__``)."""

    tp: Hashable
    topic: str
    partition: int
    offset: int
    epoch: int
    timestamp: int | None
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


class KafkaRecordHandler:
    """Processes records on the worker loop and tells the poll thread which are done."""

    def __init__(
        self,
        *,
        emitter: KafkaEmitter,
        records: RecordProcessor,
        metrics: CitewatchMetrics,
        slow: SlowRecords,
        events: RunnerEvents,
        stopping: threading.Event,
        group_id: str,
        tracer: Tracer | None = None,
        backoff: Backoff | None = None,
        review: ReviewSink | None = None,
        letters: LetterContent | None = None,
    ) -> None:
        self.emitter = emitter
        self.records = records
        self.metrics = metrics
        self.slow = slow
        self.events = events
        self._stopping = stopping
        self.group_id = group_id
        # Nothing exports spans through a no-op tracer: skip the span work per record.
        self.tracer = None if tracer is None or isinstance(tracer, NoOpTracer) else tracer
        self.backoff = backoff or Backoff(
            base_seconds=SEND_BACKOFF_START, max_seconds=SEND_BACKOFF_MAX
        )
        self.review = review  # routed claims: stored, and produced before the commit
        self.letters = letters or LetterContent("raw")  # dead_letters.payload
        self._inbox: LoopInbox | None = None  # made on the worker loop, at the first send
        self._finished_items: set[tuple[Hashable, int, int]] = set()  # worker loop only
        # Trace IDs in evaluation, with the copies waiting for each (worker loop only).
        self._in_flight_ids: dict[str, list[asyncio.Future[None]] | None] = {}

    async def process(self, item: WorkItem) -> None:
        """Evaluate one record and emit its outcome; its offset then finishes."""
        if self.tracer is None:
            await self._process_record(item)
            return
        # The CONSUMER span is current in this task, so judge calls become its children.
        with consume_span(
            self.tracer,
            topic=item.topic,
            partition=item.partition,
            offset=item.offset,
            consumer_group=self.group_id,
            headers=item.headers,
        ):
            await self._process_record(item)

    async def _process_record(self, item: WorkItem) -> None:
        """The runtime boundary of one record: whatever happens, its offset finishes
        (evaluated, dead-lettered, or a duplicate), unless the runner stops first."""
        token = self.slow.begin(f"{item.topic}[{item.partition}]@{item.offset}")
        try:
            await self._process_unguarded(item, token)
        except asyncio.CancelledError:
            raise
        except _Abandoned:
            logger.info(
                "%s[%d]@%d left uncommitted for replay", item.topic, item.partition, item.offset
            )
        except Exception as exc:
            # A failure outside the guarded steps (metrics, tracing, a sink): never a poison
            # pill. Dead-letter the record unless its outcome was already acknowledged.
            logger.error(
                "record %s[%d]@%d raised %s at %s",
                item.topic,
                item.partition,
                item.offset,
                type(exc).__name__,
                where(exc),
            )
            if not self._is_done(item):
                try:
                    await self._dead_letter(
                        item, Failure.of(exc, reason="runtime_error", during="processing")
                    )
                except _Abandoned:
                    pass
        finally:
            self._finished_items.discard((item.tp, item.offset, item.epoch))
            self.slow.end(token)

    async def _process_unguarded(self, item: WorkItem, token: int) -> None:
        # Only the trace's ID and app outlive decoding: the trace itself is not held while
        # the record waits for its ack (fewer objects for the collector to walk per record).
        decoded: tuple[str, str] | None = None
        admitted = False

        async def wait_for(trace: Trace) -> None:
            nonlocal decoded
            decoded = (trace.trace_id, trace.app)
            # A copy of this trace already in flight (a replay on another partition, a
            # producer retry): wait for it, so the trace is evaluated and emitted once.
            while trace.trace_id in self._in_flight_ids:
                waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                waiters = self._in_flight_ids[trace.trace_id]
                if waiters is None:
                    waiters = self._in_flight_ids[trace.trace_id] = []
                waiters.append(waiter)
                await waiter

        def on_admit(trace: Trace) -> None:
            nonlocal admitted
            # The list of the copies waiting is made when one comes: most never do.
            self._in_flight_ids[trace.trace_id] = None
            admitted = True

        try:
            value = item.value if item.value is not None else b""
            outcome = await self.records.evaluate(
                value, token=token, wait_for=wait_for, on_admit=on_admit
            )
            if isinstance(outcome, Skipped):
                self._done(item)
            elif isinstance(outcome, Failure):
                app = decoded[1] if decoded is not None else UNKNOWN_APP
                await self._dead_letter(item, outcome, app=app)
            else:
                await self._emit(item, outcome)
        finally:
            if admitted and decoded is not None:
                for waiter in self._in_flight_ids.pop(decoded[0]) or ():
                    if not waiter.done():
                        waiter.set_result(None)

    async def _emit(self, item: WorkItem, outcome: Evaluated) -> None:
        record = outcome.record
        emit_started = time.perf_counter()
        refused = await self._send(
            lambda: self.emitter.send_evaluation(record, payload=outcome.payload), "evaluation"
        )
        if refused is not None:
            # The broker will never take this record (too large, say): set the trace aside.
            await self._dead_letter(
                item, Failure.of(refused, reason="emit_error", during="emitting"), app=record.app
            )
            return
        if self.review is not None:
            await self._send_review(record)
        self._done(item)
        emit_seconds = time.perf_counter() - emit_started
        if self.tracer is not None:
            record_evaluation(otel_trace.get_current_span(), record)
        self.records.emitted(record, emit_seconds=emit_seconds, new=self.records.is_new(record))

    async def _send_review(self, record: EvaluationRecord) -> None:
        """The record's routed claims to the review store and topic, acknowledged before
        its offset may be committed (an item refused for good is logged and skipped)."""
        assert self.review is not None
        review = self.review
        for routed in review.take(record):
            if review.publishes:
                await self._send(functools.partial(review.publish, routed), "review item")

    async def _dead_letter(self, item: WorkItem, failure: Failure, app: str = UNKNOWN_APP) -> None:
        letters = self.letters
        letter = DeadLetter(
            topic=item.topic,
            partition=item.partition,
            offset=item.offset,
            timestamp=item.timestamp,
            key=letters.key(item.key),
            value=letters.value(item.value),
            headers=letters.headers(item.headers),
            error_class=failure.error_class,
            error_message=failure.message,
            reason=failure.reason,
            payload=letters.payload,
        )
        refused = await self._send(lambda: self.emitter.send_dead_letter(letter), "dead letter")
        if refused is not None:
            # Even the dead letter is refused (a value over the producer's limit): send its
            # headers alone, so the record is still accounted for and the partition moves on.
            logger.warning(
                "dead letter of %s[%d]@%d refused (%s); sending it without its value",
                item.topic,
                item.partition,
                item.offset,
                type(refused).__name__,
            )
            bare = dataclasses.replace(letter, value=None, headers=())
            again = await self._send(lambda: self.emitter.send_dead_letter(bare), "dead letter")
            if again is not None:
                logger.error(
                    "dead letter of %s[%d]@%d refused twice (%s); skipped",
                    item.topic,
                    item.partition,
                    item.offset,
                    type(again).__name__,
                )
        self._done(item)
        logger.debug(
            "dead-lettered %s[%d]@%d: %s", item.topic, item.partition, item.offset, failure.reason
        )
        self.records.dead_lettered(failure, app)
        if self.tracer is not None:
            span = otel_trace.get_current_span()
            span.set_attribute("error.type", failure.reason)
            span.set_status(Status(StatusCode.ERROR))
        self.metrics.mark_processed(time.time())

    async def _send(self, send: Callable[[], Any], what: str) -> BaseException | None:
        """Send and wait for the ack, retrying retriable failures with backoff until it
        succeeds. Returns the error when the producer refuses the record for good (it will
        never succeed: too large, not serialisable); raises :class:`_Abandoned` when the
        runner stops first (the record stays uncommitted and is replayed later)."""
        delays: Iterator[float] | None = None  # made at the first retry: most sends need none
        while True:
            error = await self._send_once(send)
            if error is None:
                return None
            if _refused_for_good(error):
                cause = error.cause if isinstance(error, _Refused) else error
                logger.warning("%s refused by the producer (%s)", what, type(cause).__name__)
                return cause
            if self._stopping.is_set():
                raise _Abandoned()
            if delays is None:
                delays = self.backoff.delays()
            delay = next(delays)
            logger.warning(
                "%s not acknowledged (%s); retrying in %.1fs", what, type(error).__name__, delay
            )
            await asyncio.sleep(delay)

    async def _send_once(self, send: Callable[[], Any]) -> BaseException | None:
        try:
            future = send()
        except Exception as exc:
            # Raised before reaching the producer's queue: too large, not serialisable. Only
            # a Kafka error that says it is retriable (metadata not there yet) is retried.
            return exc if getattr(exc, "retriable", False) else _Refused(exc)
        if self._inbox is None:
            self._inbox = LoopInbox(asyncio.get_running_loop())
        try:
            await wait_kafka_future(future, self._inbox)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return exc
        return None

    def _done(self, item: WorkItem) -> None:
        self._finished_items.add((item.tp, item.offset, item.epoch))
        self.events.put(Done(item.tp, item.offset, item.epoch))

    def _is_done(self, item: WorkItem) -> bool:
        return (item.tp, item.offset, item.epoch) in self._finished_items


class _Abandoned(Exception):
    """The runner stopped while an outcome waited for its ack: left for replay."""


@functools.cache
def _record_errors() -> tuple[type[BaseException], ...]:
    """kafka-python's errors about the record itself: too large, invalid, corrupt (imported
    on the first failed send; the client is loaded by then)."""
    from kafka.errors import CorruptRecordError, InvalidRecordError, MessageSizeTooLargeError

    return (MessageSizeTooLargeError, InvalidRecordError, CorruptRecordError)


class _Refused(Exception):
    """send() itself raised a non-retriable error (wraps it, keeps its class name)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__} raised by send()")
        self.cause = cause


def _refused_for_good(exc: BaseException) -> bool:
    """Errors about the record itself, which no retry can fix. Anything else (broker away,
    leader moving, authorisation) is waited out: the offset stays uncommitted meanwhile."""
    return isinstance(exc, (_Refused, *_record_errors()))
