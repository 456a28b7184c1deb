"""What real OpenTelemetry-instrumented RAG apps send, spans made by the opentelemetry-sdk
and encoded as the Collector writes them, through `citewatch check` and `citewatch run
--input --once`: the answer among several LLM spans, split traces, content on span events,
OpenInference parts and raw provider output, OpenLLMetry attributes, reranked documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.decode import DecodeLimits, decode_trace
from tests.inputs._cli import COMMANDS, evaluate, findings
from tests.support.payloads import RETRIEVED, WARRANTY_TEXT, otlp_json_record, spans_of

ANSWER = "The warranty lasts 24 months [warranty-2]."
QUESTION = "How long is the warranty?"
JSON = DecodeLimits(input_format="otlp_json")
LLM = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4.1-mini"}


def _record(*children: tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]) -> bytes:
    """One trace: a root chain span (the user's question) over a retriever span and then
    ``children`` (name, attributes, events), in order."""

    def build(tracer: Any) -> None:
        with tracer.start_as_current_span(
            "query", attributes={"openinference.span.kind": "CHAIN", "input.value": QUESTION}
        ):
            with tracer.start_as_current_span("retrieve", attributes=RETRIEVED):
                pass
            for name, attributes, events in children:
                with tracer.start_as_current_span(name, attributes=attributes) as span:
                    for event, event_attributes in events:
                        span.add_event(event, event_attributes)

    return otlp_json_record(spans_of(build))


def _claims(tmp_path: Path, command: str, record: bytes) -> list[tuple[str, list[str]]]:
    [evaluation], letters = evaluate(tmp_path, command, "otlp_json", record)
    assert letters == []
    return [(c.text, c.citation_ids) for c in evaluation.claims]


PROMPT = f"Answer from these passages, citing [id].\n[warranty-2] {WARRANTY_TEXT}"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_follow_up_call_after_the_answer_is_not_the_answer(tmp_path: Path, command: str) -> None:
    record = _record(
        (
            "answer",
            {
                **LLM,
                "llm.input_messages.0.message.role": "system",
                "llm.input_messages.0.message.content": PROMPT,
                "llm.input_messages.1.message.role": "user",
                "llm.input_messages.1.message.content": QUESTION,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": ANSWER,
            },
            [],
        ),
        (
            "suggest",
            {
                **LLM,
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": "Suggest three follow-up questions.",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": "What about returns? Is it transferable?",
            },
            [],
        ),
    )
    [evaluation], _ = evaluate(tmp_path, command, "otlp_json", record)
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]
    assert findings(evaluation, "answer_chosen") == [
        (None, "LLM span 'answer' of 2: its prompt holds the retrieved documents")
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_record_with_only_the_llm_span_of_a_split_trace_is_refused(
    tmp_path: Path, command: str
) -> None:
    def build(tracer: Any) -> None:
        attributes = {**LLM, "llm.output_messages.0.message.content": ANSWER}
        with tracer.start_as_current_span("llm", attributes=attributes):
            pass

    evaluations, [letter] = evaluate(
        tmp_path, command, "otlp_json", otlp_json_record(spans_of(build))
    )
    assert evaluations == []
    assert "no retriever span" in str(letter)


@pytest.mark.parametrize("command", COMMANDS)
def test_genai_content_on_span_events_is_read(tmp_path: Path, command: str) -> None:
    """As Azure AI Inference writes them: the message JSON in ``gen_ai.event.content``."""
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
    events = [
        ("gen_ai.system.message", {"gen_ai.event.content": json.dumps({"content": PROMPT})}),
        ("gen_ai.user.message", {"gen_ai.event.content": json.dumps({"content": QUESTION})}),
        (
            "gen_ai.choice",
            {
                "gen_ai.event.content": json.dumps(
                    {"finish_reason": "stop", "index": 0, "message": {"content": ANSWER}}
                )
            },
        ),
    ]
    assert _claims(tmp_path, command, _record(("chat gpt-4o", chat, events))) == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_operation_details_event_is_read(tmp_path: Path, command: str) -> None:
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
    output = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
    details = (
        "gen_ai.client.inference.operation.details",
        {"gen_ai.output.messages": json.dumps(output)},
    )
    assert _claims(tmp_path, command, _record(("chat", chat, [details]))) == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_openinference_message_contents_parts_are_read(tmp_path: Path, command: str) -> None:
    parts = {
        **LLM,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.contents.0.message_content.type": "text",
        "llm.output_messages.0.message.contents.0.message_content.text": ANSWER,
    }
    assert _claims(tmp_path, command, _record(("llm", parts, []))) == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_output_value_holding_the_providers_raw_response_is_unpacked(
    tmp_path: Path, command: str
) -> None:
    raw = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}}],
    }
    span = {**LLM, "output.value": json.dumps(raw), "output.mime_type": "application/json"}
    assert _claims(tmp_path, command, _record(("llm", span, []))) == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_openllmetry_spans_are_llm_spans(tmp_path: Path, command: str) -> None:
    traceloop = {
        "llm.request.type": "chat",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": PROMPT,
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": QUESTION,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": ANSWER,
    }
    [evaluation], _ = evaluate(
        tmp_path, command, "otlp_json", _record(("openai.chat", traceloop, []))
    )
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]
    assert evaluation.generator.model == "gpt-4o"


def test_the_question_is_the_roots_input_not_the_retrievers_json() -> None:
    span = {**LLM, "llm.output_messages.0.message.content": ANSWER}
    trace = decode_trace(_record(("llm", span, [])), limits=JSON)
    assert trace.question == QUESTION


@pytest.mark.parametrize("command", COMMANDS)
def test_a_reranker_orders_the_sources_as_the_prompt_saw_them(tmp_path: Path, command: str) -> None:
    reranker = {
        "openinference.span.kind": "RERANKER",
        "reranker.output_documents.0.document.id": "returns-1",
        "reranker.output_documents.1.document.id": "warranty-2",
    }
    span = {**LLM, "llm.output_messages.0.message.content": ANSWER}
    record = _record(("rerank", reranker, []), ("llm", span, []))
    trace = decode_trace(record, limits=JSON)
    assert [s.id for s in trace.sources] == ["returns-1", "warranty-2"]
    assert _claims(tmp_path, command, record) == [("The warranty lasts 24 months.", ["warranty-2"])]
