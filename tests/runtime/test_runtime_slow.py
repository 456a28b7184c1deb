"""Slow records are logged once, counted, and turn readiness off until they finish."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading
import time
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from sidecar.runtime.filesource import FileRunner, JsonLinesSink
from sidecar.runtime.lines import LineSource
from sidecar.runtime.slow import SlowRecords
from sidecar.runtime.startup import build_until_stopped
from tests.runtime.test_consumer import FakeConsumer, FakeProducer, GatedJudge
from tests.runtime.test_failure_policy import _kafka_runner
from tests.support.factories import trace_dict


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_slow_record_is_reported_once_and_counted_until_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, counted, changes = Clock(), [], []
    slow = SlowRecords(
        threshold_seconds=30,
        on_slow=lambda: counted.append(1),
        on_change=changes.append,
        clock=clock,
    )
    token = slow.begin("rag.traces[2]@41")
    slow.identify(token, "4bf92f3577b34da6a3ce929d0e0e4736")
    fast = slow.begin("rag.traces[2]@42")
    clock.now += 29
    assert not slow.any_slow()
    slow.end(fast)
    clock.now += 2
    with caplog.at_level(logging.INFO):
        assert slow.any_slow()
        assert slow.sweep() == 1
        clock.now += 100
        assert slow.any_slow()
    assert counted == [1]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "record rag.traces[2]@41 (trace 4bf92f3577b34da6a3ce929d0e0e4736) "
        "still in evaluation after 31.0s"
    ]
    slow.end(token)
    assert not slow.any_slow()
    assert changes == [1, 0]
    assert slow.in_progress() == 0


def test_the_sweeping_thread_counts_without_being_asked() -> None:
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry)
    slow = SlowRecords(
        threshold_seconds=0.05, on_slow=metrics.slow_record, on_change=metrics.set_slow_in_progress
    ).start(interval=0.01)
    try:
        token = slow.begin("line 1")
        deadline = time.monotonic() + 5
        while registry.get_sample_value("citewatch_slow_records_total") != 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert registry.get_sample_value("citewatch_slow_records_in_progress") == 1
        slow.end(token)
        assert registry.get_sample_value("citewatch_slow_records_in_progress") == 0
    finally:
        slow.stop()


def test_kafka_readiness_drops_during_a_slow_record_and_returns_after() -> None:
    judge = GatedJudge()
    consumer = FakeConsumer({0: [json.dumps(trace_dict()).encode()]})
    settings = Settings(
        runtime={"slow_record_seconds": 0.05}, kafka={"commit_interval_seconds": 0.001}
    )
    runner, registry = _kafka_runner(consumer, FakeProducer(), Pipeline(settings, judge=judge))
    runner.slow.threshold = 0.05
    try:
        runner.step()
        assert runner.ready()
        time.sleep(0.1)
        assert not runner.ready()
        assert registry.get_sample_value("citewatch_slow_records_total") == 1
        judge.gate.set()
        deadline = time.monotonic() + 5
        while not runner.ready():
            assert time.monotonic() < deadline
            runner.step()
    finally:
        judge.gate.set()
        runner.shutdown()


def test_file_readiness_drops_during_a_slow_record() -> None:
    judge = GatedJudge()
    settings = Settings(runtime={"slow_record_seconds": 0.05})
    runner = FileRunner(
        settings=settings,
        pipeline=Pipeline(settings, judge=judge),
        metrics=CitewatchMetrics(registry=CollectorRegistry()),
        source=LineSource(
            io.BytesIO(json.dumps(trace_dict()).encode() + b"\n"),
            follow=True,
            interval=settings.input.follow_interval_seconds,
        ),
        sink=JsonLinesSink(io.StringIO()),
    )
    seen: list[bool] = []
    stop = threading.Event()

    async def scenario() -> None:
        task = asyncio.ensure_future(runner.run(stop))
        await asyncio.sleep(0.02)
        seen.append(runner.ready())
        await asyncio.sleep(0.1)
        seen.append(runner.ready())
        judge.gate.set()
        await asyncio.sleep(0.1)
        seen.append(runner.ready())
        stop.set()
        await task

    asyncio.run(scenario())
    assert seen == [True, False, True]
    assert runner.summary.evaluated == 1


def test_start_up_returns_none_at_once_when_stopped_while_building() -> None:
    stop = threading.Event()
    release = threading.Event()

    def build() -> str:
        release.wait(30)  # an unreachable broker: the constructor blocks
        return "clients"

    threading.Timer(0.1, stop.set).start()
    started = time.monotonic()
    try:
        assert build_until_stopped(build, stop=stop, retriable=lambda e: True) is None
        assert time.monotonic() - started < 2
    finally:
        release.set()


def test_start_up_retries_retriable_failures_and_raises_the_others() -> None:
    attempts: list[int] = []

    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("no broker yet")
        return "clients"

    retriable: Any = lambda exc: isinstance(exc, ConnectionError)  # noqa: E731
    assert (
        build_until_stopped(flaky, stop=threading.Event(), retriable=retriable, retry_seconds=0.01)
        == "clients"
    )
    assert len(attempts) == 3

    def bad() -> str:
        raise ValueError("bad settings")

    with pytest.raises(ValueError, match="bad settings"):
        build_until_stopped(bad, stop=threading.Event(), retriable=retriable)
