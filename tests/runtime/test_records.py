"""The record processor both runtimes share: dedup by trace_id and the metrics around it."""

from __future__ import annotations

import asyncio
import json

from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import Trace
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.pipeline import Pipeline
from sidecar.runtime.guard import Evaluated, Failure, Skipped
from sidecar.runtime.records import RecordProcessor
from sidecar.runtime.slow import SlowRecords
from tests.support.factories import trace_dict


def _processor() -> tuple[RecordProcessor, CollectorRegistry, SlowRecords]:
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, apps=["support"])
    slow = SlowRecords(threshold_seconds=60.0)
    settings = Settings()
    return (
        RecordProcessor(
            pipeline=Pipeline(settings),
            limits=DecodeLimits(),
            metrics=metrics,
            slow=slow,
            dedup_window=16,
        ),
        registry,
        slow,
    )


def _value(trace_id: str) -> bytes:
    return json.dumps(trace_dict(trace_id=trace_id)).encode()


def _traces(registry: CollectorRegistry, outcome: str) -> float | None:
    return registry.get_sample_value(
        "citewatch_traces_total", {"app": "support", "outcome": outcome}
    )


def test_a_trace_id_seen_before_is_skipped_and_counted_once_as_a_duplicate() -> None:
    processor, registry, slow = _processor()

    async def run() -> list[Evaluated | Failure | Skipped]:
        outcomes = []
        for _ in range(2):
            token = slow.begin("record")
            outcome = await processor.evaluate(_value("a" * 32), token=token)
            slow.end(token)
            if isinstance(outcome, Evaluated) and processor.is_new(outcome.record):
                processor.emitted(outcome.record, emit_seconds=0.001, new=True)
            outcomes.append(outcome)
        return outcomes

    first, second = asyncio.run(run())
    assert isinstance(first, Evaluated)
    assert isinstance(second, Skipped) and second.trace.trace_id == "a" * 32
    assert _traces(registry, "evaluated") == 1.0
    assert _traces(registry, "duplicate") == 1.0
    assert (
        registry.get_sample_value("citewatch_stage_duration_seconds_count", {"stage": "decode"})
        == 2.0
    )
    assert (
        registry.get_sample_value("citewatch_stage_duration_seconds_count", {"stage": "emit"})
        == 1.0
    )


def test_a_record_emitted_twice_is_counted_once() -> None:
    processor, registry, slow = _processor()
    outcome = asyncio.run(processor.evaluate(_value("b" * 32), token=slow.begin("record")))
    assert isinstance(outcome, Evaluated)
    assert processor.is_new(outcome.record) is True
    processor.emitted(outcome.record, emit_seconds=0.001, new=True)
    assert processor.is_new(outcome.record) is False
    processor.emitted(outcome.record, emit_seconds=0.001, new=False)
    assert _traces(registry, "evaluated") == 1.0
    assert _traces(registry, "duplicate") == 1.0


def test_the_hooks_run_around_the_dedup_check_in_order() -> None:
    processor, _, slow = _processor()
    calls: list[tuple[str, str]] = []

    async def wait_for(trace: Trace) -> None:
        calls.append(("wait_for", trace.trace_id))

    def on_admit(trace: Trace) -> None:
        calls.append(("on_admit", trace.trace_id))

    outcome = asyncio.run(
        processor.evaluate(
            _value("c" * 32), token=slow.begin("record"), wait_for=wait_for, on_admit=on_admit
        )
    )
    assert isinstance(outcome, Evaluated)
    assert calls == [("wait_for", "c" * 32), ("on_admit", "c" * 32)]


def test_a_dead_letter_is_counted_by_reason() -> None:
    processor, registry, slow = _processor()
    outcome = asyncio.run(processor.evaluate(b"{oops", token=slow.begin("record")))
    assert isinstance(outcome, Failure)
    processor.dead_lettered(outcome, "other")
    assert registry.get_sample_value("citewatch_dead_letters_total", {"reason": "not_json"}) == 1.0
