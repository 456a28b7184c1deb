"""One failure policy in every runtime: a stage that raises, a record that cannot be
serialised or sent, a metric that fails: the record is a dead letter (or, once emitted, just
logged), its neighbours are evaluated, offsets move on, nothing is raised."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading
from typing import Any

import pytest
from click.testing import CliRunner
from prometheus_client import CollectorRegistry

from exporters.kafka import KafkaEmitter
from exporters.prometheus import CitewatchMetrics
from schemas import Trace
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from sidecar.runtime.consumer import KafkaRunner
from sidecar.runtime.filesource import FileRunner, JsonLinesSink
from sidecar.runtime.lines import LineSource
from tests.runtime.test_consumer import TOPIC, TP, FakeConsumer, FakeFuture, FakeProducer, _spin
from tests.support.factories import trace_dict

SECRET = "sk-live-secret-claim-text"


class FaultyRedactor:
    """Raises on traces whose question says BOOM (with trace text in the message, as a
    careless library would); puts a lone surrogate into the claim text on SURROGATE."""

    def redact(self, trace: Trace) -> tuple[Trace, dict[str, int]]:
        if trace.question == "BOOM":
            raise RuntimeError(f"cannot redact {SECRET}")
        if trace.question == "SURROGATE":
            claims = [c.model_copy(update={"text": c.text + "\udc80"}) for c in trace.claims]
            return trace.model_copy(update={"claims": claims}), {}
        return trace, {}


def _value(i: int, question: str = "Can I get a refund?") -> bytes:
    return json.dumps(trace_dict(trace_id=f"{i + 1:032x}", question=question)).encode()


LINES = [_value(0), _value(1, "BOOM"), _value(2), _value(3, "SURROGATE"), _value(4)]
EXPECTED_BAD = {2: "evaluation_error", 4: "serialisation_error"}
EXPECTED_IDS = [f"{i + 1:032x}" for i in (0, 2, 4)]


def test_check_reports_stage_failures_as_bad_lines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import sidecar.cli.check as cli_check
    from sidecar.cli import cli

    monkeypatch.setattr(
        cli_check,
        "build_pipeline",
        lambda settings, **_: Pipeline(settings, redactor=FaultyRedactor()),
    )
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(b"\n".join(LINES) + b"\n")
    result = CliRunner().invoke(
        cli, ["check", str(source), "--out", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert [json.loads(x)["trace_id"] for x in out.read_text().splitlines()] == EXPECTED_IDS
    assert "line 2: evaluation_error: RuntimeError raised during evaluation" in result.stderr
    assert "line 4: serialisation_error:" in result.stderr
    assert SECRET not in result.output


def test_file_source_dead_letters_stage_failures(caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings()
    registry = CollectorRegistry()
    out, dead = io.StringIO(), io.StringIO()
    runner = FileRunner(
        settings=settings,
        pipeline=Pipeline(settings, redactor=FaultyRedactor()),
        metrics=CitewatchMetrics(registry=registry),
        source=LineSource(io.BytesIO(b"\n".join(LINES))),
        sink=JsonLinesSink(out, dead),
    )
    with caplog.at_level(logging.DEBUG):
        summary = asyncio.run(runner.run(threading.Event()))
    assert (summary.evaluated, summary.dead_lettered) == (3, 2)
    assert [json.loads(x)["trace_id"] for x in out.getvalue().splitlines()] == EXPECTED_IDS
    letters = [json.loads(x) for x in dead.getvalue().splitlines()]
    assert {d["line"]: d["reason"] for d in letters} == EXPECTED_BAD
    assert letters[0]["value"] == LINES[1].decode()  # the line itself, for a later replay
    assert letters[0]["error_class"] == "RuntimeError"
    assert SECRET not in dead.getvalue().replace(LINES[1].decode(), "")
    assert SECRET not in caplog.text
    assert (
        registry.get_sample_value("citewatch_dead_letters_total", {"reason": "evaluation_error"})
        == 1
    )


def _kafka_runner(
    consumer: FakeConsumer,
    producer: Any,
    pipeline: Pipeline | None = None,
) -> tuple[KafkaRunner, CollectorRegistry]:
    settings = Settings(kafka={"commit_interval_seconds": 0.001, "shutdown_deadline_seconds": 2})
    registry = CollectorRegistry()
    runner = KafkaRunner(
        settings=settings,
        consumer=consumer,
        emitter=KafkaEmitter(
            producer, evaluations_topic="evals", dead_letter_topic="dlt", group_id="g"
        ),
        pipeline=pipeline or Pipeline(settings, redactor=FaultyRedactor()),
        metrics=CitewatchMetrics(registry=registry),
        offset_and_metadata=lambda p: p,
    )
    runner.worker.start()
    consumer.subscribe([TOPIC], listener=runner._listener(runner.events))
    return runner, registry


def _letters(producer: FakeProducer) -> dict[int, str]:
    return {
        int(dict(s["headers"])["citewatch.dlt.original.offset"]): dict(s["headers"])[
            "citewatch.dlt.error.reason"
        ].decode()
        for s in producer.sent
        if s["topic"] == "dlt"
    }


def test_kafka_dead_letters_stage_failures_and_commits_past_them() -> None:
    consumer = FakeConsumer({0: LINES})
    producer = FakeProducer()
    runner, _ = _kafka_runner(consumer, producer)
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 5})
    finally:
        runner.shutdown()
    assert _letters(producer) == {offset - 1: reason for offset, reason in EXPECTED_BAD.items()}
    assert sorted(s["key"].decode() for s in producer.sent if s["topic"] == "evals") == EXPECTED_IDS
    for sent in producer.sent:
        assert SECRET.encode() not in b"".join(v for _, v in sent["headers"] or ())


class RefusingProducer(FakeProducer):
    """Refuses evaluation records the way kafka-python refuses one over max_request_size."""

    def send(self, topic: str, value: bytes | None = None, **kwargs: Any) -> FakeFuture:
        if topic == "evals" and b"Refunds" in (value or b""):
            from kafka.errors import MessageSizeTooLargeError

            raise MessageSizeTooLargeError("The message is 2000000 bytes when serialized")
        return super().send(topic, value=value, **kwargs)


def test_kafka_dead_letters_a_record_the_producer_refuses_for_good() -> None:
    consumer = FakeConsumer({0: [_value(0)]})
    producer = RefusingProducer()
    runner, registry = _kafka_runner(consumer, producer, Pipeline(Settings()))
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 1})
    finally:
        runner.shutdown()
    assert _letters(producer) == {0: "emit_error"}
    assert registry.get_sample_value("citewatch_dead_letters_total", {"reason": "emit_error"}) == 1


def test_a_failing_metric_after_the_ack_does_not_stop_the_partition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    consumer = FakeConsumer({0: [_value(0), _value(1)]})
    producer = FakeProducer()
    runner, _ = _kafka_runner(consumer, producer, Pipeline(Settings()))

    def broken(record: Any) -> None:
        raise ValueError("metric backend broken")

    monkeypatch.setattr(runner.metrics, "observe_record", broken)
    try:
        _spin(runner, lambda: consumer.committed_positions() == {TP(TOPIC, 0): 2})
    finally:
        runner.shutdown()
    # Already acknowledged: not dead-lettered a second time, just logged.
    assert [s["topic"] for s in producer.sent] == ["evals", "evals"]


def test_kafka_runner_survives_hostile_corpus_with_fakes() -> None:
    from tests.hostile import EVALUATED, interleaved

    corpus = interleaved()
    consumer = FakeConsumer({0: [case.value for case in corpus]})
    producer = FakeProducer()
    runner, _ = _kafka_runner(consumer, producer, Pipeline(Settings()))
    try:
        _spin(
            runner,
            lambda: consumer.committed_positions() == {TP(TOPIC, 0): len(corpus)},
            timeout=60,
        )
    finally:
        runner.shutdown()
    assert _letters(producer) == {
        offset: case.expected for offset, case in enumerate(corpus) if case.expected != EVALUATED
    }
    assert sorted(s["key"].decode() for s in producer.sent if s["topic"] == "evals") == sorted(
        case.trace_id for case in corpus if case.expected == EVALUATED
    )
