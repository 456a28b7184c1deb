"""JudgeStageImpl on its own: retries and backoff, budgets, the circuit breaker and the cache.

The backend is a fake that implements the JudgeBackend Protocol and plays a script of
failures; sleeping and the breaker's clock are injected, so no test waits or needs a server.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import JudgeResult, JudgeVerdict, Trace
from sidecar.config import JudgeSettings, SamplingSettings
from sidecar.judge import BackendReply, JudgeCallError, JudgePacket, JudgeStageImpl, Rubric
from sidecar.pipeline import JudgeIdentity, JudgeOutcome
from tests.support.traces import analysed, refund_trace, trace_id

RUBRIC = Rubric(version="r-test", text="Judge each claim against its passages.")
MODEL = "fake-model"


def rate_limited(retry_after: float | None = None) -> JudgeCallError:
    return JudgeCallError("429", kind="rate_limited", retriable=True, retry_after=retry_after)


def server_error() -> JudgeCallError:
    return JudgeCallError("503", kind="api_error", retriable=True)


class ScriptedBackend:
    """A metered backend: each call raises the next scripted error, or (script exhausted, or
    None in the script) supports every claim with its first passage as the quote."""

    name = "openai-chat"
    model = MODEL
    metered = True

    def __init__(self, *script: JudgeCallError | None) -> None:
        self.script = list(script)
        self.calls: list[JudgePacket] = []
        self.closed = False

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        self.calls.append(packet)
        if self.script:
            error = self.script.pop(0)
            if error is not None:
                raise error
        verdicts = [
            JudgeVerdict(
                # Named by handle, as in the rendered packet an LLM reads.
                claim_id=packet.claim_handle(claim.claim_id),
                verdict="supported",
                evidence_quote=claim.passages[0].text,
                reason="stated",
            )
            for claim in packet.claims
        ]
        return BackendReply(JudgeResult(verdicts=verdicts), input_tokens=100, output_tokens=20)

    async def aclose(self) -> None:
        self.closed = True


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Stage:
    """A stage over ``backend`` with a fake sleep and clock, its metrics on a fresh registry."""

    def __init__(
        self, backend: ScriptedBackend, *, sampling: dict[str, Any] | None = None, **judge: Any
    ) -> None:
        self.backend = backend
        self.slept: list[float] = []
        self.clock = Clock()
        self.registry = CollectorRegistry()
        self.metrics = CitewatchMetrics(registry=self.registry)
        settings = {
            "screen": False,
            "max_retries": 3,
            "retry_base_seconds": 0.5,
            "retry_max_seconds": 8.0,
            **judge,
        }
        self.stage = JudgeStageImpl(
            backend,
            judge_settings=JudgeSettings(**settings),
            sampling_settings=SamplingSettings(**{"rate": 1.0, **(sampling or {})}),
            rubric=RUBRIC,
            observer=self.metrics,
            clock=self.clock,
            sleep=self._sleep,
        )

    async def _sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    def judge(self, *traces: Trace) -> list[JudgeOutcome]:
        async def run() -> list[JudgeOutcome]:
            return [await self.stage.judge(t, analysed(t)) for t in traces]

        return asyncio.run(run())

    def value(self, name: str, **labels: str) -> float:
        return self.registry.get_sample_value(name, labels) or 0.0


def verdicts_of(outcome: JudgeOutcome) -> dict[str, tuple[str, str | None]]:
    verdicts = outcome.verdicts or {}
    return {claim_id: (v.verdict, v.resolved_by) for claim_id, v in verdicts.items()}


def test_retriable_failures_are_retried_after_a_backoff_then_the_reply_counts() -> None:
    judged = Stage(ScriptedBackend(rate_limited(retry_after=3.0), server_error(), server_error()))
    (outcome,) = judged.judge(refund_trace())
    assert len(judged.backend.calls) == 4
    assert verdicts_of(outcome) == {"c1": ("supported", "llm"), "c2": ("supported", "llm")}
    assert outcome.run is not None and outcome.run.outcome == "ok"
    # Retry-After (3 s) beats the first jittered delay (0.25..0.5 s); then 0.5..1 s, 1..2 s.
    first, second, third = judged.slept
    assert first == 3.0 and 0.5 <= second <= 1.0 and 1.0 <= third <= 2.0
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="api_error") == 2
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="ok") == 1


def test_retries_stop_at_max_retries_and_the_trace_fails_with_the_error_kind() -> None:
    judged = Stage(ScriptedBackend(*[server_error()] * 10), max_retries=2)
    (outcome,) = judged.judge(refund_trace())
    assert len(judged.backend.calls) == 3 and len(judged.slept) == 2
    assert outcome.failed and outcome.failure == "api_error"
    assert outcome.verdicts is None
    assert judged.stage.errors == {"api_error": 1}


def test_a_non_retriable_failure_is_not_retried() -> None:
    judged = Stage(ScriptedBackend(JudgeCallError("no JSON", kind="parse_error")))
    (outcome,) = judged.judge(refund_trace())
    assert (len(judged.backend.calls), judged.slept) == (1, [])
    assert outcome.failure == "parse_error"


@pytest.mark.parametrize(
    ("sampling", "reason"),
    [
        pytest.param({"requests_per_minute": 1}, "budget_requests_per_minute", id="requests"),
        pytest.param({"tokens_per_minute": 1}, "budget_tokens_per_minute", id="tokens-minute"),
        pytest.param(
            {"tokens_per_minute": None, "tokens_per_day": 1},
            "budget_tokens_per_day",
            id="tokens-day",
        ),
    ],
)
def test_a_budget_refusal_is_a_counted_skip_and_the_backend_is_not_called(
    sampling: dict[str, Any], reason: str
) -> None:
    # No cache, so the second trace needs the LLM too. One request a minute lets the first
    # trace through; the token budgets refuse at once.
    judged = Stage(ScriptedBackend(), sampling=sampling, cache_size=0)
    outcomes = judged.judge(*(refund_trace(trace_id=trace_id(n)) for n in (1, 2)))
    refused = outcomes[1]
    assert refused.skip_reason == reason and refused.failed
    assert refused.sampled_by == "base"
    assert len(judged.backend.calls) == (1 if reason == "budget_requests_per_minute" else 0)
    assert judged.value("citewatch_judge_skips_total", reason=reason) >= 1


def test_the_breaker_opens_after_repeated_outages_and_a_probe_closes_it() -> None:
    judged = Stage(
        ScriptedBackend(*[server_error()] * 2),
        max_retries=0,
        circuit_failures=2,
        circuit_reset_seconds=30.0,
    )
    first, second, third = judged.judge(*(refund_trace(trace_id=trace_id(n)) for n in range(3)))
    assert [o.failure for o in (first, second, third)] == ["api_error", "api_error", "circuit_open"]
    assert len(judged.backend.calls) == 2  # the open breaker kept the third call back
    assert judged.value("citewatch_judge_circuit_state", state="open") == 1
    judged.clock.now += 30.0
    (probe,) = judged.judge(refund_trace(trace_id=trace_id(4)))
    assert probe.run is not None and probe.run.outcome == "ok"
    assert judged.stage.breaker.state == "closed"
    assert judged.value("citewatch_judge_circuit_state", state="closed") == 1


def test_a_parse_error_does_not_trip_the_breaker() -> None:
    judged = Stage(
        ScriptedBackend(*[JudgeCallError("bad", kind="parse_error")] * 3),
        max_retries=0,
        circuit_failures=2,
    )
    outcomes = judged.judge(*(refund_trace(trace_id=trace_id(n)) for n in range(3)))
    assert [o.failure for o in outcomes] == ["parse_error"] * 3
    assert judged.stage.breaker.state == "closed"


def test_cached_verdicts_are_served_without_a_call() -> None:
    judged = Stage(ScriptedBackend())
    first, again = judged.judge(
        refund_trace(trace_id=trace_id(1)), refund_trace(trace_id=trace_id(2))
    )
    assert len(judged.backend.calls) == 1
    assert verdicts_of(first) == {"c1": ("supported", "llm"), "c2": ("supported", "llm")}
    assert verdicts_of(again) == {"c1": ("supported", "cache"), "c2": ("supported", "cache")}
    assert again.run is not None and (again.run.outcome, again.run.cached_claims) == ("ok", 2)
    assert judged.value("citewatch_judge_cache_hits_total") == 2


def test_a_disabled_cache_calls_the_backend_every_time() -> None:
    judged = Stage(ScriptedBackend(), cache_size=0)
    judged.judge(refund_trace(trace_id=trace_id(1)), refund_trace(trace_id=trace_id(2)))
    assert len(judged.backend.calls) == 2


def test_unsampled_traces_are_skipped_without_a_call() -> None:
    judged = Stage(
        ScriptedBackend(),
        sampling={
            "rate": 0.0,
            "priority_critical": False,
            "priority_prescreen": False,
            "priority_new_generator_traces": 0,
        },
    )
    (outcome,) = judged.judge(refund_trace())
    assert (outcome.skip_reason, outcome.sampled_by, outcome.failed) == ("not_sampled", None, False)
    assert judged.backend.calls == []


def test_identity_and_aclose() -> None:
    judged = Stage(ScriptedBackend())
    assert judged.stage.identity == JudgeIdentity("openai-chat", MODEL, "r-test")

    async def close_then_judge() -> JudgeOutcome:
        await judged.stage.aclose(0.1)
        trace = refund_trace()
        return await judged.stage.judge(trace, analysed(trace))

    outcome = asyncio.run(close_then_judge())
    assert judged.backend.closed
    # A sampled trace after shutdown is a failure, so its critical claims count as unjudged.
    assert (outcome.skip_reason, outcome.failed) == ("shutting_down", True)
    assert judged.backend.calls == []


class GatedBackend(ScriptedBackend):
    """Holds its first call until ``release`` is set; the others answer after one turn of
    the loop. Counts the calls in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.started = 0
        self.active = 0
        self.peak = 0

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        first = self.started == 0
        self.started += 1
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            if first:
                await self.release.wait()
            else:
                await asyncio.sleep(0)
            return await super().judge(packet, rubric, timeout=timeout)
        finally:
            self.active -= 1


