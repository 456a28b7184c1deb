"""The sign-in backoff and the sign-in form's one-time tokens, on a clock the test moves."""

from __future__ import annotations

from sidecar.review._signin import FormNonces, SignInLimiter


def test_backoff_doubles_per_address_and_clears_on_success() -> None:
    now = [0.0]
    limiter = SignInLimiter(free=2, max_wait=8.0, clock=lambda: now[0])
    waits = []
    for _ in range(7):
        limiter.failed("10.0.0.1")
        waits.append(limiter.wait("10.0.0.1"))
    assert waits == [0.0, 0.0, 1.0, 2.0, 4.0, 8.0, 8.0]  # capped at max_wait
    assert limiter.wait("10.0.0.2") == 0.0  # another address is not slowed
    limiter.succeeded("10.0.0.1")
    assert limiter.wait("10.0.0.1") == 0.0


def test_failures_from_everywhere_slow_everyone_for_the_minute() -> None:
    now = [100.0]
    limiter = SignInLimiter(free=10, global_limit=5, clock=lambda: now[0])
    for n in range(5):
        limiter.failed(f"10.0.0.{n}")
        now[0] += 1.0
    assert limiter.wait("10.9.9.9") == 55.0  # until the first failure leaves the window
    now[0] += 55.0
    assert limiter.wait("10.9.9.9") == 0.0


def test_a_sign_in_form_token_is_spent_once_and_expires() -> None:
    now = [0.0]
    nonces = FormNonces(seconds=60.0, capacity=3, clock=lambda: now[0])
    token = nonces.issue()
    assert nonces.spend(token)
    assert not nonces.spend(token)
    assert not nonces.spend("made-up") and not nonces.spend(None)
    late = nonces.issue()
    now[0] += 61.0
    assert not nonces.spend(late)
    oldest, *rest = [nonces.issue() for _ in range(4)]
    assert not nonces.spend(oldest)  # pushed out by the capacity
    assert all(nonces.spend(t) for t in rest)
