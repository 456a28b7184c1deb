"""Poison records go to the dead-letter topic with headers saying why: unchanged by default
(the input topic holds the same bytes), redacted with dead_letters.payload: redacted."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from kafka import KafkaProducer

from tests.redaction._canary import RAW_VALUES, leaks
from tests.support.factories import claim, trace_dict
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

DUPLICATE_CLAIMS = json.dumps(
    trace_dict(
        trace_id="ab" * 16,
        claims=[claim("c1", "One.", ["S1"]), claim("c1", "Two.", ["S1"])],
    )
).encode()

POISON = [
    pytest.param(b"\x00\x01 garbage \x02", "not_json", id="garbage"),
    pytest.param(b'{"trace_id": "\xff\xfe"}', "not_utf8", id="invalid-utf8"),
    pytest.param(trace_bytes(1)[:-40], "not_json", id="truncated-json"),
    pytest.param(b'{"a": "' + b"x" * (5 * 1024 * 1024) + b'"}', "too_large", id="5mb"),
    pytest.param(b'{"a": ' * 100 + b"1" + b"}" * 100, "too_deep", id="deeply-nested"),
    pytest.param(DUPLICATE_CLAIMS, "invalid_trace", id="duplicate-claim-ids"),
]
REASONS = [p.values[1] for p in POISON]
VALUES = [p.values[0] for p in POISON]


def test_poison_records_are_dead_lettered_with_headers(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=1)
    values: list[bytes] = []
    keys: list[bytes] = []
    for n, value in enumerate(VALUES):
        values += [trace_bytes(2 * n, "ok"), value, trace_bytes(2 * n + 1, "ok")]
        keys += [b"ok", f"poison-{n}".encode(), b"ok"]
    produce(kafka_bootstrap, topic, values, keys)
    source = {r.key: r for r in read_topic(kafka_bootstrap, topic) if r.key != b"ok"}

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

        wait_until(caught_up, timeout=120, what="committed == end offsets")
        dead = {
            reason: sidecar.sample("citewatch_dead_letters_total", {"reason": reason})
            for reason in set(REASONS)
        }
        sidecar.signal(signal.SIGTERM)
        assert sidecar.wait(30) == 0
    finally:
        sidecar.stop()

    assert dead == {reason: REASONS.count(reason) for reason in set(REASONS)}
    letters = {r.key: r for r in read_topic(kafka_bootstrap, dlt)}
    assert sorted(letters) == sorted(source)
    for n, reason in enumerate(REASONS):
        key = f"poison-{n}".encode()
        letter, original = letters[key], source[key]
        assert letter.value == original.value
        headers = {name: value.decode() for name, value in letter.headers}
        assert headers.pop("citewatch.dlt.error.message")
        assert headers.pop("citewatch.dlt.error.class") in ("TraceDecodeError", "TraceInvalidError")
        assert headers == {
            "citewatch.dlt.original.topic": topic,
            "citewatch.dlt.original.partition": str(original.partition),
            "citewatch.dlt.original.offset": str(original.offset),
            "citewatch.dlt.original.timestamp": str(original.timestamp),
            "citewatch.dlt.consumer.group": group,
            "citewatch.dlt.error.reason": reason,
            "citewatch.dlt.payload": "raw",
        }
    evaluated = {r.key.decode() for r in read_topic(kafka_bootstrap, evaluations)}
    assert evaluated == {trace_id(i, "ok") for i in range(2 * len(VALUES))}


CANARY = (
    f"mail {RAW_VALUES['EMAIL']}, call {RAW_VALUES['PHONE']}, "
    f"ssn {RAW_VALUES['US_SSN']}, card {RAW_VALUES['CREDIT_CARD']}"
)
CANARY_POISON = [
    pytest.param(
        f"\x00garbage {CANARY} \x02".encode() + b"\xff", "not_utf8", id="garbage-invalid-utf8"
    ),
    pytest.param(f"not json: {CANARY}".encode(), "not_json", id="not-json"),
    pytest.param(
        json.dumps(
            trace_dict(
                trace_id="cd" * 16,
                question=CANARY,
                claims=[claim("c1", "One.", ["S1"]), claim("c1", "Two.", ["S1"])],
            )
        ).encode(),
        "invalid_trace",
        id="invalid-trace",
    ),
]


def test_redacted_dead_letters_carry_no_seeded_value(kafka_bootstrap: str, tmp_path: Path) -> None:
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=1)
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    try:
        for n, poison in enumerate(CANARY_POISON):
            producer.send(
                topic,
                value=poison.values[0],
                key=f"{RAW_VALUES['EMAIL']}-{n}".encode(),
                headers=[("user", RAW_VALUES["PHONE"].encode()), ("kind", b"poison")],
            )
        producer.send(topic, value=trace_bytes(0, "ok"), key=b"ok")
        producer.flush(60)
    finally:
        producer.close(10)

    sidecar = Sidecar(
        kafka_bootstrap,
        topic=topic,
        group=group,
        evaluations=evaluations,
        dead_letters=dlt,
        log=tmp_path / "sidecar.log",
        env={"CITEWATCH_DEAD_LETTERS_PAYLOAD": "redacted"},
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

    letters = sorted(read_topic(kafka_bootstrap, dlt), key=lambda r: r.offset)
    assert [dict(r.headers)["citewatch.dlt.error.reason"].decode() for r in letters] == [
        p.values[1] for p in CANARY_POISON
    ]
    for n, letter in enumerate(letters):
        headers = dict(letter.headers)
        assert (letter.key, headers["user"], headers["kind"]) == (
            f"<EMAIL_1>-{n}".encode(),
            b"<PHONE_1>",
            b"poison",
        )
        assert headers["citewatch.dlt.payload"] == b"redacted"
        shown = letter.value.decode("utf-8")
        assert "<EMAIL_1>" in shown and "<PHONE_1>" in shown and "<US_SSN_1>" in shown
        assert leaks(shown + letter.key.decode()) == []
    assert json.loads(letters[2].value)["question"] == (
        "mail <EMAIL_1>, call <PHONE_1>, ssn <US_SSN_1>, card <CREDIT_CARD_1>"
    )
    assert leaks((tmp_path / "sidecar.log").read_text(errors="replace")) == []
    # The input topic is where the raw record stays.
    assert [r.value for r in read_topic(kafka_bootstrap, topic)][:3] == [
        p.values[0] for p in CANARY_POISON
    ]
