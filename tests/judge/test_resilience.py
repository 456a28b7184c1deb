from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import JudgeResult, JudgeVerdict
from sidecar.config import JudgeSettings, SamplingSettings
from sidecar.judge import (
    BackendReply,
    Backoff,
    CircuitBreaker,
    JudgeCallError,
    JudgePacket,
    JudgeStageImpl,
    Rubric,
)
from sidecar.pipeline import JudgeOutcome
from tests.support.traces import analysed, refund_trace, trace_id


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_backoff_grows_bounded_with_jitter_and_honours_retry_after() -> None:
    backoff = Backoff(base_seconds=1.0, max_seconds=8.0, rng=random.Random(1))
    for attempt in range(8):
        ceiling = min(8.0, 2.0**attempt)
        delays = {backoff.delay(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1
    assert backoff.delay(0, retry_after=5.0) == 5.0
    assert backoff.delay(0, retry_after=600.0) == 8.0


def test_breaker_opens_probes_and_closes() -> None:
    clock = Clock()
    states: list[str] = []
    breaker = CircuitBreaker(
        failure_threshold=3, reset_seconds=10.0, clock=clock, on_change=states.append
    )
    for _ in range(2):
        assert breaker.allow()
        breaker.failure()
    assert breaker.state == "closed"
    breaker.failure()
    assert breaker.state == "open" and not breaker.allow()
    clock.now += 10.0
    assert breaker.state == "half_open"
    assert breaker.allow() and not breaker.allow()  # one probe at a time
    breaker.failure()
    assert breaker.state == "open"
    clock.now += 10.0
    assert breaker.allow()
    breaker.success()
    assert breaker.state == "closed" and breaker.allow()
    assert states == ["open", "half_open", "open", "half_open", "closed"]
    assert breaker.opened == 2


def test_success_resets_the_failure_count() -> None:
    breaker = CircuitBreaker(failure_threshold=2, reset_seconds=1.0, clock=Clock())
    breaker.failure()
    breaker.success()
    breaker.failure()
    assert breaker.state == "closed"


def test_backoff_never_overflows_and_stays_bounded_for_endless_retries() -> None:
    backoff = Backoff(base_seconds=0.5, max_seconds=10.0, rng=random.Random(2))
    assert 5.0 <= backoff.delay(5000) <= 10.0  # 2.0 ** 5000 would raise OverflowError
    delays = backoff.delays()
    first = [next(delays) for _ in range(2000)]
    assert 0.25 <= first[0] <= 0.5 and 0.5 <= first[1] <= 1.0
    assert all(5.0 <= d <= 10.0 for d in first[5:])
    assert len(set(first[5:])) > 1  # jittered, not in lockstep


def test_an_open_breaker_stays_open_for_its_whole_cool_down() -> None:
    clock = Clock()
    states: list[str] = []
    breaker = CircuitBreaker(
        failure_threshold=1, reset_seconds=10.0, clock=clock, on_change=states.append
    )
    breaker.failure()
    clock.now += 4.0
    breaker.success()  # a call admitted before the breaker opened ends well
    breaker.failure()  # and another ends badly: neither closes nor extends the cool-down
    assert (breaker.state, breaker.allow()) == ("open", False)
    clock.now += 6.0
    assert breaker.allow() and not breaker.allow()
    breaker.success()
    assert (breaker.state, states, breaker.opened) == ("closed", ["open", "half_open", "closed"], 1)


# -- the breaker inside the judge stage, with a fake backend that counts its calls ----------


class CountingBackend:
    """A metered backend playing a script of errors (None: a good reply); each call yields
    to the event loop first, as a network call would, so concurrent traces interleave."""

    name = "openai-chat"
    model = "fake-model"
    metered = True

    def __init__(
        self, *script: JudgeCallError | None, default: JudgeCallError | None = None
    ) -> None:
        self.script = list(script)
        self.default = default
        self.calls = 0

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        self.calls += 1
        await asyncio.sleep(0)
        error = self.script.pop(0) if self.script else self.default
        if error is not None:
            raise error
        return BackendReply(
            JudgeResult(
                verdicts=[
                    JudgeVerdict(
                        claim_id=packet.claim_handle(c.claim_id),
                        verdict="supported",
                        evidence_quote=c.passages[0].text,
                        reason="stated",
                    )
                    for c in packet.claims
                ]
            ),
            input_tokens=10,
            output_tokens=5,
        )

    async def aclose(self) -> None:
        pass


def outage(*, retriable: bool = True) -> JudgeCallError:
    return JudgeCallError("503", kind="api_error", retriable=retriable)


async def _yield(_seconds: float) -> None:
    for _ in range(3):
        await asyncio.sleep(0)


def _stage(backend: CountingBackend, clock: Clock, **judge: Any) -> JudgeStageImpl:
    settings = {"screen": False, "cache_size": 0, "max_retries": 3, **judge}
    return JudgeStageImpl(
        backend,
        judge_settings=JudgeSettings(**settings),
        sampling_settings=SamplingSettings(rate=1.0),
        rubric=Rubric(version="r-test", text="Judge the claims."),
        observer=CitewatchMetrics(registry=CollectorRegistry()),
        clock=clock,
        sleep=_yield,
    )


def _judge(stage: JudgeStageImpl, *numbers: int) -> list[JudgeOutcome]:
    async def run() -> list[JudgeOutcome]:
        traces = [refund_trace(trace_id=trace_id(n)) for n in numbers]
        return list(await asyncio.gather(*(stage.judge(t, analysed(t)) for t in traces)))

    return asyncio.run(run())


def test_a_call_cut_short_by_the_open_circuit_does_not_close_it() -> None:
    # Trace 1 fails once and backs off; meanwhile trace 2's outage opens the breaker; trace 1
    # retries, fails, sees the open circuit and stops. The breaker must stay open.
    clock = Clock()
    backend = CountingBackend(outage(), outage(retriable=False), outage())
    stage = _stage(backend, clock, circuit_failures=1, circuit_reset_seconds=30.0)
    first, second = _judge(stage, 1, 2)
    assert (first.failure, second.failure, backend.calls) == ("circuit_open", "api_error", 3)
    assert stage.breaker.state == "open"
    (held_back,) = _judge(stage, 3)
    assert (held_back.skip_reason, backend.calls) == ("circuit_open", 3)


def test_after_the_cool_down_one_probe_goes_out_and_its_success_closes_the_breaker() -> None:
    clock = Clock()
    backend = CountingBackend(outage(retriable=False))
    stage = _stage(backend, clock, circuit_failures=1, circuit_reset_seconds=30.0)
    _judge(stage, 1)
    clock.now += 30.0
    outcomes = _judge(stage, 2, 3, 4)
    assert backend.calls == 2  # the opening call and the one probe
    assert sorted(
        o.skip_reason or o.run.outcome
        for o in outcomes  # type: ignore[union-attr]
    ) == ["circuit_open", "circuit_open", "ok"]
    assert stage.breaker.state == "closed"
    _judge(stage, 5, 6)
    assert backend.calls == 4


def test_a_dead_judge_fails_fast_with_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    backend = CountingBackend(default=outage())
    stage = _stage(
        backend, clock, circuit_failures=5, circuit_reset_seconds=30.0, max_retries=2, concurrency=4
    )
    with caplog.at_level(logging.INFO):
        outcomes = _judge(stage, *range(40))
    assert all(o.failed for o in outcomes)
    # Two slots' worth of traces (the fifth failure opens the breaker) make their three
    # attempts; every other trace is held back without a call.
    assert backend.calls <= 2 * 4 * 3
    assert sum(o.failure == "circuit_open" for o in outcomes) >= 40 - 2 * 4
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "api_error" in warnings[0].getMessage()
