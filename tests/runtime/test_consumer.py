"""The Kafka poll loop against an in-memory consumer and producer (no broker)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from prometheus_client import CollectorRegistry

from exporters.kafka import KafkaEmitter
from exporters.prometheus import CitewatchMetrics
from schemas import Trace
from sidecar.checks import Analysis
from sidecar.config import Settings
from sidecar.judge.resilience import Backoff
from sidecar.pipeline import JudgeOutcome, Pipeline
from sidecar.runtime.consumer import KafkaRunner
from tests.support.factories import trace_dict

TOPIC = "rag.traces"


class TP(NamedTuple):
    topic: str
    partition: int


class Record(NamedTuple):
    topic: str
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]


class FakeConsumer:
    """Partitions of in-memory records; assignment happens on the first poll."""

    def __init__(self, partitions: dict[int, list[bytes]]) -> None:
        self.logs = {
            TP(TOPIC, p): [
                Record(TOPIC, p, o, 1_700_000_000_000 + o, None, v, [])
                for o, v in enumerate(values)
            ]
            for p, values in partitions.items()
        }
        self.positions = {tp: 0 for tp in self.logs}
        self.commits: list[dict[TP, int]] = []
        self._paused: set[TP] = set()
        self.listener: Any = None
        self.assigned: set[TP] = set()
        self.polls = 0
        self.closed = False

    def subscribe(self, topics: list[str], listener: Any = None) -> None:
        self.listener = listener

    def poll(self, timeout_ms: int = 0, max_records: int | None = None) -> dict[TP, list[Record]]:
        self.polls += 1
        if not self.assigned and not self.closed:
            self.assigned = set(self.logs)
            self.listener.on_partitions_assigned(set(self.assigned))
        batch: dict[TP, list[Record]] = {}
        for tp in sorted(self.assigned - self._paused):
            records = self.logs[tp][self.positions[tp] : self.positions[tp] + (max_records or 500)]
            if records:
                batch[tp] = records
                self.positions[tp] += len(records)
        if not batch:
            time.sleep(0.001)
        return batch

    def revoke(self, tps: set[TP]) -> None:
        self.assigned -= tps
        self.listener.on_partitions_revoked(tps)

    def commit(self, offsets: dict[TP, int] | None = None) -> None:
        assert offsets is not None, "a bare commit() commits the fetch position"
        self.commits.append(dict(offsets))

    def committed_positions(self) -> dict[TP, int]:
        merged: dict[TP, int] = {}
        for commit in self.commits:
            merged.update(commit)
        return merged

    def pause(self, *partitions: TP) -> None:
        self._paused |= set(partitions)

    def resume(self, *partitions: TP) -> None:
        self._paused -= set(partitions)

    def seek(self, partition: TP, offset: int) -> None:
        self.positions[partition] = offset

    def reassign_keeping_positions(self) -> None:
        """An eager rebalance that hands the same partitions back, as kafka-python 3.x does
        it: revoke all, then assign again with the fetch positions and paused flags kept."""
        tps = set(self.assigned)
        self.listener.on_partitions_revoked(set(tps))
        self.listener.on_partitions_assigned(set(tps))

    def paused(self) -> set[TP]:
        return set(self._paused)

    def assignment(self) -> set[TP]:
        return set(self.assigned)

    def end_offsets(self, partitions: list[TP], timeout_ms: int | None = None) -> dict[TP, int]:
        return {tp: len(self.logs[tp]) for tp in partitions}

    def committed(self, partition: TP, timeout_ms: int | None = None) -> int | None:
        return self.committed_positions().get(partition)

    def close(self, autocommit: bool = True) -> None:
        self.closed = True


class FakeFuture:
    def __init__(self) -> None:
        self._callbacks: list[Callable[[Any], Any]] = []
        self._errbacks: list[Callable[[Any], Any]] = []
        self.outcome: tuple[bool, Any] | None = None
        self._lock = threading.Lock()

    def add_callback(self, fn: Callable[[Any], Any]) -> None:
        with self._lock:
            self._callbacks.append(fn)
            outcome = self.outcome
        if outcome is not None and outcome[0]:
            fn(outcome[1])

    def add_errback(self, fn: Callable[[Any], Any]) -> None:
        with self._lock:
            self._errbacks.append(fn)
            outcome = self.outcome
        if outcome is not None and not outcome[0]:
            fn(outcome[1])

    def resolve(self, ok: bool = True, value: Any = None) -> None:
        with self._lock:
            self.outcome = (ok, value)
            callbacks = list(self._callbacks if ok else self._errbacks)
        for fn in callbacks:
            fn(value)


class FakeProducer:
    """Acknowledges at once unless ``hold`` is set; fails the first ``fail`` sends."""

    def __init__(self, *, hold: bool = False, fail: int = 0) -> None:
        self.hold = hold
        self.fail = fail
        self.sent: list[dict[str, Any]] = []
        self.futures: list[FakeFuture] = []
        self.lock = threading.Lock()

    def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        headers: list[tuple[str, bytes]] | None = None,
        partition: int | None = None,
        timestamp_ms: int | None = None,
    ) -> FakeFuture:
        future = FakeFuture()
        with self.lock:
            failing = self.fail > 0
            if failing:
                self.fail -= 1
            else:
                self.sent.append({"topic": topic, "key": key, "value": value, "headers": headers})
                self.futures.append(future)
        if failing:
            future.resolve(False, RuntimeError("broker away"))
        elif not self.hold:
            future.resolve(True, None)
        return future

    def release(self) -> None:
        with self.lock:
            futures = [f for f in self.futures if f.outcome is None]
        for future in futures:
            future.resolve(True, None)

    def flush(self, timeout: float | None = None) -> None:
        pass

    def close(self, timeout: float | None = None) -> None:
        pass


class GatedJudge:
    """A judge stage that waits for a gate, like a slow LLM call."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    async def judge(self, trace: Trace, analysis: Analysis) -> JudgeOutcome:
        while not self.gate.is_set():
            await asyncio.sleep(0.005)
        return JudgeOutcome(skip_reason="not_sampled")


