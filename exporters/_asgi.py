"""The ASGI app of the metrics endpoint: /metrics, /healthz and /readyz.

/metrics is prometheus_client's ASGI app: OpenMetrics to a scraper that asks for it
(Prometheus does), so the trace_id exemplars reach Prometheus; other clients get the classic
text format.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from prometheus_client import CollectorRegistry, make_asgi_app

__all__ = ["ASGIApp", "Check", "make_app"]

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Check = Callable[[], bool]
"""A health or readiness check: True when healthy (or ready)."""


async def _plain(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode("ascii"))]})
    await send({"type": "http.response.body", "body": body})


def _passes(check: Check, what: str) -> bool:
    try:
        return bool(check())
    except Exception:  # a faulty check reports failure, never a 500 or a dead server
        logger.exception("%s check raised", what)
        return False


def make_app(registry: CollectorRegistry, *, ready: Check, live: Check) -> ASGIApp:
    """The endpoint's app. /healthz answers 200 while ``live()`` is true and 503 otherwise,
    /readyz the same with ``ready()``; /metrics (and /) the registry; anything else 404."""
    metrics_app: ASGIApp = make_asgi_app(registry)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope.get("path", "")
        if path == "/healthz":
            if _passes(live, "liveness"):
                await _plain(send, 200, b"ok\n")
            else:
                await _plain(send, 503, b"worker stuck\n")
        elif path == "/readyz":
            if _passes(ready, "readiness"):
                await _plain(send, 200, b"ready\n")
            else:
                await _plain(send, 503, b"not ready\n")
        elif path in ("/metrics", "/"):
            await metrics_app(scope, receive, send)
        else:
            await _plain(send, 404, b"not found\n")

    return app
