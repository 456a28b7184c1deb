"""Identifier and label fields: a value holding personal data becomes a keyed hash."""

from __future__ import annotations

import asyncio

from pydantic import ValidationError

from schemas import Trace
from sidecar.config import load_settings
from sidecar.pipeline import Pipeline
from sidecar.redaction import PatternDetector, Redactor
from tests.redaction.test_pipeline import RecordingJudge
from tests.support.factories import make_trace

SEEDED = ("anna@example.com", "+1 415 555 2671", "536-22-1234")


def _trace() -> Trace:
    email, phone, ssn = SEEDED
    return make_trace(
        app=email,
        tenant=phone,
        environment=ssn,
        generator={"model": "gpt-x", "prompt_version": email},
        answer=f"Refunds take 30 days [{email}].",
        sources=[
            {"id": email, "title": "Support", "text": "Refunds take 30 days."},
            {"id": "S2", "title": "Terms", "text": "Terms apply."},
        ],
        claims=[
            {
                "id": phone,
                "text": "Refunds take 30 days.",
                "citation_ids": [email, "S2"],
                "importance": 3,
            }
        ],
        extra={ssn: "kept as a key", "plain": 1},
    )


def _redactor(key: bytes = b"deployment key") -> Redactor:
    return Redactor([PatternDetector()], hmac_key=key)


def test_no_seeded_value_is_left_in_any_identifier_or_label() -> None:
    redacted, _ = _redactor().redact(_trace())
    dumped = redacted.model_dump_json()
    assert [value for value in SEEDED if value in dumped] == []
    assert redacted.sources[1].id == "S2"
    assert redacted.generator.model == "gpt-x"
    assert "plain" in redacted.extra


def test_a_hashed_source_id_is_still_the_one_its_claim_cites() -> None:
    redacted, _ = _redactor().redact(_trace())
    assert redacted.sources[0].id.startswith("<ID_")
    assert redacted.claims[0].citation_ids == [redacted.sources[0].id, "S2"]


def test_the_hash_is_stable_under_one_key_and_differs_under_another() -> None:
    first, _ = _redactor().redact(_trace())
    again, _ = _redactor().redact(_trace())
    other, _ = _redactor(b"another deployment").redact(_trace())
    assert first.app == again.app
    assert first.app != other.app


def test_the_judge_and_the_record_see_only_hashes() -> None:
    judge = RecordingJudge()
    pipeline = Pipeline(load_settings(), redactor=_redactor(), judge=judge)
    record = asyncio.run(pipeline.evaluate(_trace()))
    seen = judge.seen[0].model_dump_json() + record.model_dump_json()
    assert [value for value in SEEDED if value in seen] == []


def test_a_duplicate_id_error_names_the_field_not_the_value() -> None:
    try:
        make_trace(
            claims=[
                {"id": SEEDED[0], "text": "a", "citation_ids": [], "importance": 1},
                {"id": SEEDED[0], "text": "b", "citation_ids": [], "importance": 1},
            ]
        )
    except ValidationError as exc:
        message = str(exc)
    else:
        raise AssertionError("a duplicate claim ID was accepted")
    assert "claims[1].id" in message
    assert SEEDED[0] not in message