def _trace(i: int) -> bytes:
    return json.dumps(trace_dict(trace_id=f"{i + 1:032x}")).encode()


def _runner(
    consumer: FakeConsumer, producer: FakeProducer, *, judge: Any = None, **kafka: Any
) -> tuple[KafkaRunner, CollectorRegistry]:
    settings = Settings(
        kafka={
            "commit_interval_seconds": 0.001,
            "shutdown_deadline_seconds": 2,
            "max_poll_records": 50,
            **kafka,
        }
    )
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry)
    emitter = KafkaEmitter(
        producer, evaluations_topic="evals", dead_letter_topic="dlt", group_id="citewatch"
    )
    runner = KafkaRunner(
        settings=settings,
        consumer=consumer,
        emitter=emitter,
        pipeline=Pipeline(settings, judge=judge),
        metrics=metrics,
        offset_and_metadata=lambda position: position,
    )
    runner.worker.start()
    consumer.subscribe([TOPIC], listener=runner._listener(runner.events))
    return runner, registry


def _spin(runner: KafkaRunner, until: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "condition not reached"
        runner.step()


def test_every_record_is_emitted_and_committed_with_explicit_offsets() -> None:
    consumer = FakeConsumer(
        {0: [_trace(i) for i in range(30)], 1: [_trace(i) for i in range(30, 50)] + [b"not json"]}
    )
    producer = FakeProducer()
    runner, registry = _runner(consumer, producer)
    try:
        _spin(
            runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 30, TP(TOPIC, 1): 21}
        )
    finally:
        runner.shutdown()
    evaluations = [s for s in producer.sent if s["topic"] == "evals"]
    assert sorted(s["key"] for s in evaluations) == sorted(
        f"{i + 1:032x}".encode() for i in range(50)
    )
    [letter] = [s for s in producer.sent if s["topic"] == "dlt"]
    assert letter["value"] == b"not json"
    assert dict(letter["headers"])["citewatch.dlt.original.offset"] == b"20"
    assert (
        registry.get_sample_value(
            "citewatch_traces_total", {"app": "other", "outcome": "evaluated"}
        )
        == 50
    )
    assert registry.get_sample_value("citewatch_dead_letters_total", {"reason": "not_json"}) == 1
    assert consumer.closed


