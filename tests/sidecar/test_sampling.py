from __future__ import annotations

from typing import Any

import pytest

from sidecar.config import SamplingSettings
from sidecar.judge.sampling import Budget, Reservation, Sampler, hash_fraction
from tests.support.factories import claim, make_trace, source
from tests.support.traces import analysed, refund_trace, trace_id


def ordinary(n: int, **overrides: Any) -> Any:
    """A trace with one importance-2 cited claim the pre-screen does not flag."""
    fields: dict[str, Any] = {"trace_id": trace_id(n)}
    fields.update(overrides)
    return make_trace(**fields)


def no_priority(**fields: Any) -> SamplingSettings:
    return SamplingSettings(
        priority_critical=False, priority_prescreen=False, priority_new_generator_traces=0, **fields
    )


def test_base_sample_is_the_same_in_two_instances() -> None:
    ids = [trace_id(n) for n in range(5000)]
    first, second = Sampler(no_priority(rate=0.3)), Sampler(no_priority(rate=0.3))
    assert [first.in_base_sample(i) for i in ids] == [second.in_base_sample(i) for i in ids]
    assert hash_fraction(ids[0].upper()) == hash_fraction(ids[0])


@pytest.mark.parametrize("rate", [0.01, 0.1, 0.5])
def test_base_sample_matches_the_rate_on_100000_ids(rate: float) -> None:
    sampler = Sampler(no_priority(rate=rate))
    hits = sum(sampler.in_base_sample(f"{n * 2654435761 % 2**128:032x}") for n in range(1, 100_001))
    expected = rate * 100_000
    # Four binomial standard deviations.
    assert abs(hits - expected) <= 4 * (expected * (1 - rate)) ** 0.5


def test_rate_bounds() -> None:
    ids = [trace_id(n) for n in range(1000)]
    assert not any(Sampler(no_priority(rate=0.0)).in_base_sample(i) for i in ids)
    assert all(Sampler(no_priority(rate=1.0)).in_base_sample(i) for i in ids)


def test_priority_rules_label_traces_outside_the_base_sample() -> None:
    flagged = make_trace(
        trace_id=trace_id(7),
        sources=[source("S1", "Refunds within 30 days.")],
        claims=[claim("c1", "Refunds within 45 days.", ["S1"], 2)],
    )
    critical = refund_trace(trace_id=trace_id(8))
    sampler = Sampler(SamplingSettings(rate=0.0, priority_new_generator_traces=0))
    assert sampler.priority_reason(flagged, analysed(flagged)) == "prescreen"
    assert sampler.priority_reason(critical, analysed(critical)) == "critical"
    assert sampler.decide(critical, analysed(critical)) == "priority"
    plain = ordinary(9)
    assert sampler.decide(plain, analysed(plain)) is None


def test_first_traces_of_an_unseen_generator_are_priority() -> None:
    sampler = Sampler(SamplingSettings(rate=0.0, priority_new_generator_traces=2))
    decisions = []
    for n, model in enumerate(["gen-a", "gen-a", "gen-a", "gen-b"]):
        trace = ordinary(n, generator={"model": model, "prompt_version": "v3"})
        decisions.append(sampler.decide(trace, analysed(trace)))
    assert decisions == ["priority", "priority", None, "priority"]
    new_prompt = ordinary(9, generator={"model": "gen-a", "prompt_version": "v4"})
    assert sampler.decide(new_prompt, analysed(new_prompt)) == "priority"


def test_base_sample_wins_over_priority_label() -> None:
    sampler = Sampler(SamplingSettings(rate=1.0))
    trace = refund_trace()
    assert sampler.decide(trace, analysed(trace)) == "base"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_requests_per_minute_budget_refuses_then_recovers() -> None:
    clock = Clock()
    budget = Budget(
        SamplingSettings(requests_per_minute=2, tokens_per_minute=None),
        clock=clock,
        wall_clock=lambda: 0.0,
    )
    assert isinstance(budget.acquire(10), Reservation)
    assert isinstance(budget.acquire(10), Reservation)
    assert budget.acquire(10) == "budget_requests_per_minute"
    clock.now += 60.0
    assert isinstance(budget.acquire(10), Reservation)


def test_token_budgets_use_settled_tokens() -> None:
    clock = Clock()
    budget = Budget(
        SamplingSettings(requests_per_minute=None, tokens_per_minute=1000, tokens_per_day=1500),
        clock=clock,
        wall_clock=lambda: 0.0,
    )
    first = budget.acquire(900)
    assert isinstance(first, Reservation)
    assert budget.acquire(200) == "budget_tokens_per_minute"
    budget.settle(first, 300)  # the call used less than estimated
    assert isinstance(budget.acquire(600), Reservation)
    clock.now += 61.0
    assert budget.acquire(700) == "budget_tokens_per_day"
    next_day = Budget(
        SamplingSettings(requests_per_minute=None, tokens_per_minute=None, tokens_per_day=1500),
        clock=clock,
        wall_clock=lambda: 86_400.0,
    )
    assert isinstance(next_day.acquire(1500), Reservation)


def test_settling_a_reservation_after_its_minute_leaves_the_window_alone() -> None:
    clock = Clock()
    budget = Budget(
        SamplingSettings(requests_per_minute=None, tokens_per_minute=1000),
        clock=clock,
        wall_clock=lambda: 0.0,
    )
    slow = budget.acquire(400)
    assert isinstance(slow, Reservation)
    clock.now += 61.0
    assert isinstance(budget.acquire(900), Reservation)  # the slow call's minute is over
    budget.settle(slow, 5000)  # a late settle must not charge the current minute
    assert isinstance(budget.acquire(100), Reservation)
    assert budget.acquire(1) == "budget_tokens_per_minute"
