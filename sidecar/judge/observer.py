"""What the judge reports while it works. ``exporters.prometheus.CitewatchMetrics``
satisfies :class:`JudgeObserver`; :class:`NullObserver` is the default."""

from __future__ import annotations

from typing import Protocol

from schemas.vocabulary import CircuitState, SkipReason

__all__ = ["JudgeObserver", "NullObserver"]


class JudgeObserver(Protocol):
    """Receives judge counts; implementations must not raise."""

    def judge_request(
        self,
        *,
        model: str,
        outcome: str,
        latency_seconds: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """One request attempt ended with ``outcome`` (ok or a judge error kind)."""
        ...

    def judge_skip(self, reason: SkipReason) -> None:
        """A trace was not judged, and why."""
        ...

    def judge_cache_hit(self, count: int = 1) -> None:
        """Claim verdicts served from the cache."""
        ...

    def quote_not_found(self) -> None:
        """A supported or partial verdict whose quote is not in its cited passages."""
        ...

    def set_circuit_state(self, state: CircuitState) -> None:
        """The circuit breaker is now closed, open or half_open."""
        ...


class NullObserver:
    """Discards everything."""

    def judge_request(
        self,
        *,
        model: str,
        outcome: str,
        latency_seconds: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """Discarded."""

    def judge_skip(self, reason: SkipReason) -> None:
        """Discarded."""

    def judge_cache_hit(self, count: int = 1) -> None:
        """Discarded."""

    def quote_not_found(self) -> None:
        """Discarded."""

    def set_circuit_state(self, state: CircuitState) -> None:
        """Discarded."""
