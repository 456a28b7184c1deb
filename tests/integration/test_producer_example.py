"""examples/producer.py against a real broker: its traces carry the W3C traceparent of the
producing span, pass the JSON Schema, and `citewatch run` evaluates every one of them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from schemas import EvaluationRecord, Trace
from tests.support.kafka import (
    ROOT,
    Sidecar,
    offsets,
    read_topic,
    run_topics,
    wait_until,
)

pytestmark = pytest.mark.integration

COUNT = 5
PRODUCER = ROOT / "examples" / "producer.py"


def test_producer_example_traces_are_evaluated_by_citewatch_run(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=1)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OTEL_"))}
    produced = subprocess.run(
        [
            sys.executable,
            str(PRODUCER),
            "--bootstrap-servers",
            kafka_bootstrap,
            "--topic",
            topic,
            "--count",
            str(COUNT),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert produced.returncode == 0, produced.stderr
    trace_ids = produced.stdout.split()
    assert len(trace_ids) == COUNT and len(set(trace_ids)) == COUNT

    on_topic = read_topic(kafka_bootstrap, topic)
    assert [r.key.decode() for r in on_topic] == trace_ids
    for record in on_topic:
        trace = Trace.model_validate_json(record.value)
        headers = {name: value.decode() for name, value in record.headers}
        assert re.fullmatch(
            rf"00-{trace.trace_id}-[0-9a-f]{{16}}-[0-9a-f]{{2}}", headers["traceparent"]
        )
        assert [c.citation_ids for c in trace.claims] == [["S1"], ["S2"]]

    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        log=tmp_path / "sidecar.log",
        extra=["--sample-rate", "1"],
    )
    try:

        def caught_up() -> bool:
            committed, ends = offsets(kafka_bootstrap, topic, group)
            return bool(committed) and committed == ends

        wait_until(caught_up, timeout=120, what="committed == end offsets")
        sidecar.signal(signal.SIGTERM)
        assert sidecar.wait(30) == 0
    finally:
        sidecar.stop()

    records = [
        EvaluationRecord.model_validate_json(r.value)
        for r in read_topic(kafka_bootstrap, evaluations)
    ]
    assert sorted(r.trace_id for r in records) == sorted(trace_ids)
    assert read_topic(kafka_bootstrap, dlt) == []
    for record in records:
        assert record.scores.validity == 1.0
        assert [(c.claim_id, c.status, c.derived) for c in record.claims] == [
            ("c1", "cited", False),
            ("c2", "cited", False),
        ]
        assert record.judged and record.judge is not None and record.judge.outcome == "ok"
    log = (tmp_path / "sidecar.log").read_text(encoding="utf-8")
    assert f"consuming {topic} at {kafka_bootstrap}" in log
