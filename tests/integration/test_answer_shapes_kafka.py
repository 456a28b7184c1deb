"""Through the real broker: a marker-first answer and one numbered by position, with an
honest OpenAI-compatible judge, are evaluated claim by claim and the importance-3 claim the
passage contradicts is counted in citewatch_critical_unsupported_claims_total (the counter
the paging alert reads)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.cli.test_answer_shapes_judged import (
    EXPECTED,
    PRICE,
    UPGRADE_CLAIM,
    UPGRADE_PASSAGE,
    _claims,
    _env,
    honest,
)
from tests.support.factories import make_trace, source
from tests.support.kafka import Sidecar, offsets, produce, read_topic, run_topics, wait_until
from tests.support.openai_server import FakeOpenAI

pytestmark = pytest.mark.integration


def test_answer_shapes_through_the_broker_page(kafka_bootstrap: str, tmp_path: Path) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=1)
    marker_first = make_trace(
        trace_id="4bf92f3577b34da6a3ce929d0e0e4701",
        answer=f"[S1] {PRICE} [S2] {UPGRADE_CLAIM}",
        claims=[],
        sources=[source("S1", PRICE), source("S2", UPGRADE_PASSAGE)],
    )
    by_position = make_trace(
        trace_id="4bf92f3577b34da6a3ce929d0e0e4702",
        answer=f"- [1] {PRICE}\n- [2] {UPGRADE_CLAIM}",
        claims=[],
        sources=[source("kb-pricing-2", PRICE), source("kb-upgrades-7", UPGRADE_PASSAGE)],
    )
    produce(
        kafka_bootstrap,
        topic,
        [t.model_dump_json().encode() for t in (marker_first, by_position)],
    )
    with FakeOpenAI(responder=honest) as judge:
        sidecar = Sidecar(
            kafka_bootstrap,
            topic=topic,
            group=group,
            evaluations=evaluations,
            dead_letters=dlt,
            extra=["--judge", "openai-chat"],
            env={**_env(judge), "CITEWATCH_SAMPLING_RATE": "1"},
            log=tmp_path / "sidecar.log",
        )
        try:

            def caught_up() -> bool:
                committed, ends = offsets(kafka_bootstrap, topic, group)
                return bool(committed) and committed == ends

            wait_until(caught_up, timeout=120, interval=1.0, what="committed == end offsets")

            def paged() -> float:
                return sidecar.sample(
                    "citewatch_critical_unsupported_claims_total",
                    {"app": "support", "reason": "judged_unsupported"},
                )

            wait_until(lambda: paged() == 2, timeout=30, interval=0.5, what="two critical claims")
            critical = paged()
            sidecar.signal(signal.SIGTERM)
            assert sidecar.wait(30) == 0
        finally:
            sidecar.stop()

    records = {
        r["trace_id"]: r
        for r in map(json.loads, (m.value for m in read_topic(kafka_bootstrap, evaluations)))
    }
    assert _claims(records[marker_first.trace_id]) == EXPECTED
    assert _claims(records[by_position.trace_id]) == [
        (PRICE, ["kb-pricing-2"], "supported", None),
        (UPGRADE_CLAIM, ["kb-upgrades-7"], "unsupported", "judged_unsupported"),
    ]
    assert critical == 2
