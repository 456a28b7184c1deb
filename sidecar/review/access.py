"""Who may reach the reviewers' page, and who a request comes from.

The page answers only to the host names it is served under (no DNS rebinding), and knows
each reviewer by one of:

- ``proxy``: the user header of an authenticating reverse proxy (oauth2-proxy's
  X-Forwarded-User, X-Auth-Request-User), believed only from the configured proxy addresses;
- ``tokens``: a token per reviewer, kept in the settings as its SHA-256 only;
- ``open``: a free-form name (and the shared token, when one is set), for one reviewer per
  item on loopback only, where no one else can reach the page.

:func:`access_from_settings` refuses, at start-up, a page reachable beyond loopback without
per-reviewer identity, two reviewers per item without it, and a weak shared token.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from sidecar.config.review import ReviewSettings

__all__ = [
    "Access",
    "AccessError",
    "IdentityMode",
    "access_from_settings",
    "hash_token",
    "is_loopback",
    "weak_token",
]

MIN_TOKEN_LENGTH = 20
MIN_TOKEN_BITS = 80.0
"""A token's floor: its length times the Shannon entropy of its characters, in bits."""


IdentityMode = Literal["proxy", "tokens", "open"]
"""How the page knows who a request comes from (see the module docstring)."""


class AccessError(ValueError):
    """Settings under which the page must not be served."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is a loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def hash_token(token: str) -> str:
    """The form a token is kept in (``sha256:`` and the hex digest)."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def weak_token(token: str) -> str | None:
    """Why ``token`` is too weak to guard the page, or None when it is strong enough."""
    if len(token) < MIN_TOKEN_LENGTH:
        return f"shorter than {MIN_TOKEN_LENGTH} characters"
    if token.strip() != token or not token.isprintable():
        return "it has spaces at an end or unprintable characters"
    counts = Counter(token)
    per_char = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    if per_char * len(token) < MIN_TOKEN_BITS:
        return f"too repetitive (under {MIN_TOKEN_BITS:.0f} bits)"
    return None


def _host_name(host: str) -> str:
    """The name part of a Host header value (no port), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@dataclass(frozen=True)
class Access:
    """The page's access policy (see the module docstring)."""

    mode: IdentityMode = "open"
    hosts: frozenset[str] = frozenset({"127.0.0.1", "localhost", "[::1]"})
    shared_token: str | None = None
    reviewer_tokens: Mapping[str, str] = field(default_factory=dict)
    adjudicators: frozenset[str] = frozenset()
    proxy_user_header: str | None = None
    trusted_proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    def host_allowed(self, host: str | None) -> bool:
        """Whether a request naming ``host`` (its Host header) is for this page."""
        return host is not None and _host_name(host) in self.hosts

    def from_proxy(self, remote_addr: str | None) -> bool:
        """Whether ``remote_addr`` is one of the trusted proxies."""
        if self.proxy_user_header is None or not remote_addr:
            return False
        try:
            address = ipaddress.ip_address(remote_addr)
        except ValueError:
            return False
        return any(address in network for network in self.trusted_proxies)

    def reviewer_of_token(self, name: str, token: str) -> bool:
        """Whether ``token`` is ``name``'s own token."""
        expected = self.reviewer_tokens.get(name)
        given = hash_token(token)
        # Compare against a digest either way, so an unknown name takes as long.
        return hmac.compare_digest(given, expected or hash_token("")) and expected is not None

    def is_adjudicator(self, reviewer: str) -> bool:
        return reviewer in self.adjudicators


def _hosts(review: ReviewSettings, host: str) -> frozenset[str]:
    names = {"localhost", "127.0.0.1", "[::1]"}
    bound = host.strip("[]").lower()
    try:
        address = ipaddress.ip_address(bound)
    except ValueError:
        names.add(bound)
    else:
        if not address.is_unspecified:
            names.add(f"[{bound}]" if address.version == 6 else bound)
    names.update(name.lower() for name in review.public_names)
    return frozenset(names)


def access_from_settings(review: ReviewSettings) -> Access:
    """The policy of ``review``; raises :class:`AccessError` when it must not be served."""
    shared = review.token.get_secret_value() if review.token is not None else None
    if shared is not None:
        reason = weak_token(shared)
        if reason is not None:
            raise AccessError(
                f"review.token is too weak ({reason}): use citewatch review token to make one"
            )
    exposed = not is_loopback(review.host) or bool(review.public_names)
    mode: IdentityMode
    if review.proxy_user_header is not None:
        mode = "proxy"
    elif review.reviewer_tokens:
        mode = "tokens"
    else:
        mode = "open"
        if exposed:
            raise AccessError(
                f"the page is reachable beyond loopback (review.host {review.host}"
                + (", review.public_names" if review.public_names else "")
                + "): set review.reviewer_tokens or review.proxy_user_header so that each "
                "reviewer is known"
            )
        if review.reviewers_per_item > 1:
            raise AccessError(
                "review.reviewers_per_item is 2: set review.reviewer_tokens or "
                "review.proxy_user_header, so that one person cannot label as two reviewers"
            )
    unknown = sorted(set(review.adjudicators) - set(review.reviewer_tokens))
    if mode == "tokens" and unknown:
        raise AccessError(
            f"review.adjudicators: {', '.join(unknown)} not in review.reviewer_tokens, so "
            "they could never sign in"
        )
    return Access(
        mode=mode,
        hosts=_hosts(review, review.host),
        shared_token=shared,
        reviewer_tokens=dict(review.reviewer_tokens),
        adjudicators=frozenset(review.adjudicators),
        proxy_user_header=review.proxy_user_header,
        trusted_proxies=tuple(
            ipaddress.ip_network(network, strict=False) for network in review.trusted_proxies
        ),
    )
