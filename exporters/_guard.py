"""Connection limits of the metrics endpoint, on top of uvicorn's HTTP/1.1 protocol (h11).

uvicorn bounds neither how long a client may take to send its request (its keep-alive timer
restarts on every byte, so a client sending one byte at a time is never dropped) nor, without
answering 503 to everyone, how many connections are open. Probes must be answered while
either goes on, so every connection is watched here:

- a connection waiting for a request (new, or kept alive after a response) is closed once it
  has waited ``request_timeout`` seconds, however many bytes of a request trickled in;
- a request whose response is not taken by the client within ``response_timeout`` seconds is
  aborted;
- beyond ``max_connections`` open connections, each new one makes the oldest connection that
  is waiting for a request (else the oldest of all) close at once. A probe sends its request
  as soon as it connects, so idle clients cannot crowd it out.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["ConnectionGuard", "GuardedH11Protocol", "Limits"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one client may hold of the metrics endpoint."""

    max_connections: int = 256
    """Open connections; beyond it the oldest idle one is closed for each new one."""
    request_timeout: float = 5.0
    """Seconds a connection may take to send a complete request (or stay idle between two)."""
    response_timeout: float = 30.0
    """Seconds a request may take to be answered and its response taken by the client."""
    backlog: int = 1024
    """Connections the kernel queues before they are accepted."""
    max_header_bytes: int = 16_384
    """Bytes of a request's line and headers."""


class ConnectionGuard:
    """The open connections of one server, oldest first; enforces :class:`Limits`."""

    def __init__(self, limits: Limits, max_connections: int) -> None:
        self.limits = limits
        self.max_connections = max_connections
        self._open: dict[GuardedH11Protocol, None] = {}
        self.closed_slow = 0
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._open)

    def admit(self, connection: GuardedH11Protocol) -> None:
        """Register a new connection; close the oldest idle one beyond the cap."""
        self._open[connection] = None
        if len(self._open) <= self.max_connections:
            return
        victim = next((c for c in self._open if c is not connection and c.waiting), None)
        if victim is None:
            victim = next(c for c in self._open if c is not connection)
        self.evicted += 1
        self.forget(victim)
        victim.transport.abort()

    def forget(self, connection: GuardedH11Protocol) -> None:
        """A connection closed."""
        self._open.pop(connection, None)

    def sweep(self, now: float) -> None:
        """Close connections past their request or response timeout."""
        late: list[GuardedH11Protocol] = []
        for connection in self._open:
            bound = (
                self.limits.request_timeout if connection.waiting else self.limits.response_timeout
            )
            if now - connection.since >= bound:
                late.append(connection)
        for connection in late:
            self.closed_slow += 1
            self.forget(connection)
            connection.transport.abort()

    async def watch(self, interval: float) -> None:
        """Sweep every ``interval`` seconds until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(interval)
            self.sweep(loop.time())


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, registered with a :class:`ConnectionGuard` (set per server
    on a subclass by :func:`exporters.http.serve`)."""

    guard: ConnectionGuard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.since = self.loop.time()

    @property
    def waiting(self) -> bool:
        """No request in progress: the connection waits for one."""
        return self.cycle is None or self.cycle.response_complete

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.since = self.loop.time()
        self.guard.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.forget(self)
        super().connection_lost(exc)

    def handle_events(self) -> None:
        waiting = self.waiting
        super().handle_events()
        if waiting and not self.waiting:
            self.since = self.loop.time()  # a request arrived: its response is timed now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.waiting:
            self.since = self.loop.time()  # kept alive: the next request is timed from now
