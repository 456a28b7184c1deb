"""SIGTERM in the middle of a run: exit 0 within the deadline, finished work committed."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tests.support.kafka import (
    Sidecar,
    offsets,
    produce,
    read_topic,
    run_topics,
    trace_bytes,
    wait_until,
)

pytestmark = pytest.mark.integration

DEADLINE = 5.0


def test_sigterm_exits_zero_within_deadline_with_offsets_committed(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=3)
    total = produce(kafka_bootstrap, topic, (trace_bytes(i, topic) for i in range(6000)))
    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        extra=["--shutdown-deadline", str(DEADLINE)],
        log=tmp_path / "sidecar.log",
    )
    try:
        wait_until(
            lambda: sum(offsets(kafka_bootstrap, topic, group)[0].values()) > 500,
            timeout=120,
            interval=0.2,
            what="some progress",
        )
        sent = time.monotonic()
        sidecar.signal(signal.SIGTERM)
        code = sidecar.wait(DEADLINE + 15)
        took = time.monotonic() - sent
    finally:
        sidecar.stop()

    assert code == 0
    assert took < DEADLINE + 10  # deadline plus producer flush and close timeouts
    committed, ends = offsets(kafka_bootstrap, topic, group)
    assert sum(ends.values()) == total
    assert 0 < sum(committed.values()) < total  # stopped in the middle
    by_position = {(r.partition, r.offset): r.value for r in read_topic(kafka_bootstrap, topic)}
    evaluated = {r.key.decode() for r in read_topic(kafka_bootstrap, evaluations)}
    committed_ids = {
        json.loads(value)["trace_id"]
        for (partition, offset), value in by_position.items()
        if offset < committed.get(partition, 0)
    }
    # Everything committed was evaluated, and everything evaluated was committed.
    assert evaluated == committed_ids
