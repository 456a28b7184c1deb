"""The judge through the real openai client against the local OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest

from schemas import EvaluationRecord
from sidecar.judge import RUBRIC_VERSION, load_rubric
from sidecar.judge.openai_backends import JUDGE_SCHEMA
from sidecar.judge.packet import unmark
from tests.support.judged import MODEL, Judged
from tests.support.openai_server import FakeOpenAI, Hang, Reply, Status, verdicts_reply
from tests.support.traces import UNCITED_SECRET, packet_for, refund_trace, trace_id

pytestmark = pytest.mark.integration

S1 = "Pro plan customers can request a refund within 30 days of purchase."
S2 = "Approved refunds are returned to the original card."
BACKENDS = [
    pytest.param("openai-responses", id="responses"),
    pytest.param("openai-chat", id="chat"),
]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def verdicts_of(record: EvaluationRecord) -> dict[str, tuple[str | None, str | None]]:
    return {c.claim_id: (c.verdict, c.critical_reason) for c in record.claims}


@pytest.mark.parametrize("backend", BACKENDS)
def test_correct_reply_is_scored(server: FakeOpenAI, backend: str) -> None:
    server.script(
        verdicts_reply(
            [
                {
                    "claim_id": "C1",
                    "verdict": "supported",
                    "evidence_quote": "refund within 30 days",
                    "reason": "States it.",
                },
                {
                    "claim_id": "C2",
                    "verdict": "partial",
                    "evidence_quote": "returned to the original",
                    "reason": "Half of it.",
                },
            ]
        )
    )
    judged = Judged.llm_only(server, backend)
    [record] = judged.evaluate(refund_trace())
    assert verdicts_of(record) == {
        "c1": ("supported", None),
        "c2": ("partial", None),
        "c3": (None, "uncited"),
    }
    assert record.judged and record.sampled_by == "base"
    assert record.scores.correctness == 0.75
    assert record.versions.rubric == RUBRIC_VERSION
    [request] = server.recorded()
    run = record.judge
    assert run is not None
    assert (run.judge, run.model, run.outcome, run.rubric_version) == (
        backend,
        MODEL,
        "ok",
        RUBRIC_VERSION,
    )
    assert run.input_tokens > 100 and run.output_tokens > 10 and run.latency_seconds > 0
    body = request.body
    assert (body["model"], body["temperature"]) == (MODEL, 0)
    if backend == "openai-responses":
        assert request.path == "/v1/responses"
        assert body["text"]["format"] == {
            "type": "json_schema",
            "name": "JudgeResult",
            "strict": True,
            "schema": JUDGE_SCHEMA,
        }
    else:
        assert request.path == "/v1/chat/completions"
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "JudgeResult", "strict": True, "schema": JUDGE_SCHEMA},
        }
    # The whole prompt: the rubric, then the packet's lines.
    assert request.text == load_rubric().text + "\n" + packet_for(refund_trace()).render()
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="ok") == 1
    assert (
        judged.value("citewatch_judge_tokens_total", model=MODEL, type="input") == run.input_tokens
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_packet_never_carries_uncited_sources_or_names(server: FakeOpenAI, backend: str) -> None:
    judged = Judged.llm_only(server, backend)
    judged.evaluate(refund_trace())
    [request] = server.recorded()
    sent = json.dumps(request.body)
    assert UNCITED_SECRET not in sent and "90 days" not in sent
    for name in ("gen-a", "openai", "gpt", MODEL):
        assert name not in request.text.lower()
    assert S1 in unmark(request.text) and S2 in unmark(request.text)


@pytest.mark.parametrize(
    ("quote", "expected_reason"),
    [
        pytest.param(
            "Refunds are accepted for 60 days, always.", "quote_not_found", id="fabricated"
        ),
        pytest.param(UNCITED_SECRET, "quote_not_found", id="from-uncited-source"),
    ],
)
def test_unverifiable_quote_becomes_unsupported(
    server: FakeOpenAI, quote: str, expected_reason: str
) -> None:
    server.script(
        verdicts_reply(
            [
                {"claim_id": "C1", "verdict": "supported", "evidence_quote": S1, "reason": "ok"},
                {"claim_id": "C2", "verdict": "supported", "evidence_quote": quote, "reason": "ok"},
            ]
        )
    )
    judged = Judged.llm_only(server)
    [record] = judged.evaluate(refund_trace())
    assert verdicts_of(record)["c2"] == ("unsupported", expected_reason)
    assert verdicts_of(record)["c1"] == ("supported", None)
    assert judged.value("citewatch_judge_quote_not_found_total") == 1


@pytest.mark.parametrize(
    "ids",
    [
        pytest.param(["c1"], id="missing"),
        pytest.param(["c1", "c2", "c7"], id="extra"),
        pytest.param(["c1", "c2", "c2"], id="duplicate"),
    ],
)
def test_mismatched_claim_ids_are_a_judge_error(server: FakeOpenAI, ids: list[str]) -> None:
    server.script(
        verdicts_reply(
            [
                {"claim_id": i, "verdict": "supported", "evidence_quote": S1, "reason": "ok"}
                for i in ids
            ]
        )
    )
    judged = Judged.llm_only(server)
    [record] = judged.evaluate(refund_trace())
    assert not record.judged and record.scores.correctness is None
    assert all(c.verdict is None for c in record.claims)
    assert record.judge is not None and record.judge.outcome == "id_mismatch"
    assert len(server.recorded()) == 1
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="id_mismatch") == 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        pytest.param(
            Reply(text='{"verdicts": [{"claim_id": "C1", '), "parse_error", id="malformed-json"
        ),
        pytest.param(
            Reply(text='{"verdicts": [{"claim_id": "C1", "verdict": "maybe"}]}'),
            "parse_error",
            id="schema-violation",
        ),
        pytest.param(Reply(refusal="I cannot help with that."), "refusal", id="refusal"),
    ],
)
def test_unusable_replies_are_judge_errors(
    server: FakeOpenAI, backend: str, reply: Reply, kind: str
) -> None:
    server.script(reply)
    judged = Judged.llm_only(server, backend)
    [record] = judged.evaluate(refund_trace())
    assert record.judge is not None and record.judge.outcome == kind
    assert not record.judged
    assert len(server.recorded()) == 1
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome=kind) == 1
    # Deterministic results stand regardless.
    assert verdicts_of(record)["c3"] == (None, "uncited")


@pytest.mark.parametrize(
    ("finish_reason", "kind"),
    [
        pytest.param("length", "parse_error", id="cut-at-token-limit"),
        pytest.param("content_filter", "refusal", id="content-filter"),
    ],
)
def test_chat_replies_that_did_not_finish_are_judge_errors(
    server: FakeOpenAI, finish_reason: str, kind: str
) -> None:
    # A complete-looking JSON body does not count when the model did not finish.
    server.script(
        Reply(
            text=json.dumps(
                {
                    "verdicts": [
                        {
                            "claim_id": c,
                            "verdict": "unsupported",
                            "evidence_quote": "",
                            "reason": "No.",
                        }
                        for c in ("c1", "c2")
                    ]
                }
            ),
            finish_reason=finish_reason,
        )
    )
    judged = Judged.llm_only(server, "openai-chat")
    [record] = judged.evaluate(refund_trace())
    assert record.judge is not None and record.judge.outcome == kind
    assert not record.judged


@pytest.mark.parametrize("backend", BACKENDS)
def test_calls_share_one_connection_pool(server: FakeOpenAI, backend: str) -> None:
    server.latency = 0.1
    judged = Judged.llm_only(server, backend, concurrency=4, cache_size=0)

    async def run() -> list[EvaluationRecord]:
        try:
            records: list[EvaluationRecord] = []
            for wave in range(3):
                records += await asyncio.gather(
                    *(
                        judged.pipeline.evaluate(refund_trace(trace_id=trace_id(10 * wave + n)))
                        for n in range(4)
                    )
                )
            return records
        finally:
            await judged.stage.aclose(1.0)

    records = asyncio.run(run())
    assert all(r.judged for r in records)
    requests = server.recorded()
    assert len(requests) == 12
    # Three waves of four calls over the same four kept-alive connections.
    assert len({r.peer for r in requests}) == 4


def test_429_waits_for_retry_after(server: FakeOpenAI) -> None:
    server.script(Status(429, {"Retry-After": "1"}))
    judged = Judged.llm_only(server)
    started = time.monotonic()
    [record] = judged.evaluate(refund_trace())
    elapsed = time.monotonic() - started
    assert record.judged and record.judge is not None and record.judge.outcome == "ok"
    assert len(server.recorded()) == 2
    assert elapsed >= 0.95  # the retry waited for Retry-After, not the 1 ms backoff
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="rate_limited") == 1


def test_500s_then_success(server: FakeOpenAI) -> None:
    server.script(Status(500), Status(502), Status(503))
    judged = Judged.llm_only(server)
    [record] = judged.evaluate(refund_trace())
    assert record.judged and len(server.recorded()) == 4
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="api_error") == 3
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="ok") == 1


def test_retries_are_bounded(server: FakeOpenAI) -> None:
    server.script(*[Status(500)] * 5)
    judged = Judged.llm_only(server, max_retries=2)
    [record] = judged.evaluate(refund_trace())
    assert record.judge is not None and record.judge.outcome == "api_error"
    assert len(server.recorded()) == 3


def test_timeout_is_retried_then_reported(server: FakeOpenAI) -> None:
    server.script(Hang(10.0))
    judged = Judged.llm_only(server, timeout_seconds=0.3)
    [record] = judged.evaluate(refund_trace())
    assert record.judged and len(server.recorded()) == 2
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="timeout") == 1

    server.script(Hang(10.0))
    judged = Judged.llm_only(server, timeout_seconds=0.3, max_retries=0)
    [record] = judged.evaluate(refund_trace(trace_id=trace_id(5)))
    assert record.judge is not None and record.judge.outcome == "timeout"


def test_outage_opens_the_breaker_and_checks_go_on(server: FakeOpenAI) -> None:
    server.script(*[Status(503)] * 4)
    judged = Judged.llm_only(server, max_retries=1, circuit_failures=2, circuit_reset_seconds=0.3)
    traces = [refund_trace(trace_id=trace_id(n)) for n in range(5)]

    async def run() -> tuple[list[EvaluationRecord], EvaluationRecord]:
        first = [await judged.pipeline.evaluate(t) for t in traces]
        assert judged.stage.breaker.state == "open"
        await asyncio.sleep(0.35)
        probe = await judged.pipeline.evaluate(refund_trace(trace_id=trace_id(9)))
        await judged.stage.aclose(1.0)
        return first, probe

    records, probe = asyncio.run(run())
    assert [r.judge.outcome if r.judge else r.skip_reason for r in records] == [
        "api_error",
        "api_error",
        "circuit_open",
        "circuit_open",
        "circuit_open",
    ]
    assert len(server.recorded()) == 4 + 1
    for record in records:
        assert verdicts_of(record)["c3"] == (None, "uncited")
        assert record.scores.validity == 1.0
        assert {f.code for f in record.findings} >= {"uncited_claim"}
    assert probe.judged and judged.stage.breaker.state == "closed"
    assert judged.value("citewatch_judge_skips_total", reason="circuit_open") == 3
    assert judged.value("citewatch_judge_circuit_state", state="closed") == 1


def test_repeated_trace_is_served_from_the_cache(server: FakeOpenAI) -> None:
    judged = Judged.llm_only(server)
    overlapping = refund_trace(
        trace_id=trace_id(3),
        claims=[
            {
                "id": "x1",
                "text": "Pro plan refunds are available within 30 days.",
                "citation_ids": ["S1"],
                "importance": 2,
            },
            {
                "id": "x2",
                "text": "Refunds are returned to the card.",
                "citation_ids": ["S2"],
                "importance": 2,
            },
        ],
    )
    first, again, partly = judged.evaluate(refund_trace(), refund_trace(), overlapping)
    assert verdicts_of(first) == verdicts_of(again)
    assert again.judge is not None and again.judge.cached_claims == 2
    assert (again.judge.input_tokens, again.judge.outcome) == (0, "ok")
    requests = server.recorded()
    assert len(requests) == 2
    assert partly.judge is not None and partly.judge.cached_claims == 1
    assert "Refunds are returned to the card." in requests[1].text
    assert "Pro plan refunds are available" not in requests[1].text
    assert judged.value("citewatch_judge_cache_hits_total") == 3


def test_in_flight_calls_are_bounded(server: FakeOpenAI) -> None:
    server.latency = 0.2
    judged = Judged.llm_only(server, concurrency=2)
    seen: list[tuple[int, int]] = []

    async def run() -> list[EvaluationRecord]:
        tasks = [
            asyncio.ensure_future(judged.pipeline.evaluate(refund_trace(trace_id=trace_id(n))))
            for n in range(6)
        ]
        await asyncio.sleep(0.1)
        seen.append((judged.stage.in_flight, judged.stage.waiting))
        done = await asyncio.gather(*tasks)
        seen.append((judged.stage.in_flight, judged.stage.waiting))
        await judged.stage.aclose(1.0)
        return list(done)

    records = asyncio.run(run())
    assert all(r.judged for r in records)
    assert server.max_active == 2
    assert seen == [(2, 4), (0, 0)]


def test_shutdown_deadline_abandons_hung_calls(server: FakeOpenAI) -> None:
    server.script(Hang(30.0))
    judged = Judged.llm_only(server, timeout_seconds=20.0)

    async def run() -> EvaluationRecord:
        task = asyncio.ensure_future(judged.pipeline.evaluate(refund_trace()))
        while not server.recorded():
            await asyncio.sleep(0.01)
        started = time.monotonic()
        await judged.stage.aclose(0.2)
        assert time.monotonic() - started < 5.0
        return await task

    record = asyncio.run(run())
    assert record.judge is not None and record.judge.outcome == "timeout"
    assert judged.stage.in_flight == 0
    later = asyncio.run(judged.pipeline.evaluate(refund_trace(trace_id=trace_id(4))))
    assert later.skip_reason == "shutting_down" and len(server.recorded()) == 1
