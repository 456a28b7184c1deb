from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from schemas import JudgeResult
from sidecar.judge.openai_backends import (
    CHAT_RESPONSE_FORMAT,
    JUDGE_SCHEMA,
    RESPONSES_TEXT_FORMAT,
)

VERDICT = {"claim_id": "c1", "verdict": "partial", "evidence_quote": "within 30 days",
           "reason": "Half of it."}


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
    assert _keys(JUDGE_SCHEMA) <= {"type", "properties", "items", "required",
                                   "additionalProperties", "enum"}
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


@pytest.mark.parametrize("reply", [
    pytest.param({"verdicts": [{**VERDICT, "verdict": "maybe"}]}, id="unknown-verdict"),
    pytest.param({"verdicts": [{**VERDICT, "confidence": 0.9}]}, id="extra-field"),
    pytest.param({"verdicts": [{k: v for k, v in VERDICT.items() if k != "reason"}]},
                 id="missing-field"),
    pytest.param({"verdicts": [VERDICT], "notes": ""}, id="extra-top-level-field"),
])
def test_what_the_schema_rejects_the_model_rejects_too(reply: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, JUDGE_SCHEMA)
    with pytest.raises(ValueError):
        JudgeResult.model_validate_json(json.dumps(reply))