def test_a_freed_slot_goes_to_the_next_trace_without_waiting_for_a_slow_call() -> None:
    # Dispatch is continuous, not in waves: while one call hangs on its slot, the other
    # slot serves every waiting trace in turn.
    judged = Stage(GatedBackend(), concurrency=2)
    backend = judged.backend
    assert isinstance(backend, GatedBackend)
    traces = [refund_trace(trace_id=trace_id(n)) for n in range(6)]

    async def run() -> tuple[list[JudgeOutcome], JudgeOutcome, bool]:
        slow = asyncio.ensure_future(judged.stage.judge(traces[0], analysed(traces[0])))
        await asyncio.sleep(0)
        assert judged.stage.in_flight == 1
        rest = await asyncio.gather(*(judged.stage.judge(t, analysed(t)) for t in traces[1:]))
        pending = not slow.done()
        backend.release.set()
        return list(rest), await slow, pending

    rest, slow, slow_was_pending = asyncio.run(run())
    assert slow_was_pending
    assert [o.run.outcome if o.run else None for o in rest] == ["ok"] * 5
    assert slow.run is not None and slow.run.outcome == "ok"
    assert len(backend.calls) == 6 and backend.peak == 2
    assert judged.stage.in_flight == 0 and judged.stage.waiting == 0


def test_a_waiting_trace_sends_its_request_before_the_freed_slot_s_trace_is_scored() -> None:
    # Replies that arrive together would otherwise hold back every waiting request until
    # all of them had been scored and written.
    judged = Stage(GatedBackend(), concurrency=1)
    backend = judged.backend
    assert isinstance(backend, GatedBackend)
    first, second = refund_trace(trace_id=trace_id(1)), refund_trace(trace_id=trace_id(2))
    started_when_first_returned: list[int] = []

    async def judge_first() -> JudgeOutcome:
        outcome = await judged.stage.judge(first, analysed(first))
        started_when_first_returned.append(backend.started)
        return outcome

    async def run() -> list[JudgeOutcome]:
        a = asyncio.ensure_future(judge_first())
        await asyncio.sleep(0)
        b = asyncio.ensure_future(judged.stage.judge(second, analysed(second)))
        await asyncio.sleep(0)
        assert (judged.stage.in_flight, judged.stage.waiting) == (1, 1)
        backend.release.set()
        return [await a, await b]

    outcomes = asyncio.run(run())
    assert [o.run.outcome if o.run else None for o in outcomes] == ["ok", "ok"]
    assert started_when_first_returned == [2]
