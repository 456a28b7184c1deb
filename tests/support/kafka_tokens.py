"""An OAUTHBEARER token provider for the local broker's unsecured JWT validator, named in
the settings as ``tests.support.kafka_tokens:unsecured_jwt`` the way a deployment names
AWS's signer or its own module (docs/operations.md, Secured Kafka)."""

from __future__ import annotations

import base64
import json
import time

__all__ = ["HEADER", "unsecured_jwt"]


def _part(value: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


HEADER = _part({"alg": "none"})
"""The token's first part, the same in every token: a log line holding it holds a token."""


def unsecured_jwt(subject: str, lifetime_seconds: str = "3600") -> tuple[str, int]:
    """An unsigned JWT whose ``sub`` is ``subject`` and its expiry in milliseconds, as
    aws_msk_iam_sasl_signer's generate_auth_token returns them."""
    now = int(time.time())
    expires = now + int(lifetime_seconds)
    payload = _part({"sub": subject, "iat": now, "exp": expires, "scope": "kafka"})
    return f"{HEADER}.{payload}.", expires * 1000
