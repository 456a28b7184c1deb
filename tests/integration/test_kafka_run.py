"""`citewatch run` against a real broker: everything evaluated once, offsets committed."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

import pytest

from tests.support.kafka import (
    Sidecar,
    offsets,
    produce,
    read_topic,
    run_topics,
    trace_bytes,
    trace_id,
    wait_until,
)

pytestmark = pytest.mark.integration

TRACES = 10_000
REPLAYED = 200


def test_ten_thousand_traces_each_evaluated_once_and_committed(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=3)
    # The last REPLAYED records repeat earlier trace_ids, as a producer retry would.
    values = [trace_bytes(i) for i in range(TRACES)] + [trace_bytes(i) for i in range(REPLAYED)]
    produce(kafka_bootstrap, topic, values)

    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        log=tmp_path / "sidecar.log",
    )
    try:

        def caught_up() -> bool:
            committed, ends = offsets(kafka_bootstrap, topic, group)
            return bool(committed) and committed == ends

        wait_until(caught_up, timeout=240, interval=1.0, what="committed == end offsets")
        assert sidecar.ready()
        evaluated = sidecar.sample(
            "citewatch_traces_total", {"app": "support", "outcome": "evaluated"}
        )
        duplicates = sidecar.sample(
            "citewatch_traces_total", {"app": "support", "outcome": "duplicate"}
        )
        sidecar.signal(signal.SIGTERM)
        assert sidecar.wait(30) == 0
    finally:
        sidecar.stop()

    committed, ends = offsets(kafka_bootstrap, topic, group)
    assert committed == ends
    assert sum(ends.values()) == TRACES + REPLAYED
    keys = Counter(r.key.decode() for r in read_topic(kafka_bootstrap, evaluations))
    assert set(keys) == {trace_id(i) for i in range(TRACES)}
    assert max(keys.values()) == 1
    assert (evaluated, duplicates) == (TRACES, REPLAYED)
    assert read_topic(kafka_bootstrap, dlt) == []