def test_offsets_are_committed_only_after_the_ack() -> None:
    consumer = FakeConsumer({0: [_trace(i) for i in range(5)]})
    producer = FakeProducer(hold=True)
    runner, _ = _runner(consumer, producer)
    try:
        _spin(runner, lambda: len(producer.sent) == 5)
        for _ in range(20):
            runner.step()
        assert consumer.commits == []
        producer.release()
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 5})
    finally:
        runner.shutdown()


def test_out_of_order_finishing_commits_the_contiguous_prefix() -> None:
    consumer = FakeConsumer({0: [_trace(i) for i in range(4)]})
    producer = FakeProducer(hold=True)
    runner, _ = _runner(consumer, producer)
    try:
        _spin(runner, lambda: len(producer.sent) == 4)
        by_key = {s["key"]: f for s, f in zip(producer.sent, producer.futures, strict=True)}
        by_key[f"{3:032x}".encode()].resolve()  # offset 2 first
        by_key[f"{1:032x}".encode()].resolve()  # then offset 0
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 1})
        for _ in range(20):
            runner.step()
        assert consumer.committed_positions() == {TP(TOPIC, 0): 1}
        by_key[f"{2:032x}".encode()].resolve()  # offset 1 closes the gap up to 2
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 3})
    finally:
        runner.shutdown()


def test_backpressure_pauses_while_polling_goes_on() -> None:
    consumer = FakeConsumer({0: [_trace(i) for i in range(200)]})
    judge = GatedJudge()
    runner, _ = _runner(consumer, FakeProducer(), judge=judge, max_in_flight=40)
    try:
        _spin(runner, lambda: consumer.paused() == {TP(TOPIC, 0)})
        polls = consumer.polls
        for _ in range(10):
            runner.step()
        assert consumer.polls == polls + 10
        assert runner.tracker.in_flight() == 50  # one poll's worth past the limit, no more
        judge.gate.set()
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 200})
        assert consumer.paused() == set()
    finally:
        runner.shutdown()


def test_backpressure_pauses_on_the_bytes_in_flight() -> None:
    big = [
        json.dumps(
            trace_dict(
                trace_id=f"{i + 1:032x}",
                sources=[
                    {"id": "S1", "title": "Refunds", "text": "Refunds within 30 days. " * 2_500}
                ],
            )
        ).encode()
        for i in range(120)
    ]
    consumer = FakeConsumer({0: big})
    judge = GatedJudge()
    runner, _ = _runner(
        consumer, FakeProducer(), judge=judge, max_in_flight=10_000, max_in_flight_bytes=1_000_000
    )
    try:
        _spin(runner, lambda: consumer.paused() == {TP(TOPIC, 0)})
        for _ in range(10):
            runner.step()
        # One poll (50 records of about 60 KB) passed the bound; nothing more was taken.
        assert runner.tracker.in_flight() == 50
        assert runner.held_bytes == sum(len(value) for value in big[:50])
        judge.gate.set()
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 120})
        assert runner.held_bytes == 0
        assert consumer.paused() == set()
    finally:
        runner.shutdown()


def test_revoked_partition_work_is_dropped_and_not_committed() -> None:
    consumer = FakeConsumer(
        {0: [_trace(i) for i in range(5)], 1: [_trace(i) for i in range(5, 10)]}
    )
    producer = FakeProducer(hold=True)
    runner, _ = _runner(consumer, producer)
    try:
        _spin(runner, lambda: len(producer.sent) == 10)
        consumer.revoke({TP(TOPIC, 1)})
        runner.step()
        producer.release()
        _spin(runner, lambda: consumer.committed_positions().get(TP(TOPIC, 0)) == 5)
        for _ in range(20):
            runner.step()
        assert TP(TOPIC, 1) not in consumer.committed_positions()
        assert runner.held_bytes == 0  # the revoked partition's records hold nothing
    finally:
        runner.shutdown()


