"""The ASGI app of the metrics endpoint: /metrics, /healthz and /readyz.

/metrics speaks OpenMetrics to a scraper that asks for it (Prometheus does), so the trace_id
exemplars reach Prometheus; other clients get the classic text format. The exposition is
rendered off the event loop, two at a time, so a crowd of scrapers never stands between a
probe and its answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

__all__ = ["ASGIApp", "Check", "make_app"]

logger = logging.getLogger(__name__)

_RENDERS_AT_ONCE = 2

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Check = Callable[[], bool]
"""A health or readiness check: True when healthy (or ready)."""


async def _plain(
    send: Send, status: int, body: bytes, content_type: bytes = b"text/plain; charset=utf-8"
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _accept(scope: Scope) -> str:
    return ",".join(
        value.decode("latin-1")
        for name, value in scope.get("headers", ())
        if name.lower() == b"accept"
    )


def _passes(check: Check, what: str) -> bool:
    try:
        return bool(check())
    except Exception:  # a faulty check reports failure, never a 500 or a dead server
        logger.exception("%s check raised", what)
        return False


def make_app(registry: CollectorRegistry, *, ready: Check, live: Check) -> ASGIApp:
    """The endpoint's app. /healthz answers 200 while ``live()`` is true and 503 otherwise,
    /readyz the same with ``ready()``; /metrics (and /) the registry; anything else 404."""
    renders: list[asyncio.Semaphore] = []  # made on the serving loop, at the first scrape

    async def metrics(scope: Scope, send: Send) -> None:
        encoder, content_type = choose_encoder(_accept(scope))
        if not renders:
            renders.append(asyncio.Semaphore(_RENDERS_AT_ONCE))
        async with renders[0]:
            body = await asyncio.to_thread(encoder, registry)
        await _plain(send, 200, body, content_type.encode("latin-1"))

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
            await metrics(scope, send)
        else:
            await _plain(send, 404, b"not found\n")

    return app
