"""The metrics endpoint, served over real HTTP on a free port."""

from __future__ import annotations

import resource
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from exporters.http import Limits, MetricsServer, connection_cap, serve
from exporters.prometheus import CitewatchMetrics
from tests.exporters._records import TRACE_ID, claim, record

OPENMETRICS = "application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5"


class _Ready:
    def __init__(self) -> None:
        self.value = False

    def __call__(self) -> bool:
        return self.value


@pytest.fixture
def served() -> Iterator[tuple[MetricsServer, CitewatchMetrics, _Ready]]:
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, apps=["shop"])
    ready = _Ready()
    server = serve(registry, address="127.0.0.1", port=0, ready=ready)
    try:
        yield server, metrics, ready
    finally:
        server.close()


def _get(port: int, path: str, accept: str | None = None) -> tuple[int, str, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if accept:
        request.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read().decode()


def test_metrics_in_text_format(served: tuple[MetricsServer, CitewatchMetrics, _Ready]) -> None:
    server, metrics, _ = served
    assert server.port > 0
    metrics.trace_duplicate("shop")
    status, content_type, body = _get(server.port, "/metrics")
    assert status == 200
    assert content_type.startswith("text/plain")
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }
    assert samples[("citewatch_traces_total", (("app", "shop"), ("outcome", "duplicate")))] == 1


def test_metrics_in_openmetrics_with_exemplar(
    served: tuple[MetricsServer, CitewatchMetrics, _Ready],
) -> None:
    server, metrics, _ = served
    metrics.observe_record(
        record(claims=[claim("c1", importance=3, status="uncited", critical_reason="uncited")])
    )
    status, content_type, body = _get(server.port, "/metrics", accept=OPENMETRICS)
    assert status == 200
    assert content_type.startswith("application/openmetrics-text")
    assert body.endswith("# EOF\n")
    assert (
        'citewatch_critical_unsupported_claims_total{app="shop",reason="uncited"} 1.0 '
        f'# {{trace_id="{TRACE_ID}"}} 1.0'
    ) in body


def test_health_and_readiness(served: tuple[MetricsServer, CitewatchMetrics, _Ready]) -> None:
    server, _, ready = served
    assert _get(server.port, "/healthz")[0] == 200
    assert _get(server.port, "/readyz")[0] == 503
    ready.value = True
    assert _get(server.port, "/readyz")[0] == 200
    assert _get(server.port, "/nothing-here")[0] == 404


def test_readiness_check_that_raises_is_not_ready() -> None:
    def broken() -> bool:
        raise RuntimeError("boom")

    server = serve(CollectorRegistry(), address="127.0.0.1", port=0, ready=broken)
    try:
        assert _get(server.port, "/readyz")[0] == 503
        assert _get(server.port, "/healthz")[0] == 200
    finally:
        server.close()


def test_close_releases_the_port() -> None:
    server = serve(CollectorRegistry(), address="127.0.0.1", port=0, ready=lambda: True)
    port = server.port
    server.close()
    server.close()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)


def _raw_get(port: int, path: str, timeout: float = 3.0) -> bytes:
    """One request on a fresh socket; the whole response as bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """True once the server closed ``sock`` (EOF or reset) within ``within`` seconds; what
    it still sends before that is read and dropped."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if sock.recv(65536) == b"":
                return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
    return False


def test_liveness_answers_503_while_the_worker_is_stuck() -> None:
    live = _Ready()
    server = serve(CollectorRegistry(), address="127.0.0.1", port=0, ready=lambda: True, live=live)
    try:
        assert _get(server.port, "/healthz")[:1] == (503,)
        live.value = True
        assert _get(server.port, "/healthz")[0] == 200
        assert _get(server.port, "/readyz")[0] == 200
    finally:
        server.close()


def test_a_client_trickling_its_request_is_closed_at_the_request_timeout() -> None:
    server = serve(
        CollectorRegistry(),
        address="127.0.0.1",
        port=0,
        ready=lambda: True,
        limits=Limits(request_timeout=1.0),
    )
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            started = time.monotonic()
            closed = False
            for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                if _closed_by_server(sock, 0.1):
                    closed = True
                    break
            assert closed
            assert time.monotonic() - started < 4.0  # one byte per 0.1 s: 20 s if never cut
        assert server.guard.closed_slow >= 1
    finally:
        server.close()


def test_an_idle_keep_alive_connection_is_closed_at_the_request_timeout() -> None:
    server = serve(
        CollectorRegistry(),
        address="127.0.0.1",
        port=0,
        ready=lambda: True,
        limits=Limits(request_timeout=1.0),
    )
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            assert _closed_by_server(sock, 4.0)
    finally:
        server.close()


def test_beyond_the_cap_idle_connections_make_room_for_a_probe() -> None:
    server = serve(
        CollectorRegistry(),
        address="127.0.0.1",
        port=0,
        ready=lambda: True,
        limits=Limits(max_connections=8, request_timeout=60.0),
    )
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(30)]
    try:
        time.sleep(0.3)
        assert len(server.guard) <= 8
        assert _raw_get(server.port, "/healthz").startswith(b"HTTP/1.1 200")
        assert server.guard.evicted >= 22
        # The oldest idle ones were closed first.
        assert _closed_by_server(idle[0], 1.0)
        assert not _closed_by_server(idle[-1], 0.2)
    finally:
        for sock in idle:
            sock.close()
        server.close()


def test_oversized_headers_are_refused() -> None:
    server = serve(
        CollectorRegistry(),
        address="127.0.0.1",
        port=0,
        ready=lambda: True,
        limits=Limits(max_header_bytes=1024),
    )
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            # Headers still incomplete after 4 KiB: refused before the server holds more.
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 4096)
            assert sock.recv(4096).startswith(b"HTTP/1.1 4")
    finally:
        server.close()


def test_the_descriptor_limit_lowers_the_connection_cap() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limits = Limits(max_connections=10_000, backlog=128)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 1024), hard))
        cap = connection_cap(limits)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert 8 <= cap <= (1024 - 64) * 4 // 5
