"""kafka-python's lines are written without the records and bytes they carry: at -vv it logs
every fetch response and every record it produces, a dead letter's raw trace among them."""

from __future__ import annotations

import logging

import pytest

from sidecar.cli._logging import HideKafkaPayloads

RAW = b'{"question": "Can I get a refund?"}'


class FetchResponse:
    def __repr__(self) -> str:
        return f"FetchResponse(records={RAW!r})"


class ProduceRequest:
    def __repr__(self) -> str:
        return f"ProduceRequest(records={RAW!r})"


def _written(name: str, message: str, *args: object) -> str:
    record = logging.LogRecord(name, logging.DEBUG, __file__, 1, message, args, None)
    HideKafkaPayloads().filter(record)
    return record.getMessage()


@pytest.mark.parametrize(
    ("name", "message", "args", "written"),
    [
        pytest.param(
            "kafka.protocol.parser",
            "%s Recv: %r",
            ("node=1", RAW),
            "node=1 Recv: <35 bytes>",
            id="raw-bytes",
        ),
        pytest.param(
            "kafka.net.connection",
            "%s: Response %d (%s ms): %s",
            ("<KafkaConnection node_id=1>", 11, "3.2", FetchResponse()),
            "<KafkaConnection node_id=1>: Response 11 (3.2 ms): <FetchResponse>",
            id="protocol-message",
        ),
        pytest.param(
            "kafka.producer.kafka",
            "%s: Sending (key=%r value=%r headers=%r) to %s",
            ("producer", None, RAW, [("citewatch.dlt.original.topic", b"t")], "tp"),
            "producer: Sending (key=None value=<35 bytes> headers=<list of 1>) to tp",
            id="dead-letter-record",
        ),
        pytest.param(
            "kafka.producer.sender",
            "%s: Created %d produce requests: %s",
            ("<Sender>", 1, {1: ProduceRequest()}),
            "<Sender>: Created 1 produce requests: <dict of 1>",
            id="requests-in-a-dict",
        ),
        pytest.param(
            "kafka.net.manager",
            "Bootstrap connection to %s failed: %s",
            ("bootstrap-0", "socket disconnected"),
            "Bootstrap connection to bootstrap-0 failed: socket disconnected",
            id="connection-line-kept",
        ),
        pytest.param(
            "sidecar.runtime.consumer",
            "value %r",
            (RAW,),
            f"value {RAW!r}",
            id="not-kafka-python",
        ),
    ],
)
def test_kafka_python_lines_lose_their_payloads_only(
    name: str, message: str, args: tuple[object, ...], written: str
) -> None:
    assert _written(name, message, *args) == written
