"""The Gemini / Vertex AI adapter, fed responses built with google-genai's own types,
through `citewatch check` and `citewatch run --input --once`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.genai import types

from tests.inputs._cli import COMMANDS, evaluate, findings
from tests.support.payloads import (
    CAFE_URL,
    GEMINI_ANSWER,
    byte_span,
    gemini_record,
    gemini_response,
)

CITED = [
    ("Le café coûte 3 € ☕ au comptoir.", ["C1"]),
    ("Refunds are paid within 30 days 🙂.", ["C2"]),
    ("Gift cards never expire.", []),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "rest", [pytest.param(True, id="rest-json"), pytest.param(False, id="sdk-dump")]
)
def test_byte_offsets_put_markers_on_their_sentences_past_accents_and_emoji(
    tmp_path: Path, command: str, rest: bool
) -> None:
    [evaluation], letters = evaluate(tmp_path, command, "gemini", gemini_record(rest=rest))
    assert letters == []
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == CITED
    assert [(s.source_id, s.url) for s in evaluation.cited_sources] == [
        ("C1", CAFE_URL),
        ("C2", "gs://shop-docs/refunds.md"),
    ]
    assert findings(evaluation, "uncited_source") == [("C3", "")]
    assert evaluation.scores.validity == 1.0


@pytest.mark.parametrize("command", COMMANDS)
def test_a_support_over_two_sentences_cites_both(tmp_path: Path, command: str) -> None:
    two = "Refunds are paid within 30 days 🙂. Gift cards never expire."
    record = gemini_record(gemini_response(supports=[(two, [1, 2])]))
    [evaluation], _ = evaluate(tmp_path, command, "gemini", record)
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Le café coûte 3 € ☕ au comptoir.", []),
        ("Refunds are paid within 30 days 🙂.", ["C2", "C3"]),
        ("Gift cards never expire.", ["C2", "C3"]),
    ]


def _support(start: int, end: int, indices: list[int]) -> types.GroundingSupport:
    return types.GroundingSupport(
        segment=types.Segment(start_index=start, end_index=end), grounding_chunk_indices=indices
    )


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("support", "detail"),
    [
        pytest.param(
            _support(0, 7, [0]),  # byte 7 is inside "é" (bytes 6 and 7)
            "groundingMetadata.groundingSupports[0]: bytes 0..7 are no span of the answer",
            id="inside-a-character",
        ),
        pytest.param(
            _support(0, 4000, [0]),
            "groundingMetadata.groundingSupports[0]: bytes 0..4000 are no span of the answer",
            id="past-the-end",
        ),
    ],
)
def test_offsets_that_are_no_span_are_a_finding(
    tmp_path: Path, command: str, support: types.GroundingSupport, detail: str
) -> None:
    record = gemini_record(gemini_response(supports=[], raw_supports=[support]))
    [evaluation], _ = evaluate(tmp_path, command, "gemini", record)
    assert findings(evaluation, "citation_out_of_range") == [("C1", detail)]
    assert all(c.citation_ids == [] for c in evaluation.claims)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_chunk_index_beyond_the_chunks_is_a_finding(tmp_path: Path, command: str) -> None:
    start, end = byte_span(GEMINI_ANSWER, "Gift cards never expire.")
    record = gemini_record(gemini_response(supports=[], raw_supports=[_support(start, end, [7])]))
    [evaluation], _ = evaluate(tmp_path, command, "gemini", record)
    assert findings(evaluation, "citation_out_of_range") == [
        (None, "groundingMetadata.groundingSupports[0]: chunk index 7 of 3 chunks")
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_envelope_gives_a_web_page_its_text(tmp_path: Path, command: str) -> None:
    record = gemini_record(
        sources=[
            {"url": CAFE_URL, "text": "Un café coûte 3 € au comptoir."},
            {"id": "menu", "title": "Menu", "text": "Tea costs 2 €."},
        ]
    )
    [evaluation], _ = evaluate(tmp_path, command, "gemini", record)
    assert findings(evaluation, "empty_source") == []
    assert findings(evaluation, "uncited_source") == [("C3", ""), ("menu", "")]


def test_a_part_index_counts_offsets_in_its_part(tmp_path: Path) -> None:
    response = gemini_response(supports=[])
    data = json.loads(gemini_record(response))
    candidate = data["response"]["candidates"][0]
    candidate["content"]["parts"].append({"text": " Le thé coûte 2 € 🍵."})
    start, end = byte_span(" Le thé coûte 2 € 🍵.", "Le thé coûte 2 € 🍵.")
    candidate["groundingMetadata"]["groundingSupports"] = [
        {
            "segment": {"partIndex": 2, "startIndex": start, "endIndex": end},
            "groundingChunkIndices": [0],
        }
    ]
    [evaluation], _ = evaluate(tmp_path, "check", "gemini", json.dumps(data).encode())
    assert [(c.text, c.citation_ids) for c in evaluation.claims][-1] == (
        "Le thé coûte 2 € 🍵.",
        ["C1"],
    )