def test_work_cancelled_by_a_rebalance_that_keeps_positions_is_replayed() -> None:
    consumer = FakeConsumer(
        {0: [_trace(i) for i in range(6)], 1: [_trace(i) for i in range(6, 12)]}
    )
    producer = FakeProducer(hold=True)
    runner, _ = _runner(consumer, producer, max_in_flight=4)
    try:
        _spin(runner, lambda: len(producer.sent) >= 4)
        assert consumer.paused()  # backpressure paused the partitions
        consumer.reassign_keeping_positions()  # in-flight work is cancelled
        runner.step()
        producer.hold = False  # before release: a send in between would otherwise stay held
        producer.release()
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 6, TP(TOPIC, 1): 6})
    finally:
        runner.shutdown()
    emitted = {s["key"] for s in producer.sent if s["topic"] == "evals"}
    assert emitted == {f"{i + 1:032x}".encode() for i in range(12)}


class StuckJoinConsumer(FakeConsumer):
    """The first subscription's rebalance never hands out an assignment."""

    def __init__(self, partitions: dict[int, list[bytes]]) -> None:
        super().__init__(partitions)
        self.subscriptions = 0
        self.unsubscribed = 0

    def subscribe(self, topics: list[str], listener: Any = None) -> None:
        super().subscribe(topics, listener)
        self.subscriptions += 1

    def unsubscribe(self) -> None:
        self.unsubscribed += 1

    def poll(self, timeout_ms: int = 0, max_records: int | None = None) -> dict[TP, list[Record]]:
        if self.subscriptions < 2:
            return {}
        return super().poll(timeout_ms, max_records)


def test_a_join_that_never_assigns_is_retried_after_the_configured_wait() -> None:
    now = [0.0]
    consumer = StuckJoinConsumer({0: [_trace(i) for i in range(3)]})
    settings = Settings(kafka={"commit_interval_seconds": 0.001, "rejoin_after_seconds": 60})
    runner = KafkaRunner(
        settings=settings,
        consumer=consumer,
        emitter=KafkaEmitter(
            FakeProducer(), evaluations_topic="evals", dead_letter_topic="dlt", group_id="citewatch"
        ),
        pipeline=Pipeline(settings),
        metrics=CitewatchMetrics(registry=CollectorRegistry()),
        offset_and_metadata=lambda position: position,
        clock=lambda: now[0],
    )
    runner.worker.start()
    runner._subscribe()
    try:
        for _ in range(5):
            runner.step()
        now[0] = 59.0
        runner.step()
        assert consumer.unsubscribed == 0
        now[0] = 61.0
        runner.step()
        assert (consumer.unsubscribed, consumer.subscriptions) == (1, 2)
        deadline = time.monotonic() + 10.0
        while consumer.committed_positions() != {TP(TOPIC, 0): 3}:
            assert time.monotonic() < deadline, "condition not reached"
            now[0] += 0.01  # the fake clock moves so periodic commits come due
            runner.step()
        assert consumer.committed_positions() == {TP(TOPIC, 0): 3}
        now[0] = 500.0  # assigned: waiting no longer counts
        runner.step()
        assert consumer.unsubscribed == 1
    finally:
        runner.shutdown()


class _Retriable(Exception):
    retriable = True


class FlakyPollConsumer(FakeConsumer):
    """poll() fails the way kafka-python does while the broker restarts, then recovers."""

    def __init__(self, partitions: dict[int, list[bytes]], failures: int) -> None:
        super().__init__(partitions)
        self.failures = failures

    def poll(self, timeout_ms: int = 0, max_records: int | None = None) -> dict[TP, list[Record]]:
        if self.failures:
            self.failures -= 1
            raise _Retriable("socket disconnected")
        return super().poll(timeout_ms, max_records)


