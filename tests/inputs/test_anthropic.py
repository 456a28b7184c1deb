"""The Anthropic adapter, fed records built with the anthropic SDK's own models, and the
deterministic check of the quotes it returns (``cited_text``)."""

from __future__ import annotations

import json
from pathlib import Path

import click
from click.testing import CliRunner

from schemas import EvaluationRecord
from sidecar.cli import cli
from sidecar.decode import DecodeLimits, decode_trace
from tests.support.factories import trace_dict
from tests.support.payloads import anthropic_record

LIMITS = DecodeLimits(input_format="anthropic_messages")


def test_documents_and_search_results_are_sources_and_citations_markers() -> None:
    trace = decode_trace(anthropic_record(), limits=LIMITS)
    assert trace.answer == (
        "According to the policy, refunds are issued within 14 days [D1]. "
        "Gift cards cannot be refunded [R1]."
    )
    assert [(s.id, s.title, s.url) for s in trace.sources] == [
        ("D1", "Refund policy", None),
        ("D2", "Shipping", None),
        ("R1", "FAQ", "https://shop.example/faq"),
    ]
    assert trace.sources[1].text == "Orders ship within two days."
    assert trace.question == "When do I get my refund?"
    assert trace.extra["cited_texts"] == [
        {
            "source_id": "D1",
            "quote": "Refunds are issued within 14 days.",
            "cited": "refunds are issued within 14 days",
        },
        {
            "source_id": "R1",
            "quote": "Gift cards cannot be refunded.",
            "cited": "Gift cards cannot be refunded",
        },
    ]


def _check(
    tmp_path: Path, lines: list[bytes], *args: str
) -> tuple[click.testing.Result, list[EvaluationRecord]]:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    config = tmp_path / "citewatch.yaml"
    config.write_text("claims:\n  importance: 3\n")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(source),
            "--output",
            str(out),
            "--judge",
            "none",
            "--config",
            str(config),
            *args,
        ],
        catch_exceptions=False,
    )
    records = (
        [EvaluationRecord.model_validate_json(line) for line in out.read_text().splitlines()]
        if out.exists()
        else []
    )
    return result, records


def test_a_quote_its_document_does_not_hold_is_critical_without_a_judge(tmp_path: Path) -> None:
    honest = anthropic_record()
    made_up = anthropic_record(cited_text="Refunds are issued within 3 days.", trace_id="ab" * 16)
    result, (good, bad) = _check(
        tmp_path, [honest, made_up], "--input-format", "anthropic_messages"
    )
    assert result.exit_code == 0, result.output
    assert [f.code for f in good.findings if f.code == "fabricated_quote"] == []
    assert good.scores.critical_unsupported == 0
    fabricated = [
        (f.severity, f.claim_id, f.source_id) for f in bad.findings if f.code == "fabricated_quote"
    ]
    assert fabricated == [("critical", "d1", "D1")]
    assert [(c.claim_id, c.critical_reason) for c in bad.claims] == [
        ("d1", "quote_not_found"),
        ("d2", None),
    ]
    assert bad.scores.critical_unsupported == 1


def test_quotes_compare_after_unicode_case_and_space_folding(tmp_path: Path) -> None:
    folded = anthropic_record(cited_text="REFUNDS  are issued\nwithin １４ days.")
    _, (record,) = _check(tmp_path, [folded], "--input-format", "anthropic_messages")
    assert [f.code for f in record.findings if f.code == "fabricated_quote"] == []


def test_a_trace_v1_producer_may_send_its_api_quotes_too(tmp_path: Path) -> None:
    trace = trace_dict(
        cited_texts=[
            {
                "source_id": "S1",
                "quote": "Refunds within 90 days.",
                "cited": "Refunds are available within 30 days.",
            }
        ]
    )
    _, (record,) = _check(tmp_path, [json.dumps(trace).encode()])
    assert [
        (f.code, f.severity, f.claim_id) for f in record.findings if f.code == "fabricated_quote"
    ] == [("fabricated_quote", "warning", "c1")]


def test_a_quote_of_a_document_without_text_is_unverifiable_not_fabricated(tmp_path: Path) -> None:
    data = json.loads(anthropic_record(cited_text="Something the PDF says."))
    document = data["request"]["messages"][0]["content"][0]
    document["source"] = {"type": "url", "url": "https://shop.example/policy.pdf"}
    _, (record,) = _check(
        tmp_path, [json.dumps(data).encode()], "--input-format", "anthropic_messages"
    )
    codes = {(f.code, f.source_id) for f in record.findings}
    assert ("quote_unverifiable", "D1") in codes
    assert not any(code == "fabricated_quote" for code, _ in codes)
