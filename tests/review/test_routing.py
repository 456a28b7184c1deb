"""Routing: which claims reach review, the audit slice, and packets built from redacted text."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from schemas import ClaimResult, FindingRecord
from sidecar.assembly import build_pipeline
from sidecar.config import ReviewSettings, load_settings
from sidecar.decode import decode_trace
from sidecar.review.routing import (
    RoutingClaim,
    audit_point,
    item_id,
    locate_quote,
    route_claim,
    route_record,
)
from sidecar.review.sink import ReviewSink
from tests.exporters._records import record
from tests.support.factories import claim, make_trace, source, trace_dict

ROOT = Path(__file__).resolve().parents[2]


def _claim(**change: object) -> RoutingClaim:
    base: dict[str, object] = {
        "claim_id": "c1",
        "importance": 2,
        "verdict": None,
        "not_judged": None,
        "not_judged_detail": None,
        "critical_unjudged": False,
        "agreed": None,
        "injection_influenced": False,
    }
    base.update(change)
    return RoutingClaim(**base)  # type: ignore[arg-type]


NO_AUDIT = ReviewSettings(audit_rate=0.0)


@pytest.mark.parametrize(
    ("claim_view", "reasons"),
    [
        pytest.param(
            _claim(not_judged="suspect", not_judged_detail="number"), ["suspect"], id="suspect"
        ),
        pytest.param(
            _claim(not_judged="unverified", not_judged_detail="quote_incomplete"),
            ["unverified"],
            id="unverified",
        ),
        pytest.param(
            _claim(
                not_judged="unverified",
                not_judged_detail="injection_influenced",
                injection_influenced=True,
            ),
            ["injection_influenced", "unverified"],
            id="injection-influenced",
        ),
        pytest.param(
            _claim(importance=3, not_judged="judge_failed", critical_unjudged=True),
            ["critical_unjudged"],
            id="critical-unjudged",
        ),
        pytest.param(
            _claim(importance=3, not_judged="abstained"),
            ["abstained_critical"],
            id="abstained-critical",
        ),
        pytest.param(_claim(importance=2, not_judged="abstained"), [], id="abstained-not-critical"),
        pytest.param(
            _claim(verdict="supported", agreed=False), ["disagreement"], id="disagreement"
        ),
        pytest.param(_claim(verdict="supported", agreed=True), [], id="agreement"),
        pytest.param(_claim(verdict="unsupported"), [], id="plain-verdict"),
    ],
)
def test_each_flag_routes_its_claims(claim_view: RoutingClaim, reasons: list[str]) -> None:
    assert route_claim(claim_view, trace_id="t" * 32, settings=NO_AUDIT) == reasons


def test_a_route_turned_off_routes_nothing() -> None:
    settings = ReviewSettings(audit_rate=0.0, routes=["critical_unjudged"])
    assert route_claim(_claim(not_judged="suspect"), trace_id="t", settings=settings) == []


def test_the_audit_slice_is_a_uniform_share_of_judged_claims_only() -> None:
    settings = ReviewSettings(audit_rate=0.05, routes=[])
    judged = [
        route_claim(
            _claim(claim_id=f"c{i}", verdict="supported"),
            trace_id=f"{i // 7:032x}",
            settings=settings,
        )
        for i in range(40_000)
    ]
    share = sum(r == ["audit"] for r in judged) / len(judged)
    assert 0.045 < share < 0.055
    unjudged = [
        route_claim(
            _claim(claim_id=f"c{i}", not_judged="abstained"),
            trace_id=f"{i:032x}",
            settings=settings,
        )
        for i in range(2_000)
    ]
    assert not any(unjudged)
    # Independent of the verdict: the same claims are audited whatever the judge said.
    for verdict in ("partial", "unsupported"):
        again = [
            route_claim(
                _claim(claim_id=f"c{i}", verdict=verdict),
                trace_id=f"{i // 7:032x}",
                settings=settings,
            )
            for i in range(40_000)
        ]
        assert again == judged


def test_audit_points_and_item_ids_are_stable_and_distinct() -> None:
    assert audit_point("a" * 32, "c1") == audit_point("a" * 32, "c1")
    assert audit_point("a" * 32, "c1") != audit_point("a" * 32, "c2")
    assert item_id("a" * 32, "c1") == item_id("a" * 32, "c1")
    assert len({item_id(f"{i:032x}", "c1") for i in range(1000)}) == 1000


@pytest.mark.parametrize(
    ("quote", "text", "span"),
    [
        pytest.param("within 30 days", "Refunds within 30 days.", (8, 22), id="exact"),
        pytest.param("WITHIN  30\ndays", "Refunds within 30 days.", (8, 22), id="case-and-space"),
        pytest.param(
            "\u201cwithin 30 days\u201d",
            "Refunds  within   30 days.",
            (9, 25),
            id="quotes-and-runs",
        ),
        pytest.param("full\u00a0refund", "a full refund", (2, 13), id="nbsp"),
        pytest.param("60 days", "Refunds within 30 days.", None, id="absent"),
        pytest.param("  ", "Refunds", None, id="empty"),
    ],
)
def test_the_evidence_quote_is_located_in_the_passage(
    quote: str, text: str, span: tuple[int, int] | None
) -> None:
    assert locate_quote(quote, text) == span


def test_packets_come_from_the_redacted_trace() -> None:
    """A routed claim's packet: its cited passages only, redacted, the quote located."""
    settings = load_settings(
        overrides={"judge.backend": "lexical", "sampling.rate": 1.0, "review.audit_rate": 1.0}
    )
    pipeline = build_pipeline(settings)
    sink = ReviewSink(settings.review)
    pipeline.on_redacted = sink.observe
    raw = trace_dict(
        question="Refund for jane.doe@example.com?",
        answer="Refunds are available within 30 days [S1]. Call +1 415 555 0134 for help [S2].",
        sources=[
            source("S1", "Refunds are available within 30 days. Write to jane.doe@example.com."),
            source("S2", "Support line +1 415 555 0134."),
            source("S3", "Uncited text with jane.doe@example.com."),
        ],
        claims=[
            claim("c1", "Refunds are available within 30 days.", ["S1"], 2),
            claim("c2", "Call +1 415 555 0134 for help.", ["S2"], 3),
        ],
    )
    record = asyncio.run(pipeline.evaluate(decode_trace(json.dumps(raw))))
    items = {item.claim_id: item for item in sink.take(record)}
    assert sink.take(record) == ()  # taken once
    dumped = json.dumps([item.model_dump(mode="json") for item in items.values()])
    for secret in ("jane.doe@example.com", "415 555 0134", "555"):
        assert secret not in dumped
    c1 = items["c1"]
    assert c1.reasons == ["audit"]
    assert c1.verdict == "supported"
    assert [p.source_id for p in c1.passages] == ["S1"]
    [passage] = c1.passages
    assert "<EMAIL_1>" in passage.text
    assert c1.evidence_quote is not None and passage.quote_start is not None
    assert passage.quote_end is not None
    assert (
        passage.text[passage.quote_start : passage.quote_end].lower() in c1.evidence_quote.lower()
    )
    assert c1.question == "Refund for <EMAIL_1>?"
    assert (c1.trace_id, c1.app, c1.judge, c1.rubric_version) == (
        raw["trace_id"],
        "support",
        "lexical",
        record.versions.rubric,
    )


