"""The hostile corpus and a slow record against the real broker: no crash, neighbours
evaluated, each hostile record dead-lettered with its reason, offsets committed to the end of
every partition; SIGTERM during a slow record ends the run within the deadline with exit 0."""

from __future__ import annotations

import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer

from tests.hostile import EVALUATED, interleaved
from tests.support.factories import trace_dict
from tests.support.kafka import (
    Sidecar,
    offsets,
    read_topic,
    run_topics,
    wait_until,
)

pytestmark = pytest.mark.integration

PARTITIONS = 3


def _produce(bootstrap: str, topic: str, values: list[bytes]) -> dict[tuple[int, int], int]:
    """Round-robin over the partitions; returns (partition, offset) -> index in ``values``."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", max_request_size=16_777_216)
    try:
        futures = [
            producer.send(topic, value=value, partition=i % PARTITIONS)
            for i, value in enumerate(values)
        ]
        producer.flush(60)
        return {(f.get(30).partition, f.get(30).offset): i for i, f in enumerate(futures)}
    finally:
        producer.close(10)


def test_hostile_corpus_is_dead_lettered_with_reasons_and_every_partition_committed(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    corpus = interleaved()
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=PARTITIONS)
    where = _produce(kafka_bootstrap, topic, [case.value for case in corpus])
    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        extra=["--judge", "none"],
        log=tmp_path / "sidecar.log",
    )
    try:

        def caught_up() -> bool:
            committed, ends = offsets(kafka_bootstrap, topic, group)
            return len(ends) == PARTITIONS and committed == ends

        wait_until(caught_up, timeout=120, what="offsets committed to the end")
        sidecar.signal(signal.SIGTERM)
        assert sidecar.wait(30) == 0
    finally:
        sidecar.stop()

    evaluated = sorted(r.key.decode() for r in read_topic(kafka_bootstrap, evaluations))
    assert evaluated == sorted(c.trace_id for c in corpus if c.expected == EVALUATED)
    letters = {}
    for record in read_topic(kafka_bootstrap, dlt):
        headers = {name: value.decode() for name, value in record.headers}
        position = (
            int(headers["citewatch.dlt.original.partition"]),
            int(headers["citewatch.dlt.original.offset"]),
        )
        letters[corpus[where[position]].name] = headers["citewatch.dlt.error.reason"]
        assert record.value == corpus[where[position]].value  # unchanged
    assert letters == {c.name: c.expected for c in corpus if c.expected != EVALUATED}


def _status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


DEADLINE = 4.0


def test_sigterm_during_a_slow_record_exits_zero_within_the_deadline(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    import json

    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=1)
    values = [
        json.dumps(trace_dict(trace_id=f"{i + 1:032x}", question=question)).encode()
        for i, question in enumerate(["fine", "SLOW-STAGE", "fine too"])
    ]

    def send(batch: list[bytes]) -> None:
        producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
        for value in batch:
            producer.send(topic, value=value, partition=0)
        producer.flush(30)
        producer.close(10)

    send(values[:1])
    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        extra=["--judge", "none", "--shutdown-deadline", str(DEADLINE)],
        env={
            "CITEWATCH_REDACTION_NER_DETECTOR": "tests.integration.slow_detector:SlowDetector",
            "CITEWATCH_RUNTIME_SLOW_RECORD_SECONDS": "1",
        },
        log=tmp_path / "sidecar.log",
    )
    try:
        wait_until(
            lambda: offsets(kafka_bootstrap, topic, group)[0].get(0) == 1,
            timeout=60,
            what="the record before the slow one committed",
        )
        send(values[1:])
        wait_until(
            lambda: sidecar.sample("citewatch_slow_records_total", {}) == 1,
            timeout=30,
            interval=0.2,
            what="the slow record counted",
        )
        assert _status(sidecar.metrics_port, "/readyz") == 503
        assert _status(sidecar.metrics_port, "/healthz") == 200
        assert sidecar.sample("citewatch_slow_records_in_progress", {}) == 1
        sent = time.monotonic()
        sidecar.signal(signal.SIGTERM)
        code = sidecar.wait(DEADLINE + 30)
        took = time.monotonic() - sent
    finally:
        sidecar.stop()
    assert code == 0
    assert took < DEADLINE + 1.0  # the deadline, plus the interpreter's own exit
    # The slow record and the one behind it stay uncommitted: replayed by the next owner.
    assert offsets(kafka_bootstrap, topic, group)[0] == {0: 1}
    log = (tmp_path / "sidecar.log").read_text()
    assert "still in evaluation after" in log and "SLOW-STAGE" not in log


def test_sigterm_while_the_broker_is_down_exits_zero_within_the_deadline(
    fresh_broker: Any, tmp_path: Path
) -> None:
    bootstrap = str(fresh_broker.bootstrap)
    topic, evaluations, dlt, group = run_topics(bootstrap, partitions=1)
    sidecar = Sidecar(
        bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        extra=["--judge", "none", "--shutdown-deadline", str(DEADLINE)],
        log=tmp_path / "sidecar.log",
        # Lag is sampled every second, so a sample is waiting on the dead
        # broker when the signal comes (it used to hold SIGTERM for 30 s).
        env={"CITEWATCH_KAFKA_LAG_INTERVAL_SECONDS": "1"},
    )
    try:
        wait_until(sidecar.ready, timeout=60, what="partitions assigned")
        fresh_broker.stop()
        time.sleep(3)  # the client notices: connections fail, retries begin
        sent = time.monotonic()
        sidecar.signal(signal.SIGTERM)
        code = sidecar.wait(DEADLINE + 30)
        took = time.monotonic() - sent
    finally:
        sidecar.stop()
    assert code == 0, (tmp_path / "sidecar.log").read_text()[-3000:]
    assert took < DEADLINE + 1.0
