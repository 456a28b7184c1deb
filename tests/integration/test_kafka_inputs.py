"""`citewatch run --input-format otlp_proto` against a real broker: span records as the
Collector's kafka exporter writes them, each evaluated under its W3C trace ID; records no
adapter can read are dead letters with their reason, and every offset is committed."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.kafka import (
    Sidecar,
    offsets,
    produce,
    read_topic,
    run_topics,
    wait_until,
)
from tests.support.payloads import openinference_spans, otlp_proto_record

pytestmark = pytest.mark.integration

TRACES = 20


def test_otlp_proto_records_are_evaluated_and_bad_ones_dead_lettered(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=2, source="spans")
    span_sets = [openinference_spans() for _ in range(TRACES)]
    expected = {format(spans[0].context.trace_id, "032x") for spans in span_sets}
    bad = [otlp_proto_record(openinference_spans(traces=2)), b"\xff\xfe not protobuf"]
    produce(kafka_bootstrap, topic, [otlp_proto_record(spans) for spans in span_sets] + bad)

    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        extra=["--input-format", "otlp_proto", "--judge", "none"],
        log=tmp_path / "sidecar.log",
    )
    try:

        def caught_up() -> bool:
            committed, ends = offsets(kafka_bootstrap, topic, group)
            return bool(committed) and committed == ends

        wait_until(caught_up, timeout=120, interval=1.0, what="committed == end offsets")
        sidecar.signal(signal.SIGTERM)
        assert sidecar.wait(30) == 0
    finally:
        sidecar.stop()

    records = [json.loads(r.value) for r in read_topic(kafka_bootstrap, evaluations)]
    assert {r["trace_id"] for r in records} == expected
    assert all(r["app"] == "support-rag" and r["scores"]["validity"] == 1.0 for r in records)
    letters = read_topic(kafka_bootstrap, dlt)
    assert sorted(r.value for r in letters) == sorted(bad)  # value unchanged
    reasons = [dict(r.headers).get("citewatch.dlt.error.reason") for r in letters]
    assert reasons == [b"unreadable_input", b"unreadable_input"]
