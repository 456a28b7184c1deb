"""The review queue (``review.*``)."""

from __future__ import annotations

import ipaddress
import re
from typing import get_args

from pydantic import Field, SecretStr, model_validator

from schemas import ReviewRoute
from sidecar.config._section import Section

__all__ = ["ReviewSettings"]

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


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
    """Bind address of `citewatch review serve`; anything but loopback needs per-reviewer
    identity (``reviewer_tokens`` or ``proxy_user_header``)."""
    port: int = Field(default=8470, ge=0, le=65535)
    """Port of `citewatch review serve` (0 picks one)."""
    public_names: list[str] = Field(default_factory=list)
    """Host names the page is reached by besides the bound address and localhost (e.g.
    review.example.com behind a proxy); a request naming any other host is refused, so a
    rebound DNS name cannot reach the page. Setting one needs per-reviewer identity."""
    token: SecretStr | None = None
    """Shared token: the bearer token of /metrics, and, for a single reviewer on loopback
    with no per-reviewer identity, asked at sign-in. At least 20 characters of varied
    characters (`citewatch review token` makes one); a weak token stops serve at start-up."""
    reviewer_tokens: dict[str, str] = Field(default_factory=dict)
    """Reviewer name -> ``sha256:`` and the hex SHA-256 of that reviewer's token (from
    `citewatch review token NAME`); a reviewer signs in with their own token, and labels
    under the name it belongs to."""
    adjudicators: list[str] = Field(default_factory=list)
    """Reviewers (names of ``reviewer_tokens``, or users named by the proxy) who may decide
    disputed items; never one they labelled themselves."""
    proxy_user_header: str | None = None
    """Request header carrying the user an authenticating reverse proxy signed in (e.g.
    X-Forwarded-User or X-Auth-Request-User of oauth2-proxy); believed only from
    ``trusted_proxies``."""
    trusted_proxies: list[str] = Field(default_factory=list)
    """Addresses or networks (CIDR) of the proxies whose ``proxy_user_header`` is believed."""

    @model_validator(mode="after")
    def _identity(self) -> ReviewSettings:
        for name, digest in self.reviewer_tokens.items():
            if not name or len(name) > 64 or not name.isprintable():
                raise ValueError("review.reviewer_tokens: names are 1 to 64 printable characters")
            if not _DIGEST.fullmatch(digest):
                raise ValueError(
                    f"review.reviewer_tokens[{name}] must be sha256: and 64 hex digits "
                    "(citewatch review token NAME prints it)"
                )
        for network in self.trusted_proxies:
            try:
                ipaddress.ip_network(network, strict=False)
            except ValueError:
                raise ValueError(
                    f"review.trusted_proxies: {network!r} is not an address or network"
                ) from None
        if self.proxy_user_header is not None and not self.trusted_proxies:
            raise ValueError("review.proxy_user_header needs review.trusted_proxies")
        return self

    @model_validator(mode="after")
    def _known_caps(self) -> ReviewSettings:
        known = {*get_args(ReviewRoute), "audit"}
        unknown = sorted(set(self.daily_caps) - known)
        if unknown:
            raise ValueError(f"review.daily_caps: unknown route(s) {', '.join(unknown)}")
        if any(cap < 0 for cap in self.daily_caps.values()):
            raise ValueError("review.daily_caps must not be negative")
        return self
