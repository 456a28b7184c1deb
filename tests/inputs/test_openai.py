"""The OpenAI adapters, fed records built with the openai SDK's own response models."""

from __future__ import annotations

import json

import pytest

from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from tests.support.payloads import (
    RETURNS_TEXT,
    WARRANTY_TEXT,
    WARRANTY_URL,
    chat_record,
    responses_record,
)

RESPONSES = DecodeLimits(input_format="openai_responses")
CHAT = DecodeLimits(input_format="openai_chat")


def test_responses_annotations_become_markers_and_sources() -> None:
    trace = decode_trace(responses_record(), limits=RESPONSES)
    assert trace.answer == (
        "The warranty lasts 24 months [W1]. Returns are free within 30 "
        "days. [F1] Shipping is always free."
    )
    assert [(s.id, s.title, s.text, s.url) for s in trace.sources] == [
        ("W1", "Warranty", WARRANTY_TEXT, WARRANTY_URL),
        ("F1", "returns.md", RETURNS_TEXT, None),
    ]
    assert trace.question == "What are the warranty and returns?"
    assert (trace.app, trace.generator.model, trace.claims) == ("shop", "gpt-4.1", [])
    assert trace.timestamp.isoformat() == "2025-12-02T18:26:40+00:00"


def test_responses_trace_id_is_stable_per_response_and_kept_from_the_envelope() -> None:
    first = decode_trace(responses_record(), limits=RESPONSES).trace_id
    assert first == decode_trace(responses_record(), limits=RESPONSES).trace_id
    given = "0af7651916cd43dd8448eb211c80319c"
    assert decode_trace(responses_record(trace_id=given), limits=RESPONSES).trace_id == given


def test_a_bare_response_reads_without_an_envelope() -> None:
    response = json.loads(responses_record())["response"]
    trace = decode_trace(json.dumps(response).encode(), limits=RESPONSES)
    assert trace.app == "default"
    # the file search's results are retrieved first; no page text is given for the URL
    assert [(s.id, s.text) for s in trace.sources] == [("F1", RETURNS_TEXT), ("W1", "")]


def test_chat_completion_url_citation_replaces_the_inline_link() -> None:
    trace = decode_trace(chat_record(), limits=CHAT)
    assert trace.answer == "The warranty lasts 24 months [W1]."
    assert [(s.id, s.text) for s in trace.sources] == [("W1", WARRANTY_TEXT)]
    assert trace.question == "How long is the warranty?"
    assert trace.generator.model == "gpt-4o-search-preview"


def _with_response(record: bytes, change: dict[str, object]) -> bytes:
    data = json.loads(record)
    data["response"].update(change)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("record", "limits", "message"),
    [
        pytest.param(
            _with_response(responses_record(), {"output": "secret text"}),
            RESPONSES,
            "response.output is not a list",
            id="responses-output-not-list",
        ),
        pytest.param(
            _with_response(responses_record(), {"output": []}),
            RESPONSES,
            "the response has no output_text",
            id="responses-no-text",
        ),
        pytest.param(
            _with_response(chat_record(), {"choices": []}),
            CHAT,
            "response.choices holds no choice",
            id="chat-no-choice",
        ),
        pytest.param(
            b'{"app": "a", "response": {"x": 1}, "response": {"y": 2}}',
            CHAT,
            "not JSON (at line 1 column",
            id="duplicate-key",
        ),
        pytest.param(
            b'{"secret text": 1}',
            RESPONSES,
            "neither an envelope with a response nor a response",
            id="not-an-envelope",
        ),
        pytest.param(
            responses_record(trace_id="not hex"),
            RESPONSES,
            "trace_id must be 32 hex digits",
            id="bad-trace-id",
        ),
    ],
)
def test_unreadable_records_are_refused_with_a_reason_and_no_text(
    record: bytes, limits: DecodeLimits, message: str
) -> None:
    with pytest.raises(TraceError) as caught:
        decode_trace(record, limits=limits)
    assert caught.value.reason == "unreadable_input"
    assert message in str(caught.value)
    assert "secret" not in str(caught.value)


def test_an_annotation_index_that_is_not_a_number_is_refused() -> None:
    data = json.loads(responses_record())
    data["response"]["output"][1]["content"][0]["annotations"][1]["index"] = "12"
    with pytest.raises(TraceError, match="index is not an integer"):
        decode_trace(json.dumps(data).encode(), limits=RESPONSES)


def test_the_adapted_trace_is_held_to_the_trace_limits() -> None:
    limits = DecodeLimits(input_format="openai_chat", max_text_chars=10)
    with pytest.raises(TraceError) as caught:
        decode_trace(chat_record(), limits=limits)
    assert caught.value.reason == "text_too_long"
