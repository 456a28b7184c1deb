"""The page's server stays up under idle and slow connections (no sign-in needed to hold
them, so anyone who can reach the port could otherwise take the page down)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from sidecar.review.server import ServerLimits
from sidecar.review.store import ReviewStore
from sidecar.review.web import create_app
from tests.review._server import serve_app


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ReviewStore]:
    with ReviewStore(tmp_path / "review.sqlite") as opened:
        yield opened


def _idle_sockets(stack: ExitStack, url: str, count: int) -> list[socket.socket]:
    address = urlsplit(url)
    out = []
    for _ in range(count):
        sock = stack.enter_context(socket.create_connection((address.hostname, address.port)))
        out.append(sock)
    return out


def _healthz(url: str, timeout: float) -> int | None:
    try:
        return httpx.get(f"{url}/healthz", timeout=timeout).status_code
    except httpx.TimeoutException:
        return None


def test_healthz_answers_under_200_idle_sockets(store: ReviewStore) -> None:
    with serve_app(create_app(store)) as url, ExitStack() as stack:
        _idle_sockets(stack, url, 200)
        time.sleep(0.5)  # let the server accept them all
        assert _healthz(url, timeout=5) == 200


def test_waitress_defaults_would_not(store: ReviewStore) -> None:
    """The same 200 sockets against waitress's default limit of 100 connections: the page
    does not answer, which is what the test above guards against."""
    limits = ServerLimits(connection_limit=100, idle_timeout=120.0)
    with serve_app(create_app(store), limits=limits) as url, ExitStack() as stack:
        _idle_sockets(stack, url, 200)
        time.sleep(0.5)
        assert _healthz(url, timeout=2) is None


def _closed_by_server(sock: socket.socket, *, drip: bytes, within: float) -> bool:
    """Send ``drip`` a byte every 0.3 s until the server closes the socket or ``within``
    seconds pass."""
    sock.settimeout(0.3)
    deadline = time.monotonic() + within
    for byte in drip:
        if time.monotonic() > deadline:
            return False
        try:
            sock.sendall(bytes([byte]))
            if sock.recv(1) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


@pytest.mark.parametrize(
    ("read_deadline", "dropped"),
    [
        pytest.param(2.0, True, id="read-deadline"),
        # waitress alone: data keeps arriving, so the channel is never idle.
        pytest.param(600.0, False, id="no-deadline"),
    ],
)
def test_a_request_dripped_a_byte_at_a_time_is_dropped_at_the_read_deadline(
    store: ReviewStore, read_deadline: float, dropped: bool
) -> None:
    limits = ServerLimits(read_deadline=read_deadline, idle_timeout=3.0)
    drip = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 200
    with serve_app(create_app(store), limits=limits) as url, ExitStack() as stack:
        [slow] = _idle_sockets(stack, url, 1)
        assert _closed_by_server(slow, drip=drip, within=5.0) is dropped
        assert _healthz(url, timeout=5) == 200


def test_an_idle_connection_is_closed_after_the_idle_timeout(store: ReviewStore) -> None:
    limits = ServerLimits(idle_timeout=1.0)
    with serve_app(create_app(store), limits=limits) as url, ExitStack() as stack:
        [idle] = _idle_sockets(stack, url, 1)
        idle.settimeout(8.0)
        assert idle.recv(1) == b""
