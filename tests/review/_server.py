"""The reviewers' page served on a free local port, for the page tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sidecar.review.server import ServerLimits, create_review_server
from sidecar.review.store import ReviewStore
from sidecar.review.web import create_app

__all__ = ["serve_app", "serve_page"]


@contextmanager
def serve_app(app: Any, *, limits: ServerLimits | None = None) -> Iterator[str]:
    """Serve the WSGI ``app`` as `citewatch review serve` does; yields its base URL."""
    server = create_review_server(app, host="127.0.0.1", port=0, limits=limits)
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
        yield f"http://127.0.0.1:{server.port}"
    finally:
        closing.set()
        server.close()
        thread.join(5)


@contextmanager
def serve_page(store: ReviewStore, **options: Any) -> Iterator[str]:
    """Serve the page over ``store`` (``options`` go to :func:`create_app`)."""
    with serve_app(create_app(store, **options)) as url:
        yield url