def test_example_traces_route_the_critical_claims_the_screen_abstains_on_or_suspects() -> None:
    settings = load_settings(
        overrides={"judge.backend": "lexical", "sampling.rate": 1.0, "review.audit_rate": 0.0}
    )
    pipeline = build_pipeline(settings)
    sink = ReviewSink(settings.review)
    pipeline.on_redacted = sink.observe

    async def run() -> list[tuple[str, str, list[str]]]:
        routed = []
        for line in (ROOT / "examples" / "traces.jsonl").read_text().splitlines():
            record = await pipeline.evaluate(decode_trace(line))
            expected = {
                c.claim_id: ["abstained_critical"]
                for c in record.claims
                if c.not_judged == "abstained" and c.importance == 3
            }
            expected.update(
                {c.claim_id: ["suspect"] for c in record.claims if c.not_judged == "suspect"}
            )
            got = sink.take(record)
            assert {i.claim_id: i.reasons for i in got} == expected
            routed += [(i.trace_id, i.claim_id, i.reasons) for i in got]
        return routed

    routed = asyncio.run(run())
    reasons = {reason for _, _, found in routed for reason in found}
    assert reasons == {"abstained_critical", "suspect"}


def test_records_route_on_their_not_judged_states_path_and_findings() -> None:
    def result(claim_id: str, importance: int = 2, **fields: object) -> ClaimResult:
        return ClaimResult.model_validate(
            {
                "claim_id": claim_id,
                "text": "redacted",
                "importance": importance,
                "kind": "factual",
                "status": "cited",
                "citation_ids": ["S1"],
                **fields,
            }
        )

    evaluated = record(
        judge="openai-chat",
        sampled_by="base",
        claims=[
            result(
                "c1", not_judged="suspect", not_judged_detail="number", path={"screen": "suspect"}
            ),
            result("c2", not_judged="unverified", not_judged_detail="quote_incomplete"),
            result("c3", not_judged="unverified", not_judged_detail="injection_influenced"),
            result("c4", 3, not_judged="judge_failed", critical_unjudged=True),
            result("c5", 3, not_judged="abstained"),
            result(
                "c6",
                verdict="supported",
                path={"screen": "supported", "llm": "partial", "agreed": False},
            ),
            result(
                "c7",
                verdict="supported",
                path={"screen": "supported", "llm": "supported", "agreed": True},
            ),
            result("c8", verdict="partial"),
        ],
        findings=[FindingRecord(code="injection_influenced", severity="warning", claim_id="c8")],
    )
    items = route_record(evaluated, make_trace(trace_id=evaluated.trace_id), NO_AUDIT)
    assert {i.claim_id: i.reasons for i in items} == {
        "c1": ["suspect"],
        "c2": ["unverified"],
        "c3": ["injection_influenced", "unverified"],
        "c4": ["critical_unjudged"],
        "c5": ["abstained_critical"],
        "c6": ["disagreement"],
        "c8": ["injection_influenced"],
    }
    by_id = {i.claim_id: i for i in items}
    assert by_id["c6"].path == {
        "screen": "supported",
        "llm": "partial",
        "rejudge": None,
        "agreed": False,
    }
    assert by_id["c1"].not_judged_detail == "number"
    assert by_id["c4"].priority > by_id["c3"].priority > by_id["c2"].priority > by_id["c1"].priority
