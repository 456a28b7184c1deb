"""Two replicas of `citewatch run` feed one review store through the review topic: every
routed claim arrives once, none twice, and none carries the personal data of its trace."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sidecar.assembly import build_pipeline
from sidecar.config import load_settings
from sidecar.decode import decode_trace
from sidecar.review.sink import ReviewSink
from sidecar.review.store import ReviewStore
from tests.support.factories import claim, source, trace_dict
from tests.support.kafka import (
    ROOT,
    Sidecar,
    new_topics,
    offsets,
    produce,
    read_topic,
    trace_id,
    unique,
    wait_until,
)

pytestmark = pytest.mark.integration

TRACES = 120
SETTINGS = {
    "CITEWATCH_JUDGE_BACKEND": "lexical",
    "CITEWATCH_SAMPLING_RATE": "1.0",
    "CITEWATCH_REVIEW_AUDIT_RATE": "0.3",
}
SECRETS = ("example.com", "415 555", "4111 1111", "4111111111111111")


def _trace(i: int, salt: str) -> dict[str, Any]:
    email, phone = f"jane.doe{i}@example.com", f"+1 415 555 {i:04d}"
    return trace_dict(
        trace_id=trace_id(i, salt),
        question=f"Can I get a refund? Reply to {email}.",
        answer="Refunds are available within 30 days [S1]. Refunds go back to the original "
        "payment method [S2].",
        sources=[
            source(
                "S1", f"Refunds are available within 30 days. Write to {email} or call {phone}."
            ),
            source(
                "S2",
                "Approved refunds are returned to the original payment method, card "
                "4111 1111 1111 1111.",
            ),
        ],
        claims=[
            claim("c1", "Refunds are available within 30 days.", ["S1"], 2),
            claim("c2", "Refunds go back to the original payment method.", ["S2"], 3),
            claim("c3", f"Write to {email} for help.", ["S1"], 1),
        ],
    )


def _expected(traces: list[dict[str, Any]]) -> dict[str, Any]:
    """The items the same settings route in process, by item ID."""
    settings = load_settings(
        overrides={"judge.backend": "lexical", "sampling.rate": 1.0, "review.audit_rate": 0.3}
    )
    pipeline = build_pipeline(settings)
    sink = ReviewSink(settings.review)
    pipeline.on_redacted = sink.observe

    async def run() -> dict[str, Any]:
        items = {}
        for trace in traces:
            record = await pipeline.evaluate(decode_trace(json.dumps(trace)))
            items.update({item.item_id: item for item in sink.take(record)})
        return items

    return asyncio.run(run())


def test_two_replicas_feed_one_store_through_the_review_topic(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic, evaluations, dlt, review = new_topics(
        kafka_bootstrap, "traces", "evals", "dlt", "review", partitions=3
    )
    group = unique("group")
    salt = unique("salt")
    traces = [_trace(i, salt) for i in range(TRACES)]
    expected = _expected(traces)
    reasons = Counter(r for item in expected.values() for r in item.reasons)
    assert reasons["abstained_critical"] == TRACES and reasons["audit"] > 0

    env = {**SETTINGS, "CITEWATCH_REVIEW_TOPIC": review}
    replicas = [
        Sidecar(
            kafka_bootstrap,
            topic=topic,
            group=group,
            evaluations=evaluations,
            dead_letters=dlt,
            env=env,
            log=tmp_path / f"replica{n}.log",
        )
        for n in (1, 2)
    ]
    store = tmp_path / "review.sqlite"
    try:
        wait_until(
            lambda: all(r.ready() for r in replicas),
            timeout=120,
            what="both replicas assigned partitions",
        )
        produce(kafka_bootstrap, topic, [json.dumps(t).encode() for t in traces])

        def caught_up() -> bool:
            committed, ends = offsets(kafka_bootstrap, topic, group)
            return bool(committed) and committed == ends and sum(ends.values()) == TRACES

        wait_until(caught_up, timeout=240, interval=1.0, what="committed == end offsets")
        routed = [
            sum(
                r.sample("citewatch_review_items_routed_total", {"reason": reason})
                for reason in reasons
            )
            for r in replicas
        ]
        for replica in replicas:
            replica.signal(signal.SIGTERM)
            assert replica.wait(30) == 0
    finally:
        for replica in replicas:
            replica.stop()
    # Both replicas routed claims (each owned partitions) and together at least every one.
    assert all(count > 0 for count in routed)
    assert sum(routed) >= sum(reasons.values())

    on_topic = Counter(r.key.decode() for r in read_topic(kafka_bootstrap, review))
    assert set(on_topic) == set(expected)

    consume_env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
    with open(tmp_path / "consume.log", "wb") as log:
        consumer = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sidecar.cli",
                "review",
                "consume",
                "--bootstrap-servers",
                kafka_bootstrap,
                "--topic",
                review,
                "--group",
                unique("review-group"),
                "--store",
                str(store),
            ],
            cwd=ROOT,
            env={**consume_env, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:

        def stored() -> bool:
            if not store.exists():
                return False
            with ReviewStore(store) as opened:
                return len(opened.items()) >= len(expected)

        wait_until(stored, timeout=120, what="every routed claim in the store")
        consumer.send_signal(signal.SIGTERM)
        assert consumer.wait(30) == 0
    finally:
        if consumer.poll() is None:
            consumer.kill()
            consumer.wait(10)

    with ReviewStore(store) as opened:
        items = opened.items()
    assert len(items) == len(expected)  # none twice
    assert {i.item_id for i in items} == set(expected)  # every one
    assert {i.item_id: i.model_dump(exclude={"evaluated_at"}) for i in items} == {
        k: v.model_dump(exclude={"evaluated_at"}) for k, v in expected.items()
    }
    passages = [p.text for i in items for p in i.passages]
    assert passages and all("<EMAIL_" in t or "<CREDIT_CARD_" in t for t in passages)
    # None raw: the seeded personal data is nowhere in the store's files.
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("review.sqlite*"))
    for secret in SECRETS:
        assert secret.encode() not in raw
    assert "consume" in (tmp_path / "consume.log").read_text()
