"""The AWS Bedrock adapter (RetrieveAndGenerate and Converse), fed responses parsed by
botocore against the service model, through `citewatch check` and `citewatch run --input
--once`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inputs._cli import COMMANDS, evaluate, findings
from tests.support.payloads import (
    KB_TEXTS,
    RAG_ANSWER,
    converse_record,
    rag_citation,
    retrieve_and_generate_record,
)

CITED = [
    ("Refunds are paid within 30 days.", ["K1"]),
    ("Gift cards never expire.", ["K2"]),
    ("Shipping is free.", []),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "inclusive", [pytest.param(True, id="end-inclusive"), pytest.param(False, id="end-exclusive")]
)
def test_retrieve_and_generate_citations_mark_their_parts(
    tmp_path: Path, command: str, inclusive: bool
) -> None:
    record = retrieve_and_generate_record(
        [
            rag_citation("Refunds are paid within 30 days.", [0], inclusive=inclusive),
            rag_citation("Gift cards never expire.", [1], inclusive=inclusive),
        ]
    )
    [evaluation], letters = evaluate(tmp_path, command, "bedrock", record)
    assert letters == []
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == CITED
    assert [(s.source_id, s.url) for s in evaluation.cited_sources] == [
        ("K1", "s3://shop-kb/policy-1.md"),
        ("K2", "s3://shop-kb/policy-2.md"),
    ]
    assert evaluation.generator.model == "amazon.nova-pro-v1:0"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_span_in_another_unit_is_found_by_its_text_near_its_place(
    tmp_path: Path, command: str
) -> None:
    answer = "Le café 🙂 est bon. " + RAG_ANSWER
    citation = rag_citation("Gift cards never expire.", [1])
    span = citation["generatedResponsePart"]["textResponsePart"]["span"]
    offset = len("Le café 🙂 est bon. ") + 1  # UTF-16: the emoji is two code units
    span["start"] += offset
    span["end"] += offset
    [evaluation], _ = evaluate(
        tmp_path, command, "bedrock", retrieve_and_generate_record([citation], answer=answer)
    )
    assert ("Gift cards never expire.", ["K1"]) in [
        (c.text, c.citation_ids) for c in evaluation.claims
    ]
    assert findings(evaluation, "citation_out_of_range") == []


@pytest.mark.parametrize("command", COMMANDS)
def test_a_part_found_nowhere_is_a_finding(tmp_path: Path, command: str) -> None:
    citation = rag_citation("Gift cards never expire.", [1])
    citation["generatedResponsePart"]["textResponsePart"]["text"] = "Not in the answer."
    [evaluation], _ = evaluate(
        tmp_path, command, "bedrock", retrieve_and_generate_record([citation])
    )
    assert findings(evaluation, "citation_out_of_range") == [
        ("K1", f"response.citations[0]: the span is not in a text of {len(RAG_ANSWER)} characters")
    ]
    assert [s.text for s in evaluation.cited_sources] == []  # K1 stays a source, uncited
    assert findings(evaluation, "uncited_source") == [("K1", "")]


@pytest.mark.parametrize("command", COMMANDS)
def test_converse_citations_mark_each_sentence_and_verify_the_source_content(
    tmp_path: Path, command: str
) -> None:
    honest = converse_record()
    made_up = json.loads(converse_record(source_text="Refunds are paid within 90 days."))
    made_up["trace_id"] = "ab" * 16
    evaluations, _ = evaluate(tmp_path, command, "bedrock", honest, json.dumps(made_up).encode())
    good, bad = sorted(evaluations, key=lambda record: record.trace_id != "ab" * 16)[::-1]
    assert [(c.text, c.citation_ids) for c in good.claims] == [
        ("Per the policy, refunds are paid within 30 days.", ["D1"]),
        ("Store credit never expires.", ["D1"]),
    ]
    assert findings(good, "fabricated_quote") == []
    assert [f[0] for f in findings(bad, "fabricated_quote")] == ["D1"]
    # the S3 document was sent without text: retrieved, uncited, empty
    assert findings(good, "empty_source") == [("D2", "")]


def test_the_envelope_gives_an_s3_document_its_text(tmp_path: Path) -> None:
    data = json.loads(converse_record())
    data["sources"] = [{"id": "D2", "text": "The contract runs for two years."}]
    [evaluation], _ = evaluate(tmp_path, "check", "bedrock", json.dumps(data).encode())
    assert findings(evaluation, "empty_source") == []
    assert KB_TEXTS  # the knowledge base texts are RetrieveAndGenerate's, not Converse's
