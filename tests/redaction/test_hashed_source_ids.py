"""A source ID that holds personal data is hashed, and stays one key everywhere in the trace:
claims that cite it find its passage, so a hashed source is judged exactly like any other."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.config import load_settings
from sidecar.pipeline import Pipeline
from tests.support.factories import claim, make_trace, source

PASSAGES = (
    "The Basic plan costs 20 EUR a month.",
    "Upgrades take effect at once.",
    "Refunds are paid within 14 days of the request.",
)
CLAIMS = (
    "The Basic plan costs 20 EUR a month.",
    "Upgrades take effect at once.",
    "Refunds are paid within 30 days of the request.",
)

PERSONAL_IDS = [
    "jane.doe@example.com",
    "cust-0151-555-0142",
    "cust-+1-202-555-0142",
    "cust_jane.doe@example.com",
    "order_4111111111111111",
    "doc_+49 30 1234567",
]
PLAIN_IDS = ["kb-warranty-2", "docs/shipping.md", "3f1c9a2e-7b4d-4c1e-9a57-0d2b6c8e1f00", "S7"]

_PIPELINE: dict[str, Pipeline] = {}


def _pipeline() -> Pipeline:
    if "screen" not in _PIPELINE:
        _PIPELINE["screen"] = build_pipeline(
            load_settings(overrides={"judge.backend": "lexical", "sampling.rate": 1.0})
        )
    return _PIPELINE["screen"]


def _evaluate(ids: list[str], *, derived: bool) -> EvaluationRecord:
    answer = " ".join(f"{text[:-1]} [{i}]." for text, i in zip(CLAIMS, ids, strict=True))
    claims: list[dict[str, Any]] = (
        []
        if derived
        else [
            claim(f"c{n}", text, [i], 3)
            for n, (text, i) in enumerate(zip(CLAIMS, ids, strict=True), 1)
        ]
    )
    trace = make_trace(
        answer=answer,
        claims=claims,
        sources=[source(i, text) for i, text in zip(ids, PASSAGES, strict=True)],
    )
    return asyncio.run(_pipeline().evaluate(trace))


def _outcome(record: EvaluationRecord) -> list[tuple[object, ...]]:
    return [
        (c.claim_id, c.status, c.verdict, c.not_judged, c.critical_reason) for c in record.claims
    ]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ids=st.lists(st.sampled_from(PERSONAL_IDS + PLAIN_IDS), min_size=3, max_size=3, unique=True),
    derived=st.booleans(),
)
def test_any_source_id_gives_the_verdicts_of_a_plain_id(ids: list[str], derived: bool) -> None:
    record = _evaluate(ids, derived=derived)
    plain = _evaluate(["S1", "S2", "S3"], derived=derived)
    assert _outcome(record) == _outcome(plain)
    assert record.scores.validity == plain.scores.validity
    assert [len(c.citation_ids) for c in record.claims] == [1, 1, 1]
    dumped = record.model_dump_json()
    for personal in PERSONAL_IDS:
        assert personal not in dumped


@pytest.mark.parametrize("source_id", PERSONAL_IDS)
def test_a_hashed_source_is_one_key_in_the_record(source_id: str) -> None:
    record = _evaluate([source_id, "S2", "S3"], derived=False)
    hashed = record.claims[0].citation_ids[0]
    assert hashed.startswith("<ID_")
    assert record.claims[0].verdict == "supported"
    assert record.scores.marker_ids[0] == hashed
    assert "uncited_source" not in {f.code for f in record.findings}


@pytest.mark.parametrize(
    ("source_id", "hashed"),
    [
        *[pytest.param(i, True, id=i) for i in PERSONAL_IDS],
        *[pytest.param(i, False, id=i) for i in PLAIN_IDS],
        pytest.param("kb_refunds_v2", False, id="underscored-words"),
        pytest.param("policy-2024-07", False, id="a-dated-key"),
    ],
)
def test_values_glued_into_ids_are_found_and_plain_ids_kept(source_id: str, hashed: bool) -> None:
    redactor = _pipeline().redactor
    assert redactor is not None
    written = redactor.redact_identifier(source_id)  # type: ignore[attr-defined]
    assert written.startswith("<ID_") is hashed
    assert (written == source_id) is not hashed
