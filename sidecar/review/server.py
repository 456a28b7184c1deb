"""The reviewers' page's HTTP server: waitress, with limits that hold against idle and slow
clients.

waitress's defaults let 100 idle connections take a page down for two minutes (100
connections, 120 s before an idle channel closes, a sweep every 30 s), and a client that
sends one header byte every few seconds is never idle. Here the connection limit is larger
(sockets are polled, not selected, so the limit is not bound by ``FD_SETSIZE``), idle
connections close after :attr:`ServerLimits.idle_timeout`, and a request must arrive whole
within :attr:`ServerLimits.read_deadline` of its first byte: waitress has no such setting,
so :class:`ReviewServer` adds it to its channel sweep.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer

__all__ = ["ReviewServer", "ServerLimits", "create_review_server"]


@dataclass(frozen=True)
class ServerLimits:
    """How many connections the page holds, and how long a client may keep one."""

    threads: int = 4
    """Requests served at once (idle and slow connections hold no thread)."""
    connection_limit: int = 1000
    """Open connections; beyond it the server stops accepting until some close."""
    idle_timeout: float = 15.0
    """Seconds a connection with no request in flight may stay open."""
    read_deadline: float = 10.0
    """Seconds from a request's first byte to its last; a slower request is dropped."""
    sweep_interval: float = 1.0
    """Seconds between sweeps that close idle and overdue connections."""
    max_header_bytes: int = 16 * 1024
    """Largest request head accepted."""


class _DeadlineChannel(HTTPChannel):
    """An HTTP channel that remembers when the request it is reading began."""

    request_started = 0.0

    def received(self, data: bytes) -> bool:
        if data and self.request is None:
            self.request_started = time.monotonic()
        return bool(super().received(data))


class ReviewServer(TcpWSGIServer):
    """waitress's TCP server whose sweep also closes connections that are reading one
    request for longer than the read deadline."""

    channel_class = _DeadlineChannel
    read_deadline = ServerLimits.read_deadline

    @property
    def port(self) -> int:
        """The port bound (the one picked, when 0 was asked for)."""
        return int(cast(Any, self).effective_port)

    def maintenance(self, now: float) -> None:
        # types-waitress says int; waitress passes time.time().
        super().maintenance(cast(int, now))
        cutoff = time.monotonic() - self.read_deadline
        channels = cast(dict[int, Any], self.active_channels)  # typed as one channel there
        for channel in list(channels.values()):
            if getattr(channel, "request", None) is not None and (
                getattr(channel, "request_started", cutoff) < cutoff
            ):
                channel.will_close = True


def create_review_server(
    app: Any, *, host: str, port: int, limits: ServerLimits | None = None
) -> ReviewServer:
    """The server of ``app`` bound to ``host``:``port`` (0 picks a port); raises OSError when
    the address cannot be bound."""
    limits = limits or ServerLimits()
    adj = Adjustments(
        host=host,
        port=port,
        threads=limits.threads,
        connection_limit=limits.connection_limit,
        channel_timeout=limits.idle_timeout,
        cleanup_interval=limits.sweep_interval,
        max_request_header_size=limits.max_header_bytes,
        asyncore_use_poll=True,
        ident="citewatch-review",
    )
    server = ReviewServer(app, adj=adj, sockinfo=cast(Any, adj.listen[0]))
    server.read_deadline = limits.read_deadline
    return server
