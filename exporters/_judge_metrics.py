"""The metrics of the judge's calls: requests by outcome, latency, tokens, skips, cache hits,
quotes not found, and the circuit breaker's state."""

from __future__ import annotations

import logging
from typing import get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from exporters._children import Children as _Children
from schemas.vocabulary import CircuitState, SkipReason

__all__ = ["CIRCUIT_STATES", "JUDGE_LATENCY_BUCKETS", "JudgeMetrics"]

logger = logging.getLogger(__name__)

JUDGE_LATENCY_BUCKETS: tuple[float, ...] = (
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0,
)  # fmt: skip
"""LLM call latencies: from a cache-like 10 ms to a slow 80 s completion."""

CIRCUIT_STATES: tuple[CircuitState, ...] = get_args(CircuitState)


class JudgeMetrics:
    """What the judge reports while it works (it satisfies
    :class:`sidecar.judge.observer.JudgeObserver`); the circuit starts closed."""

    def __init__(self, *, registry: CollectorRegistry) -> None:
        self.judge_requests = Counter(
            "citewatch_judge_requests",
            "Judge calls, by model and outcome.",
            ["model", "outcome"],
            registry=registry,
        )
        self.judge_latency = Histogram(
            "citewatch_judge_latency_seconds",
            "Judge call latency.",
            ["model"],
            buckets=JUDGE_LATENCY_BUCKETS,
            registry=registry,
        )
        self.judge_tokens = Counter(
            "citewatch_judge_tokens",
            "Tokens used by judge calls, by model and type (input, output).",
            ["model", "type"],
            registry=registry,
        )
        self.judge_skips = Counter(
            "citewatch_judge_skips",
            "Traces not judged, by reason.",
            ["reason"],
            registry=registry,
        )
        self.judge_cache_hits = Counter(
            "citewatch_judge_cache_hits",
            "Claim verdicts served from the judge cache.",
            registry=registry,
        )
        self.judge_quote_not_found = Counter(
            "citewatch_judge_quote_not_found",
            "Supported or partial verdicts whose evidence quote was not in the cited passages.",
            registry=registry,
        )
        self.circuit_state = Gauge(
            "citewatch_judge_circuit_state",
            "Judge circuit breaker: 1 for the current state, 0 for the others.",
            ["state"],
            registry=registry,
        )
        self._judge_requests = _Children(self.judge_requests)
        self._judge_latency = _Children(self.judge_latency)
        self._judge_tokens = _Children(self.judge_tokens)
        self._judge_skips = _Children(self.judge_skips)
        self.set_circuit_state("closed")

    def judge_request(
        self,
        *,
        model: str,
        outcome: str,
        latency_seconds: float,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """Count one judge call with its outcome, latency and token usage."""
        self._judge_requests(model, outcome).inc()
        self._judge_latency(model).observe(latency_seconds)
        if input_tokens > 0:
            self._judge_tokens(model, "input").inc(input_tokens)
        if output_tokens > 0:
            self._judge_tokens(model, "output").inc(output_tokens)

    def judge_skip(self, reason: SkipReason) -> None:
        """Count a trace the judge did not see, with the reason (sampling, budget, circuit)."""
        self._judge_skips(reason).inc()

    def judge_cache_hit(self, count: int = 1) -> None:
        """Count claim verdicts served from the cache."""
        self.judge_cache_hits.inc(count)

    def quote_not_found(self) -> None:
        """Count a verdict downgraded because its evidence quote was not found."""
        self.judge_quote_not_found.inc()

    def set_circuit_state(self, state: CircuitState) -> None:
        """Set the circuit breaker state gauge to ``closed``, ``open`` or ``half_open``.

        Never raises (the judge reports through this while it works): an unknown state is
        logged and leaves the gauge as it was.
        """
        if state not in CIRCUIT_STATES:
            logger.warning("ignoring unknown judge circuit state %r", state)
            return
        for name in CIRCUIT_STATES:
            self.circuit_state.labels(state=name).set(1 if name == state else 0)
