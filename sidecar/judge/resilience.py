"""Backoff with jitter and a circuit breaker for judge calls.

:class:`Backoff` knows nothing of the judge: any retry loop can use it, also one that retries
without end (:meth:`Backoff.delays`), such as sending to a broker until it acknowledges.

The breaker counts failed calls (after their retries) of the kinds that say the endpoint is
unwell: rate_limited, timeout, api_error, and backend_error (the backend or its client raised
something else, such as a TypeError from an SDK whose interface changed: every call fails).
A reply that does not parse or a refusal is the model's answer, not an outage, and does not
trip it.

    closed --(``failure_threshold`` consecutive failures)--> open
    open --(``reset_seconds`` elapsed; one probe call admitted)--> half_open
    half_open --(probe succeeds)--> closed;  --(probe fails)--> open

Open means open for the whole cool-down: the outcome of a call that was admitted before
the breaker opened (success or failure) neither closes it nor extends it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from schemas.vocabulary import CircuitState, JudgeErrorKind

__all__ = ["OUTAGE_KINDS", "Backoff", "CircuitBreaker", "CircuitState"]

OUTAGE_KINDS: frozenset[JudgeErrorKind] = frozenset(
    {"rate_limited", "timeout", "api_error", "backend_error"}
)
"""Judge error kinds that count as the endpoint failing (``backend_error``: the client in
front of it, which fails the same way on every call)."""


_MAX_DOUBLINGS = 64
"""Doublings past which the ceiling is max_seconds for any sane base; keeps ``2**attempt``
finite however long a caller retries."""


@dataclass
class Backoff:
    """Bounded exponential backoff with jitter; honours a server's Retry-After."""

    base_seconds: float
    max_seconds: float
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based, any size).

        The exponential delay is ``base * 2**attempt`` capped at ``max_seconds``, with
        "equal jitter" (half fixed, half random) so replicas do not retry in lockstep. A
        Retry-After wins when it is longer, capped at ``max_seconds`` too.
        """
        doublings = min(max(attempt, 0), _MAX_DOUBLINGS)
        ceiling = min(self.max_seconds, self.base_seconds * (2.0**doublings))
        delay = ceiling / 2 + self.rng.uniform(0.0, ceiling / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_seconds))
        return delay

    def delays(self) -> Iterator[float]:
        """Successive delays without end, for a loop that retries until it succeeds."""
        attempt = 0
        while True:
            yield self.delay(attempt)
            attempt += 1


class CircuitBreaker:
    """Opens after repeated failures and admits one probe call after a cool-down."""

    def __init__(
        self,
        *,
        failure_threshold: int,
        reset_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[CircuitState], None] | None = None,
    ) -> None:
        self._threshold = failure_threshold
        self._reset = reset_seconds
        self._clock = clock
        self._on_change = on_change
        self._state: CircuitState = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._probe_out = False
        self.opened = 0

    @property
    def state(self) -> CircuitState:
        """The current state; an open breaker past its cool-down reads as half_open."""
        if self._state == "open" and self._clock() - self._opened_at >= self._reset:
            self._set("half_open")
            self._probe_out = False
        return self._state

    def allow(self) -> bool:
        """Whether a call may go out now; in half_open only one probe at a time."""
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._probe_out:
            self._probe_out = True
            return True
        return False

    def success(self) -> None:
        """A call succeeded: reset the failure count; a half-open breaker closes. An open
        one stays open until its cool-down ends (the call was admitted before it opened)."""
        state = self.state
        if state == "open":
            return
        self._failures = 0
        self._probe_out = False
        if state == "half_open":
            self._set("closed")

    def failure(self) -> None:
        """A call failed as an outage does: count it, open at the threshold or on a probe.
        An open breaker ignores it: its cool-down runs from when it opened."""
        state = self.state
        if state == "open":
            return
        self._failures += 1
        self._probe_out = False
        if state == "half_open" or self._failures >= self._threshold:
            self.opened += 1
            self._opened_at = self._clock()
            self._set("open")

    def release(self) -> None:
        """A call ended neither way (e.g. a parse error): let the next probe through."""
        self._probe_out = False

    def _set(self, state: CircuitState) -> None:
        changed = state != self._state
        self._state = state
        if changed and self._on_change is not None:
            self._on_change(state)
