"""Dead letters carry their record raw or redacted, as dead_letters.payload says, with a
default per sink; a record that does not even parse is redacted as text."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.pipeline import Pipeline
from sidecar.redaction import build_redactor
from sidecar.runtime import build_runtime
from sidecar.runtime.dead_letters import LetterContent, letter_content
from tests.redaction._canary import leaks
from tests.support.factories import claim, trace_dict

REDACTED = LetterContent("redacted", build_redactor(Settings().redaction))


@pytest.mark.parametrize(
    ("raw", "carried"),
    [
        pytest.param(
            b"\x00\x01 call (415) 555-2671 \x02",
            b"\x00\x01 call <PHONE_1> \x02",
            id="garbage-as-text",
        ),
        pytest.param(
            b'{"q": "ssn 536-22-1234 \xff"}',
            '{"q": "ssn <US_SSN_1> \ufffd"}'.encode(),
            id="invalid-utf8-replaced",
        ),
        pytest.param(
            b'{"q": "canary.person@example.com", "a": ',
            b'{"q": "<EMAIL_1>", "a": ',
            id="truncated-json",
        ),
        pytest.param(
            b'{"q": "mail canary.person\\u0040example.com", "n": "call\\n4155552671"}',
            b'{"q": "mail <EMAIL_1>", "n": "call\\n<PHONE_1>"}',
            id="json-escapes",
        ),
        pytest.param(
            b'{"extra": {"password": "crickets"}}',
            b'{"extra": {"password": "<SECRET_1>"}}',
            id="keyed-value-keeps-its-key",
        ),
        pytest.param(
            b'{"k": "x", "k": "canary.person\\u0040example.com"}',
            b'{"k": "x", "k": "<EMAIL_1>"}',
            id="duplicate-keys-kept",
        ),
        pytest.param(
            b'{"a": 1,\n  "b": [true, null]}',
            b'{"a": 1,\n  "b": [true, null]}',
            id="nothing-found-same-bytes",
        ),
        pytest.param(b"\xff\xfe", "\ufffd\ufffd".encode(), id="invalid-utf8-alone"),
    ],
)
def test_a_redacted_letter_redacts_its_value_as_text_and_as_json(
    raw: bytes, carried: bytes
) -> None:
    assert REDACTED.value(raw) == carried


def test_a_redacted_letter_redacts_key_and_headers_and_keeps_what_holds_nothing() -> None:
    headers = [
        ("traceparent", b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        ("user", b"canary.person@example.com"),
        ("empty", None),
    ]
    assert REDACTED.key(b"canary.person@example.com") == b"<EMAIL_1>"
    assert REDACTED.key(b"trace-7") == b"trace-7"
    assert REDACTED.key(None) is None
    assert REDACTED.headers(headers) == (headers[0], ("user", b"<EMAIL_1>"), ("empty", None))
    assert REDACTED.text(b"card 4111 1111 1111 1111\r\n") == "card <CREDIT_CARD_1>"


def test_a_raw_letter_carries_the_bytes_as_read() -> None:
    raw = LetterContent("raw")
    value = b'{"q": "canary.person@example.com"}'
    assert (raw.value(value), raw.key(b"k"), raw.headers([("h", b"v")])) == (
        value,
        b"k",
        (("h", b"v"),),
    )
    assert raw.text(b"canary.person@example.com \xff\n") == "canary.person@example.com \ufffd"


def test_a_redaction_that_raises_withholds_the_value() -> None:
    class Broken:
        def redact_text(self, text: str, scope: object) -> object:
            raise RuntimeError(text)

    broken = LetterContent("redacted", Broken())  # type: ignore[arg-type]
    assert broken.value(b"canary.person@example.com") == b"<REDACTED>"


@pytest.mark.parametrize(
    ("settings", "sink", "payload"),
    [
        pytest.param({}, "kafka", "raw", id="kafka-default-raw"),
        pytest.param({}, "file", "redacted", id="file-default-redacted"),
        pytest.param(
            {"dead_letters": {"payload": "redacted"}}, "kafka", "redacted", id="kafka-redacted"
        ),
        pytest.param({"dead_letters": {"payload": "raw"}}, "file", "raw", id="file-raw"),
        pytest.param(
            {"redaction": {"enabled": False}}, "file", "raw", id="redaction-off-file-default-raw"
        ),
    ],
)
def test_each_sink_has_its_default_and_the_setting_overrides_it(
    settings: dict[str, object], sink: str, payload: str
) -> None:
    built = Settings(**settings)  # type: ignore[arg-type]
    content = letter_content(built, Pipeline(built), sink=sink)  # type: ignore[arg-type]
    assert content.payload == payload


def test_redacted_letters_need_redaction_on() -> None:
    settings = Settings(redaction={"enabled": False}, dead_letters={"payload": "redacted"})
    with pytest.raises(ConfigError, match="dead_letters.payload redacted needs redaction"):
        letter_content(settings, Pipeline(settings), sink="kafka")


CANARY_LINE = b"not json: canary.person@example.com, (415) 555-2671, ssn 536-22-1234"
INVALID_TRACE = json.dumps(
    trace_dict(
        trace_id="ab" * 16,
        question="Mail canary.person@example.com?",
        claims=[claim("c1", "One.", ["S1"]), claim("c1", "Two.", ["S1"])],
    )
).encode()


@pytest.mark.parametrize(
    ("configured", "redacted"),
    [
        pytest.param(None, True, id="default-redacted"),
        pytest.param("redacted", True, id="redacted"),
        pytest.param("raw", False, id="raw"),
    ],
)
def test_the_dead_letter_file_carries_what_the_setting_says(
    tmp_path: Path, configured: str | None, redacted: bool
) -> None:
    source, output, dead = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "dlt"
    source.write_bytes(CANARY_LINE + b"\n" + INVALID_TRACE + b"\n")
    settings = Settings(
        input={"path": str(source), "output": str(output), "dead_letters": str(dead), "once": True},
        dead_letters={"payload": configured},
    )
    runtime = build_runtime(
        settings,
        pipeline=Pipeline(settings),
        metrics=CitewatchMetrics(registry=CollectorRegistry()),
    )
    runtime.run(threading.Event())
    letters = [json.loads(line) for line in dead.read_text().splitlines()]
    assert [(letter["line"], letter["reason"], letter["payload"]) for letter in letters] == [
        (1, "not_json", "redacted" if redacted else "raw"),
        (2, "invalid_trace", "redacted" if redacted else "raw"),
    ]
    values = [letter["value"] for letter in letters]
    if redacted:
        assert values[0] == "not json: <EMAIL_1>, <PHONE_1>, ssn <US_SSN_1>"
        assert json.loads(values[1])["question"] == "Mail <EMAIL_1>?"
        assert leaks(dead.read_text()) == []
    else:
        assert values == [CANARY_LINE.decode(), INVALID_TRACE.decode()]
