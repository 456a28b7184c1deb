from __future__ import annotations

import random

from sidecar.judge import Backoff, CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_backoff_grows_bounded_with_jitter_and_honours_retry_after() -> None:
    backoff = Backoff(base_seconds=1.0, max_seconds=8.0, rng=random.Random(1))
    for attempt in range(8):
        ceiling = min(8.0, 2.0 ** attempt)
        delays = {backoff.delay(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1
    assert backoff.delay(0, retry_after=5.0) == 5.0
    assert backoff.delay(0, retry_after=600.0) == 8.0


def test_breaker_opens_probes_and_closes() -> None:
    clock = Clock()
    states: list[str] = []
    breaker = CircuitBreaker(failure_threshold=3, reset_seconds=10.0, clock=clock,
                             on_change=states.append)
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

