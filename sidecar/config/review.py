"""The review queue (``review.*``)."""

from __future__ import annotations

from typing import get_args

from pydantic import Field, SecretStr, model_validator

from schemas import ReviewRoute
from sidecar.config._section import Section

__all__ = ["ReviewSettings"]


class ReviewSettings(Section):
    """The review queue: which claims reach people, and where their packets are kept."""

    store: str | None = None
    """SQLite file of the review store; `citewatch run` writes routed claims to it. None: no
    store is written (items can still go to ``review.topic``)."""
    topic: str | None = None
    """Kafka topic the routed claims are produced to (e.g. citewatch.review), keyed by item
    ID, so several replicas feed one store through `citewatch review consume`."""
    routes: list[ReviewRoute] = Field(default_factory=lambda: list(get_args(ReviewRoute)))
    """The flag routes that are on; the audit slice is on while ``audit_rate`` > 0."""
    audit_rate: float = Field(default=0.01, ge=0.0, le=1.0)
    """Share of judged claims sent to review whatever their flags, by a hash of (trace_id,
    claim_id): the uniform slice the judge's precision on live traffic is estimated on."""
    daily_caps: dict[str, int] = Field(
        default_factory=lambda: {
            "critical_unjudged": 500,
            "injection_influenced": 500,
            "unverified": 500,
            "suspect": 500,
            "abstained_critical": 500,
            "disagreement": 500,
            "audit": 1000,
        }
    )
    """Items stored per route and UTC day; beyond a cap a route's items are counted and
    dropped, so a bad hour cannot flood the queue. A route missing here has no cap."""
    reviewers_per_item: int = Field(default=1, ge=1, le=2)
    """Independent reviewers each item needs; with 2, disagreements go to adjudication."""
    host: str = "127.0.0.1"
    """Bind address of `citewatch review serve`; anything but loopback requires a token."""
    port: int = Field(default=8470, ge=0, le=65535)
    """Port of `citewatch review serve` (0 picks one)."""
    token: SecretStr | None = None
    """Token reviewers give to sign in; required when ``host`` is not a loopback address."""

    @model_validator(mode="after")
    def _known_caps(self) -> ReviewSettings:
        known = {*get_args(ReviewRoute), "audit"}
        unknown = sorted(set(self.daily_caps) - known)
        if unknown:
            raise ValueError(f"review.daily_caps: unknown route(s) {', '.join(unknown)}")
        if any(cap < 0 for cap in self.daily_caps.values()):
            raise ValueError("review.daily_caps must not be negative")
        return self
