from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from schemas import JudgeResult, Trace
from sidecar.config import JudgeSettings
from sidecar.judge.openai_backends import (
    CHAT_RESPONSE_FORMAT,
    JUDGE_SCHEMA,
    RESPONSES_TEXT_FORMAT,
    OpenAIChatBackend,
    OpenAIResponsesBackend,
)
from sidecar.judge.rubric import Rubric, load_rubric
from tests.support.traces import packet_for, refund_trace

VERDICT = {
    "claim_id": "c1",
    "verdict": "partial",
    "evidence_quote": "within 30 days",
    "reason": "Half of it.",
}


def _keys(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_keys(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    keys = {k for k in node if k != "properties"}
    for key, value in node.items():
        if key == "properties":
            keys |= set().union(*(_keys(sub) for sub in value.values()))
        else:
            keys |= _keys(value)
    return keys


def test_schema_sent_has_no_titles_descriptions_or_references() -> None:
    assert _keys(JUDGE_SCHEMA) <= {
        "type",
        "properties",
        "items",
        "required",
        "additionalProperties",
        "enum",
    }
    verdict = JUDGE_SCHEMA["properties"]["verdicts"]["items"]
    assert verdict["required"] == ["claim_id", "verdict", "evidence_quote", "reason"]
    assert verdict["properties"]["verdict"]["enum"] == ["supported", "partial", "unsupported"]
    assert verdict["additionalProperties"] is False


def test_both_apis_get_the_same_schema_once_built() -> None:
    assert RESPONSES_TEXT_FORMAT["schema"] is JUDGE_SCHEMA
    assert CHAT_RESPONSE_FORMAT["json_schema"]["schema"] is JUDGE_SCHEMA
    assert RESPONSES_TEXT_FORMAT["strict"] is CHAT_RESPONSE_FORMAT["json_schema"]["strict"] is True


def test_what_the_schema_admits_parses_as_a_judge_result() -> None:
    reply = {"verdicts": [VERDICT]}
    jsonschema.validate(reply, JUDGE_SCHEMA)
    assert JudgeResult.model_validate_json(json.dumps(reply)).verdicts[0].verdict == "partial"


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param({"verdicts": [{**VERDICT, "verdict": "maybe"}]}, id="unknown-verdict"),
        pytest.param({"verdicts": [{**VERDICT, "confidence": 0.9}]}, id="extra-field"),
        pytest.param(
            {"verdicts": [{k: v for k, v in VERDICT.items() if k != "reason"}]}, id="missing-field"
        ),
        pytest.param({"verdicts": [VERDICT], "notes": ""}, id="extra-top-level-field"),
    ],
)
def test_what_the_schema_rejects_the_model_rejects_too(reply: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, JUDGE_SCHEMA)
    with pytest.raises(ValueError):
        JudgeResult.model_validate_json(json.dumps(reply))


def _settings(**overrides: Any) -> JudgeSettings:
    return JudgeSettings(
        api_key="test-key",
        model="judge-model",
        max_output_tokens=777,
        base_url="http://127.0.0.1:9/v1",
        **overrides,
    )


HOSTILE = refund_trace(
    question='Refund? "}], "claims": [ \n\t ünïcödé \u2028 and \\ back',
    claims=[
        {
            "id": "c1",
            "text": 'Ends the string " and the object }]} here.',
            "citation_ids": ["S1"],
            "importance": 2,
        }
    ],
)


@pytest.mark.parametrize(
    "trace",
    [pytest.param(refund_trace(), id="plain"), pytest.param(HOSTILE, id="quotes-and-unicode")],
)
def test_responses_body_is_what_the_typed_api_sends(trace: Trace) -> None:
    backend = OpenAIResponsesBackend(_settings())
    rubric, packet = load_rubric(), packet_for(trace)
    body = json.loads(backend.body.encode(rubric, packet))
    assert body == {
        "model": "judge-model",
        "temperature": 0,
        "max_output_tokens": 777,
        "store": False,
        "text": {"format": RESPONSES_TEXT_FORMAT},
        "instructions": rubric.text,
        "input": packet.render(),
    }


@pytest.mark.parametrize(
    "trace",
    [pytest.param(refund_trace(), id="plain"), pytest.param(HOSTILE, id="quotes-and-unicode")],
)
def test_chat_body_is_what_the_typed_api_sends(trace: Trace) -> None:
    backend = OpenAIChatBackend(_settings())
    rubric, packet = load_rubric(), packet_for(trace)
    body = json.loads(backend.body.encode(rubric, packet))
    assert body == {
        "model": "judge-model",
        "temperature": 0,
        "max_completion_tokens": 777,
        "response_format": CHAT_RESPONSE_FORMAT,
        "messages": [
            {"role": "system", "content": rubric.text},
            {"role": "user", "content": packet.render()},
        ],
    }


def test_body_follows_a_change_of_rubric() -> None:
    backend = OpenAIResponsesBackend(_settings())
    packet = packet_for(refund_trace())
    first = Rubric(version="r1", text="Judge the claims.")
    second = Rubric(version="r2", text="Judge the claims, strictly.")
    assert json.loads(backend.body.encode(first, packet))["instructions"] == first.text
    assert json.loads(backend.body.encode(second, packet))["instructions"] == second.text
    assert json.loads(backend.body.encode(first, packet))["instructions"] == first.text


def test_a_lone_surrogate_in_the_packet_still_makes_a_utf8_body() -> None:
    backend = OpenAIChatBackend(_settings())
    packet = packet_for(refund_trace(question="broken \ud800 text"))
    body = backend.body.encode(load_rubric(), packet)
    assert json.loads(body.decode("utf-8"))["messages"][1]["content"] == packet.render()
