"""The metrics endpoint: /metrics, /healthz and /readyz, served by uvicorn in a daemon thread.

uvicorn (HTTP/1.1 by h11, one asyncio loop: an idle client costs a descriptor, not a thread)
serves the app of :mod:`exporters._asgi`, with the limits of :mod:`exporters._guard`: a
deadline for receiving each request, a deadline for each response, a cap on open connections
(the oldest idle one makes room for a new one), a listen backlog, and a bound on header bytes.

The cap is lowered below the process's descriptor limit (``RLIMIT_NOFILE``), keeping room
for the rest of the process (Kafka and judge connections, files), so the endpoint's own
connections never exhaust the descriptors it needs to accept a probe. The loop accepts at most
an eighth of the cap per turn (the kernel queues the rest, up to the backlog): a connection
accepted in one burst cannot be pushed out by the others of the same burst before its
request has been read.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading

import uvicorn
from prometheus_client import CollectorRegistry

from exporters._asgi import Check, make_app
from exporters._guard import ConnectionGuard, GuardedH11Protocol, Limits

__all__ = ["Limits", "MetricsServer", "serve"]

logger = logging.getLogger(__name__)

_RESERVED_DESCRIPTORS = 64
"""Descriptors left to the rest of the process beyond the endpoint's connections."""
_MIN_CONNECTIONS = 8


def _open_descriptors() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def connection_cap(limits: Limits) -> int:
    """``limits.max_connections``, lowered to fit the descriptors the process may still open."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return limits.max_connections
    if soft == resource.RLIM_INFINITY:
        return limits.max_connections
    # Accepted sockets hold descriptors for about four turns of the loop before the
    # connections they push out are closed: four bursts of an eighth of the cap each.
    room = (soft - _open_descriptors() - _RESERVED_DESCRIPTORS) * 2 // 3
    cap = max(_MIN_CONNECTIONS, min(limits.max_connections, room))
    if cap < limits.max_connections:
        logger.warning("metrics endpoint: %d connections at most (descriptor limit %d)", cap, soft)
    return cap


class MetricsServer:
    """A running metrics endpoint; ``port`` is the bound port, ``close()`` stops it."""

    def __init__(
        self, server: uvicorn.Server, thread: threading.Thread, port: int, guard: ConnectionGuard
    ) -> None:
        self._server = server
        self._thread = thread
        self._port = port
        self.guard = guard

    @property
    def port(self) -> int:
        """The port actually bound (useful when 0 asked for a free one)."""
        return self._port

    def close(self) -> None:
        """Stop serving and release the port; safe to call twice."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        logger.info("metrics endpoint on port %d closed", self.port)


def _bind(address: str, port: int, backlog: int) -> socket.socket:
    family, kind, proto, _, where = socket.getaddrinfo(
        address, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(backlog)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def _always() -> bool:
    return True


def serve(
    registry: CollectorRegistry,
    *,
    address: str,
    port: int,
    ready: Check,
    live: Check = _always,
    limits: Limits | None = None,
) -> MetricsServer:
    """Serve /metrics, /healthz and /readyz on ``address:port`` in a daemon thread.

    /healthz answers 200 while ``live()`` is true (the worker is not stuck), 503 otherwise;
    /readyz answers 200 when ``ready()`` is true and 503 otherwise. Port 0 picks a free port
    (see ``MetricsServer.port``).

    Raises:
        OSError: if the address cannot be bound, or the server does not start.
    """
    limits = limits or Limits()
    sock = _bind(address, port, limits.backlog)
    bound_port = int(sock.getsockname()[1])
    cap = connection_cap(limits)
    guard = ConnectionGuard(limits, cap)
    burst = max(4, min(limits.backlog, cap // 8))
    protocol = type("MetricsProtocol", (GuardedH11Protocol,), {"guard": guard})
    config = uvicorn.Config(
        make_app(registry, ready=ready, live=live),
        http=protocol,
        ws="none",
        lifespan="off",
        interface="asgi3",
        loop="asyncio",
        log_config=None,
        access_log=False,
        server_header=False,
        backlog=burst,
        limit_concurrency=None,
        timeout_keep_alive=max(1, int(limits.request_timeout)),
        h11_max_incomplete_event_size=limits.max_header_bytes,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    failed: list[BaseException] = []

    def run() -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(_serve(server, sock, guard, limits.backlog))
        except BaseException as exc:  # reported to serve() if start-up failed
            failed.append(exc)
            logger.exception("metrics endpoint stopped")
        finally:
            sock.close()
            loop.close()

    thread = threading.Thread(target=run, name="metrics-http", daemon=True)
    thread.start()
    _wait_started(server, thread, failed)
    logger.info("metrics endpoint listening on %s:%d", address, bound_port)
    return MetricsServer(server, thread, bound_port, guard)


async def _serve(
    server: uvicorn.Server, sock: socket.socket, guard: ConnectionGuard, backlog: int
) -> None:
    interval = min(0.5, guard.limits.request_timeout / 4)
    loop = asyncio.get_running_loop()
    watch = loop.create_task(guard.watch(interval))
    queue = loop.create_task(_listen_when_started(server, sock, backlog))
    try:
        await server.serve(sockets=[sock])
    finally:
        watch.cancel()
        queue.cancel()


async def _listen_when_started(server: uvicorn.Server, sock: socket.socket, backlog: int) -> None:
    """asyncio listens with the accept burst as backlog; give the kernel queue its size."""
    while not server.started:
        await asyncio.sleep(0.01)
    sock.listen(backlog)


def _wait_started(
    server: uvicorn.Server,
    thread: threading.Thread,
    failed: list[BaseException],
    timeout: float = 10.0,
) -> None:
    pause = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if server.started or not thread.is_alive():
            break
        pause.wait(0.01)
    if not server.started:
        server.should_exit = True
        cause = failed[0] if failed else None
        raise OSError(f"metrics endpoint did not start: {cause!r}") from cause
