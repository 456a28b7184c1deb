"""The reviewers' page served by waitress on a free local port, for the page tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from waitress.server import create_server

from sidecar.review.store import ReviewStore
from sidecar.review.web import create_app

__all__ = ["serve_page"]


@contextmanager
def serve_page(store: ReviewStore, *, token: str | None = None) -> Iterator[str]:
    """Serve the page over ``store``; yields its base URL."""
    server = create_server(create_app(store, token=token), host="127.0.0.1", port=0, threads=2)
    closing = threading.Event()

    def run() -> None:
        try:
            server.run()
        except OSError:
            # Closing the listening socket from this thread can wake the loop on a closed
            # descriptor; only then is the error expected.
            if not closing.is_set():
                raise

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"  # type: ignore[union-attr]
    finally:
        closing.set()
        server.close()
        thread.join(5)
