"""The metrics endpoint: /metrics, /healthz and /readyz in a daemon thread.

/metrics speaks OpenMetrics to a scraper that asks for it (Prometheus does), so the trace_id
exemplars reach Prometheus; other clients get the classic text format.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

__all__ = ["MetricsServer", "serve"]

logger = logging.getLogger(__name__)


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    """One thread per request, so a slow scrape never blocks a health probe."""

    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    """Logs requests at DEBUG through logging instead of writing to stderr."""

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("metrics http: %s", format % args)


def _plain(start_response: StartResponse, status: str, body: bytes) -> Iterable[bytes]:
    start_response(
        status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
    )
    return [body]


def _app(registry: CollectorRegistry, ready: Callable[[], bool]) -> WSGIApplication:
    metrics_app = make_wsgi_app(registry)

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            return _plain(start_response, "200 OK", b"ok\n")
        if path == "/readyz":
            try:
                is_ready = ready()
            except Exception:
                logger.exception("readiness check raised")
                is_ready = False
            if is_ready:
                return _plain(start_response, "200 OK", b"ready\n")
            return _plain(start_response, "503 Service Unavailable", b"not ready\n")
        if path in ("/metrics", "/"):
            body: Iterable[bytes] = metrics_app(environ, start_response)
            return body
        return _plain(start_response, "404 Not Found", b"not found\n")

    return app


class MetricsServer:
    """A running metrics endpoint; ``port`` is the bound port, ``close()`` stops it."""

    def __init__(self, server: WSGIServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread

    @property
    def port(self) -> int:
        """The port actually bound (useful when 0 asked for a free one)."""
        return int(self._server.server_address[1])

    def close(self) -> None:
        """Stop serving and release the port; safe to call twice."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()
        logger.info("metrics endpoint on port %d closed", self.port)


def serve(
    registry: CollectorRegistry,
    *,
    address: str,
    port: int,
    ready: Callable[[], bool],
) -> MetricsServer:
    """Serve /metrics, /healthz and /readyz on ``address:port`` in a daemon thread.

    /healthz answers 200 while the process is alive; /readyz answers 200 when ``ready()``
    is true and 503 otherwise. Port 0 picks a free port (see ``MetricsServer.port``).

    Raises:
        OSError: if the address cannot be bound.
    """
    server = make_server(
        address, port, _app(registry, ready), _ThreadingWSGIServer, handler_class=_QuietHandler
    )
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="metrics-http", daemon=True
    )
    thread.start()
    metrics_server = MetricsServer(server, thread)
    logger.info("metrics endpoint listening on %s:%d", address, metrics_server.port)
    return metrics_server