def test_retriable_poll_errors_do_not_end_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import sidecar.runtime.consumer

    monkeypatch.setattr(sidecar.runtime.consumer, "RETRY_PAUSE_SECONDS", 0.01)
    consumer = FlakyPollConsumer({0: [_trace(i) for i in range(3)]}, failures=3)
    runner, _ = _runner(consumer, FakeProducer())
    runner.worker.stop()  # run() starts its own worker
    runner.worker = type(runner.worker)()
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,))
    thread.start()
    try:
        deadline = time.monotonic() + 10.0
        while consumer.committed_positions() != {TP(TOPIC, 0): 3}:
            assert thread.is_alive(), "the run ended on a retriable error"
            assert time.monotonic() < deadline, "condition not reached"
            time.sleep(0.01)
        assert consumer.failures == 0
    finally:
        stop.set()
        thread.join(10)


def test_a_failed_send_is_retried_before_the_commit() -> None:
    consumer = FakeConsumer({0: [_trace(0)]})
    producer = FakeProducer(fail=1)
    runner, _ = _runner(consumer, producer)
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 1})
    finally:
        runner.shutdown()
    assert [s["key"] for s in producer.sent] == [f"{1:032x}".encode()]


class RecordedBackoff(Backoff):
    """The shared backoff, with tiny waits that it remembers."""

    def __init__(self) -> None:
        super().__init__(base_seconds=0.004, max_seconds=0.02, rng=random.Random(7))
        self.given: list[float] = []

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        value = super().delay(attempt, retry_after)
        self.given.append(value)
        return value


def test_produce_retries_wait_as_the_shared_jittered_backoff_says() -> None:
    consumer = FakeConsumer({0: [_trace(0)]})
    producer = FakeProducer(fail=4)
    runner, _ = _runner(consumer, producer)
    backoff = runner.handler.backoff = RecordedBackoff()
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 1})
    finally:
        runner.shutdown()
    expected = Backoff(base_seconds=0.004, max_seconds=0.02, rng=random.Random(7))
    assert backoff.given == [expected.delay(n) for n in range(4)]
    assert len(set(backoff.given)) == 4  # jittered, not a fixed ladder
    assert [s["key"] for s in producer.sent] == [f"{1:032x}".encode()]


def test_a_replayed_trace_id_is_counted_and_emitted_once() -> None:
    consumer = FakeConsumer({0: [_trace(0), _trace(1), _trace(0)]})
    producer = FakeProducer()
    runner, registry = _runner(consumer, producer)
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 3})
    finally:
        runner.shutdown()
    assert len(producer.sent) == 2
    samples = {
        outcome: registry.get_sample_value(
            "citewatch_traces_total", {"app": "other", "outcome": outcome}
        )
        for outcome in ("evaluated", "duplicate")
    }
    assert samples == {"evaluated": 2, "duplicate": 1}


def test_copies_waiting_for_one_trace_in_flight_are_each_counted_as_duplicates() -> None:
    # Three copies of one trace in one batch: the second and third wait for the first's ack
    # together, then each finds it emitted.
    consumer = FakeConsumer({0: [_trace(0), _trace(0), _trace(0), _trace(1)]})
    producer = FakeProducer()
    runner, registry = _runner(consumer, producer)
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 4})
    finally:
        runner.shutdown()
    assert sorted(s["key"] for s in producer.sent) == [f"{1:032x}".encode(), f"{2:032x}".encode()]
    samples = {
        outcome: registry.get_sample_value(
            "citewatch_traces_total", {"app": "other", "outcome": outcome}
        )
        for outcome in ("evaluated", "duplicate")
    }
    assert samples == {"evaluated": 2, "duplicate": 2}
    assert runner.handler._in_flight_ids == {}


@pytest.mark.parametrize(
    "stop_after", [pytest.param(0.0, id="idle"), pytest.param(0.05, id="mid-run")]
)
def test_run_stops_when_asked_and_commits(stop_after: float) -> None:
    consumer = FakeConsumer({0: [_trace(i) for i in range(100)]})
    runner, _ = _runner(consumer, FakeProducer())
    runner.worker.stop()
    runner.worker = type(runner.worker)()  # run() starts its own worker
    stop = threading.Event()
    timer = threading.Timer(stop_after, stop.set)
    timer.start()
    runner.run(stop)
    timer.join()
    committed = consumer.committed_positions().get(TP(TOPIC, 0), 0)
    assert committed == runner.finished
    assert consumer.closed
