"""What a judge endpoint sends is bounded: reply size, reasons and quotes, and redirects,
through the real openai client against the local OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from sidecar.runtime.guard import serialise_record
from tests.integration.test_judge_openai import BACKENDS, S1, verdicts_of
from tests.support.judged import Judged
from tests.support.openai_server import FakeOpenAI, Reply, Status, verdicts_reply
from tests.support.traces import refund_trace

pytestmark = pytest.mark.integration

S2_QUOTE = "returned to the original card"


def _reply(reason: str = "ok", quote: str = S1) -> Reply:
    return verdicts_reply(
        [
            {"claim_id": "C1", "verdict": "supported", "evidence_quote": quote, "reason": reason},
            {"claim_id": "C2", "verdict": "supported", "evidence_quote": S2_QUOTE, "reason": "ok"},
        ]
    )


def _assert_judge_error(judged: Judged, kind: str) -> None:
    [record] = judged.evaluate(refund_trace())
    assert record.judge is not None and record.judge.outcome == kind
    verdicts = verdicts_of(record)
    # No verdict, and nothing judged unsupported: the claims the judge was asked about
    # carry neither (c3 is uncited, a deterministic finding).
    assert (verdicts["c1"], verdicts["c2"]) == ((None, None), (None, None))
    assert (
        judged.value(
            "citewatch_judge_requests_total", model=judged.stage.identity.model, outcome=kind
        )
        == 1
    )
    assert len(serialise_record(record)) < 16_384


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_60_mb_reply_is_a_judge_error_and_the_record_stays_small(backend: str) -> None:
    with FakeOpenAI() as server:
        server.script(_reply(reason="x" * (60 * 2**20)))
        judged = Judged.llm_only(server, backend, timeout_seconds=30.0)
        _assert_judge_error(judged, "reply_too_large")
        assert len(server.recorded()) == 1  # not retried


def test_a_reply_over_the_configured_size_is_refused() -> None:
    with FakeOpenAI() as server:
        server.script(_reply(reason="y" * 3000))
        _assert_judge_error(
            Judged.llm_only(server, max_reply_bytes=2048, max_reason_chars=10_000),
            "reply_too_large",
        )


@pytest.mark.parametrize(
    ("reply", "limits"),
    [
        pytest.param(_reply(reason="because " * 400), {"max_reason_chars": 2000}, id="reason"),
        pytest.param(_reply(quote=S1 + " " + "z" * 3000), {"max_quote_chars": 2000}, id="quote"),
        pytest.param(_reply(quote=S1), {"max_quote_chars": 20}, id="quote-configured"),
    ],
)
def test_a_reason_or_quote_over_its_limit_is_a_judge_error(
    reply: Reply, limits: dict[str, int]
) -> None:
    with FakeOpenAI() as server:
        server.script(reply)
        _assert_judge_error(Judged.llm_only(server, **limits), "reply_too_large")


def test_replies_within_the_limits_are_verdicts() -> None:
    with FakeOpenAI() as server:
        server.script(_reply(reason="r" * 2000))
        [record] = Judged.llm_only(server).evaluate(refund_trace())
        verdicts = verdicts_of(record)
        assert (verdicts["c1"], verdicts["c2"]) == (("supported", None), ("supported", None))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("status", [307, 308, 302])
def test_a_redirect_to_another_origin_is_not_followed(backend: str, status: int) -> None:
    with FakeOpenAI() as server, FakeOpenAI() as elsewhere:
        path = "/responses" if backend == "openai-responses" else "/chat/completions"
        server.script(Status(status, {"Location": elsewhere.base_url + path}))
        elsewhere.script(_reply())
        judged = Judged.llm_only(server, backend)
        _assert_judge_error(judged, "redirect")
        assert elsewhere.recorded() == []  # the packet was never re-sent
        assert len(server.recorded()) == 1
        assert json.dumps(server.recorded()[0].body)  # it went to the configured endpoint
