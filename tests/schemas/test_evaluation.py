"""The evaluation record's claim fields that must agree with each other."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from schemas import ClaimPath, ClaimResult


def _claim(**fields: Any) -> dict[str, Any]:
    return {
        "claim_id": "c1",
        "text": "t",
        "importance": 3,
        "kind": "factual",
        "status": "cited",
        "citation_ids": ["S1"],
        **fields,
    }


@pytest.mark.parametrize(
    ("not_judged", "detail"),
    [
        pytest.param("suspect", "number", id="suspect-number"),
        pytest.param("suspect", "other", id="suspect-other"),
        pytest.param("unverified", "injection_influenced", id="unverified-injection"),
        pytest.param("unverified", "quote_incomplete", id="unverified-quote"),
        pytest.param("abstained", None, id="abstained"),
        pytest.param("judge_failed", None, id="judge-failed"),
        pytest.param(None, None, id="judged"),
    ],
)
def test_a_detail_from_the_vocabulary_of_its_reason_is_accepted(
    not_judged: str | None, detail: str | None
) -> None:
    result = ClaimResult.model_validate(_claim(not_judged=not_judged, not_judged_detail=detail))
    assert (result.not_judged, result.not_judged_detail) == (not_judged, detail)


@pytest.mark.parametrize(
    ("not_judged", "detail"),
    [
        pytest.param("suspect", None, id="suspect-without-detail"),
        pytest.param("suspect", "injection_influenced", id="suspect-with-unverified-detail"),
        pytest.param("unverified", "number", id="unverified-with-suspect-detail"),
        pytest.param("unverified", None, id="unverified-without-detail"),
        pytest.param("abstained", "number", id="abstained-with-detail"),
        pytest.param(None, "quote_incomplete", id="detail-without-reason"),
        pytest.param("suspect", "typo", id="unknown-detail"),
    ],
)
def test_a_detail_that_does_not_match_its_reason_is_refused(
    not_judged: str | None, detail: str | None
) -> None:
    with pytest.raises(ValidationError):
        ClaimResult.model_validate(_claim(not_judged=not_judged, not_judged_detail=detail))


def test_the_path_round_trips_and_refuses_unknown_fields() -> None:
    path = {"screen": "suspect", "llm": "supported", "rejudge": "unsupported", "agreed": False}
    result = ClaimResult.model_validate(
        _claim(path=path, not_judged="unverified", not_judged_detail="injection_influenced")
    )
    assert result.path == ClaimPath(**path)
    assert ClaimResult.model_validate_json(result.model_dump_json()) == result
    with pytest.raises(ValidationError):
        ClaimPath.model_validate({"screen": "unsupported"})
    with pytest.raises(ValidationError):
        ClaimPath.model_validate({"judge": "supported"})
