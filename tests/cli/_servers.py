"""A judge at the wrong address: a local HTTP server that answers every request 404."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["not_found_server"]


class _NotFound(BaseHTTPRequestHandler):
    """Every path is 404, with a body like an OpenAI-compatible server's."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
        body = b'{"error": {"message": "not found"}}'
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


@contextmanager
def not_found_server(path: str) -> Iterator[str]:
    """The server's base URL ending in ``path``, for as long as the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
