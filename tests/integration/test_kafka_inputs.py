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


def _shapes() -> dict[str, tuple[str, list[bytes], bytes]]:
    """Per format: its records (each a shape the adapter fixes), and one it cannot read."""
    from tests.support.payloads import (
        OWN_MARKERS,
        POLICY_SOURCES,
        anthropic_record,
        chat_exchange,
        converse_record,
        gemini_record,
        otlp_json_record,
        responses_exchange,
        retrieve_and_generate_record,
    )

    return {
        "openai_chat": (
            "openai_chat",
            [chat_exchange(OWN_MARKERS, sources=POLICY_SOURCES)],
            b'{"response": {"choices": "x"}}',
        ),
        "openai_responses": (
            "openai_responses",
            [
                responses_exchange(
                    [("commentary", "Searching."), ("final_answer", OWN_MARKERS)],
                    sources=POLICY_SOURCES,
                )
            ],
            b'{"response": {"output": 7}}',
        ),
        "anthropic_messages": ("anthropic_messages", [anthropic_record()], b'{"response": 1}'),
        "otlp_json": (
            "otlp_json",
            [otlp_json_record(openinference_spans())],
            b'{"resourceSpans": [{"scopeSpans": 5}]}',
        ),
        "gemini": ("gemini", [gemini_record()], b'{"response": {"candidates": []}}'),
        "bedrock": (
            "bedrock",
            [retrieve_and_generate_record(), converse_record()],
            b'{"response": {"output": {"message": {"content": 3}}}}',
        ),
    }


@pytest.mark.parametrize(
    "name",
    ["openai_chat", "openai_responses", "anthropic_messages", "gemini", "bedrock", "otlp_json"],
)
def test_every_line_format_through_the_broker(
    kafka_bootstrap: str, tmp_path: Path, name: str
) -> None:
    input_format, good, bad = _shapes()[name]
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=1, source=name)
    produce(kafka_bootstrap, topic, [*good, bad])
    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        extra=["--input-format", input_format, "--judge", "none"],
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
    assert len(records) == len(good)
    assert all(r["scores"]["validity"] == 1.0 for r in records)
    [letter] = read_topic(kafka_bootstrap, dlt)
    assert letter.value == bad
    headers = dict(letter.headers)
    assert headers.get("citewatch.dlt.error.reason") == b"unreadable_input"
