"""Which traces the judge sees, and whether the budget lets it.

- Base sample: a trace is judged when a hash of its trace_id falls under the configured rate.
  The hash (SHA-256, no per-process salt) gives the same answer on every replica and after
  every restart; this uniform sample is what population quality figures use.
- Priority sample: traces with a critical (importance-3) cited claim, traces the
  deterministic pre-screen flags, and the first N traces of each unseen generator model and
  prompt version. They are labelled ``priority`` so they never bias population figures; a
  trace in the base sample is always labelled ``base``. The generators seen are remembered
  as fixed-size digests of model and prompt version (whatever the names' length), the least
  recently seen forgotten beyond ``sampling.generators_max_bytes``.
- Budgets: requests per rolling minute, tokens per rolling minute, tokens per UTC day. When a
  budget says no, the trace is still checked deterministically and the skip has a reason.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from schemas import SampledBy, Trace
from schemas.vocabulary import SampledSkipReason
from sidecar.checks.analysis import Analysis
from sidecar.config import SamplingSettings
from sidecar.judge._memory import ENTRY_OVERHEAD_BYTES, sizeof

__all__ = ["Budget", "Reservation", "SampledBy", "Sampler", "hash_fraction"]

_TWO_64 = float(2**64)


def hash_fraction(trace_id: str) -> float:
    """A stable number in [0, 1) from ``trace_id`` (case-insensitive)."""
    digest = hashlib.sha256(trace_id.lower().encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / _TWO_64


_GENERATOR_DIGEST_BYTES = 16
_GENERATOR_ENTRY_BYTES = (
    sizeof(b"\0" * _GENERATOR_DIGEST_BYTES) + sizeof(2**40) + ENTRY_OVERHEAD_BYTES
)
"""Bytes one remembered generator costs: its digest, its count and the table's slot."""


def _generator_key(model: str, prompt_version: str) -> bytes:
    named = f"{len(model)}:{model}\0{prompt_version}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(named, digest_size=_GENERATOR_DIGEST_BYTES).digest()


class Sampler:
    """Decides base or priority sampling for one trace; keeps per-generator counts."""

    def __init__(self, settings: SamplingSettings) -> None:
        self._settings = settings
        self._seen: OrderedDict[bytes, int] = OrderedDict()
        self._max_generators = max(1, settings.generators_max_bytes // _GENERATOR_ENTRY_BYTES)

    @property
    def generators_bytes(self) -> int:
        """Estimated bytes of the table of generators seen (at most
        ``sampling.generators_max_bytes``)."""
        return len(self._seen) * _GENERATOR_ENTRY_BYTES

    def in_base_sample(self, trace_id: str) -> bool:
        """Whether the trace falls in the uniform base sample."""
        return hash_fraction(trace_id) < self._settings.rate

    def priority_reason(self, trace: Trace, analysis: Analysis) -> str | None:
        """Why the trace deserves a priority judgement (critical, prescreen, new_generator),
        or None. Counts the trace towards its generator's first N."""
        new_generator = self._count_generator(trace)
        cited = [item for item in analysis.claims if item.needs_judge]
        if self._settings.priority_critical and any(i.claim.importance == 3 for i in cited):
            return "critical"
        if self._settings.priority_prescreen and any(i.prescreen for i in cited):
            return "prescreen"
        if new_generator:
            return "new_generator"
        return None

    def decide(self, trace: Trace, analysis: Analysis) -> SampledBy | None:
        """``base``, ``priority`` or None (not sampled)."""
        priority = self.priority_reason(trace, analysis)
        if self.in_base_sample(trace.trace_id):
            return "base"
        return "priority" if priority is not None else None

    def _count_generator(self, trace: Trace) -> bool:
        limit = self._settings.priority_new_generator_traces
        if limit <= 0:
            return False
        key = _generator_key(trace.generator.model, trace.generator.prompt_version)
        count = self._seen.get(key, 0)
        if count <= limit:  # counts stop at limit + 1: a small int, whatever the traffic
            count += 1
        self._seen[key] = count
        self._seen.move_to_end(key)
        while len(self._seen) > self._max_generators:
            self._seen.popitem(last=False)
        return count <= limit


@dataclass(slots=True)
class Reservation:
    """Tokens reserved for one request at ``time``; settled with the real use later."""

    time: float
    tokens: int
    in_window: bool = True
    """Still counted in the tokens-per-minute window."""


class Budget:
    """Requests per minute, tokens per minute and tokens per UTC day.

    :meth:`acquire` reserves an estimate before a call and names the budget that says no;
    :meth:`settle` replaces the estimate with the tokens the call really used.
    """

    def __init__(
        self,
        settings: SamplingSettings,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._rpm = settings.requests_per_minute
        self._tpm = settings.tokens_per_minute
        self._tpd = settings.tokens_per_day
        self._clock = clock
        self._wall = wall_clock
        self._requests: deque[float] = deque()
        self._tokens: deque[Reservation] = deque()
        self._minute_tokens = 0
        self._day = ""
        self._day_tokens = 0

    def _expire(self, now: float) -> None:
        while self._requests and now - self._requests[0] >= 60.0:
            self._requests.popleft()
        while self._tokens and now - self._tokens[0].time >= 60.0:
            expired = self._tokens.popleft()
            expired.in_window = False
            self._minute_tokens -= expired.tokens
        day = datetime.fromtimestamp(self._wall(), UTC).strftime("%Y-%m-%d")
        if day != self._day:
            self._day, self._day_tokens = day, 0

    def acquire(self, tokens: int) -> Reservation | SampledSkipReason:
        """Reserve one request of about ``tokens``. Returns the reservation, or the name of
        the budget that says no: budget_requests_per_minute, budget_tokens_per_minute,
        budget_tokens_per_day."""
        now = self._clock()
        self._expire(now)
        if self._rpm is not None and len(self._requests) >= self._rpm:
            return "budget_requests_per_minute"
        if self._tpm is not None and self._minute_tokens + tokens > self._tpm:
            return "budget_tokens_per_minute"
        if self._tpd is not None and self._day_tokens + tokens > self._tpd:
            return "budget_tokens_per_day"
        reservation = Reservation(now, tokens)
        self._requests.append(now)
        self._tokens.append(reservation)
        self._minute_tokens += tokens
        self._day_tokens += tokens
        return reservation

    def settle(self, reservation: Reservation, actual: int) -> None:
        """Replace a reservation's estimate with the tokens the call really used."""
        delta = actual - reservation.tokens
        self._day_tokens = max(0, self._day_tokens + delta)
        if reservation.in_window:  # O(1): no scan of the minute's reservations
            self._minute_tokens += delta
        reservation.tokens = actual
