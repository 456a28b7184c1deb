"""The page's access policy from the settings: what serve refuses at start-up, and which
host names it answers to."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from sidecar.config.review import ReviewSettings
from sidecar.review.access import AccessError, access_from_settings, hash_token, weak_token

STRONG = "Zq8-vT3kLw9xRb2mNc7dYf4h"


@pytest.mark.parametrize(
    ("token", "why"),
    [
        pytest.param(" ", "shorter than 20", id="one-space"),
        pytest.param("a", "shorter than 20", id="one-letter"),
        pytest.param("a" * 40, "too repetitive", id="one-letter-repeated"),
        pytest.param("abababababababababababab", "too repetitive", id="two-letters"),
        pytest.param(" " + STRONG, "spaces at an end", id="leading-space"),
    ],
)
def test_weak_tokens_are_refused_at_start_up(token: str, why: str) -> None:
    assert why in (weak_token(token) or "")
    with pytest.raises(AccessError, match="review.token is too weak"):
        access_from_settings(ReviewSettings(token=token))


def test_a_strong_token_is_accepted() -> None:
    assert weak_token(STRONG) is None
    assert access_from_settings(ReviewSettings(token=STRONG)).shared_token == STRONG


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        pytest.param(
            {"host": "0.0.0.0", "token": STRONG},
            "reachable beyond loopback (review.host 0.0.0.0)",
            id="exposed-with-a-shared-token-only",
        ),
        pytest.param(
            {"public_names": ["review.example.com"]},
            "review.public_names",
            id="public-name-without-identity",
        ),
        pytest.param(
            {"reviewers_per_item": 2},
            "one person cannot label as two reviewers",
            id="two-reviewers-by-free-form-name",
        ),
        pytest.param(
            {"reviewer_tokens": {"ann": hash_token(STRONG)}, "adjudicators": ["ann", "lee"]},
            "review.adjudicators: lee not in review.reviewer_tokens",
            id="adjudicator-without-a-token",
        ),
    ],
)
def test_pages_without_per_reviewer_identity_are_refused(
    settings: dict[str, object], message: str
) -> None:
    with pytest.raises(AccessError, match=re.escape(message)):
        access_from_settings(ReviewSettings.model_validate(settings))


def test_exposed_with_reviewer_tokens_or_a_proxy_is_served() -> None:
    tokens = ReviewSettings(host="0.0.0.0", reviewer_tokens={"ann": hash_token(STRONG)})
    assert access_from_settings(tokens).mode == "tokens"
    proxy = ReviewSettings(
        host="0.0.0.0", proxy_user_header="X-Forwarded-User", trusted_proxies=["10.1.0.0/16"]
    )
    assert access_from_settings(proxy).mode == "proxy"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        pytest.param(
            {"reviewer_tokens": {"ann": STRONG}}, "must be sha256: and 64 hex", id="plain-token"
        ),
        pytest.param(
            {"proxy_user_header": "X-Forwarded-User"},
            "needs review.trusted_proxies",
            id="proxy-header-trusted-from-anywhere",
        ),
        pytest.param({"trusted_proxies": ["proxy.local"]}, "not an address", id="proxy-name"),
    ],
)
def test_bad_identity_settings_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ReviewSettings.model_validate(settings)


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        pytest.param("127.0.0.1:8470", True, id="loopback-address"),
        pytest.param("localhost:8470", True, id="localhost"),
        pytest.param("LOCALHOST", True, id="localhost-upper-case"),
        pytest.param("[::1]:8470", True, id="ipv6-loopback"),
        pytest.param("review.example.com", True, id="public-name"),
        pytest.param("10.0.0.5:8470", True, id="bound-address"),
        pytest.param("evil.test:8470", False, id="rebound-name"),
        pytest.param("review.example.com.evil.test", False, id="suffix"),
        pytest.param("", False, id="empty"),
        pytest.param(None, False, id="no-host-header"),
    ],
)
def test_the_host_allow_list(host: str | None, allowed: bool) -> None:
    access = access_from_settings(
        ReviewSettings(
            host="10.0.0.5",
            public_names=["review.example.com"],
            reviewer_tokens={"ann": hash_token(STRONG)},
        )
    )
    assert access.host_allowed(host) is allowed


def test_a_reviewer_signs_in_with_their_own_token_only() -> None:
    other = "Pp4-mQ7rTz2wXc9vBn5kLs8d"
    access = access_from_settings(
        ReviewSettings(reviewer_tokens={"ann": hash_token(STRONG), "bob": hash_token(other)})
    )
    assert access.reviewer_of_token("ann", STRONG)
    assert not access.reviewer_of_token("ann", other)
    assert not access.reviewer_of_token("carol", STRONG)
    assert not access.reviewer_of_token("ann", "")
