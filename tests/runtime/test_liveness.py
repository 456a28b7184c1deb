"""Liveness of both runtimes through the metrics port: /healthz answers 503 once a record has
kept the evaluation loop busy past runtime.worker_stuck_seconds, and 200 again when it ends."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from prometheus_client import CollectorRegistry

from exporters.http import serve
from exporters.kafka import KafkaEmitter
from exporters.prometheus import CitewatchMetrics
from sidecar.checks.analysis import Analysis
from sidecar.config import Settings
from sidecar.pipeline import JudgeOutcome, Pipeline
from sidecar.runtime.consumer import KafkaRunner
from sidecar.runtime.filesource import FileRunner, JsonLinesSink
from sidecar.runtime.lines import LineSource
from tests.runtime.test_consumer import TOPIC, FakeConsumer, FakeProducer
from tests.support.factories import trace_dict

# Above the heartbeat's 1 s interval (a loop that turns freely is up to 1 s behind).
STUCK_SECONDS = 1.5


class BlockingJudge:
    """A judge stage that blocks the event loop until released, as a CPU-bound stage would."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    async def judge(self, trace: object, analysis: Analysis) -> JudgeOutcome:
        self.entered.set()
        self.release.wait(30)  # no await: the loop cannot turn
        return JudgeOutcome(skip_reason="not_sampled")


def _healthz(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _wait_for(port: int, status: int, within: float) -> float:
    started = time.monotonic()
    while _healthz(port) != status:
        assert time.monotonic() - started < within, f"/healthz never answered {status}"
        time.sleep(0.05)
    return time.monotonic() - started


def _probe_through_a_stuck_record(judge: BlockingJudge, live: Callable[[], bool]) -> None:
    server = serve(CollectorRegistry(), address="127.0.0.1", port=0, ready=lambda: True, live=live)
    try:
        assert judge.entered.wait(10)
        waited = _wait_for(server.port, 503, within=STUCK_SECONDS + 5)
        assert waited <= STUCK_SECONDS + 2.0  # the bound, a heartbeat and some slack
        judge.release.set()
        _wait_for(server.port, 200, within=5)
    finally:
        judge.release.set()
        server.close()


def _settings() -> Settings:
    return Settings(
        runtime={"worker_stuck_seconds": STUCK_SECONDS},
        kafka={"commit_interval_seconds": 0.001, "shutdown_deadline_seconds": 2},
    )


def test_kafka_liveness_fails_while_a_record_blocks_the_worker_and_recovers() -> None:
    judge = BlockingJudge()
    consumer = FakeConsumer({0: [json.dumps(trace_dict()).encode()]})
    settings = _settings()
    runner = KafkaRunner(
        settings=settings,
        consumer=consumer,
        emitter=KafkaEmitter(
            FakeProducer(), evaluations_topic="evals", dead_letter_topic="dlt", group_id="g"
        ),
        pipeline=Pipeline(settings, judge=judge),
        metrics=CitewatchMetrics(registry=CollectorRegistry()),
        offset_and_metadata=lambda p: p,
    )
    runner.worker.start()
    consumer.subscribe([TOPIC], listener=runner._listener(runner.events))
    try:
        assert runner.live()
        runner.step()  # hands the record to the worker, whose loop it then blocks
        _probe_through_a_stuck_record(judge, runner.live)
        assert runner.live()
    finally:
        judge.release.set()
        runner.shutdown()


def test_file_liveness_fails_while_a_record_blocks_the_loop_and_recovers() -> None:
    judge = BlockingJudge()
    settings = _settings()
    runner = FileRunner(
        settings=settings,
        pipeline=Pipeline(settings, judge=judge),
        metrics=CitewatchMetrics(registry=CollectorRegistry()),
        source=LineSource(
            io.BytesIO(json.dumps(trace_dict()).encode() + b"\n"),
            follow=False,
            interval=settings.input.follow_interval_seconds,
        ),
        sink=JsonLinesSink(io.StringIO()),
    )
    stop = threading.Event()
    thread = threading.Thread(target=lambda: asyncio.run(runner.run(stop)), daemon=True)
    thread.start()
    try:
        _probe_through_a_stuck_record(judge, runner.live)
    finally:
        judge.release.set()
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert runner.summary.evaluated == 1
