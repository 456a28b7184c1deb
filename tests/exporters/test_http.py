"""The metrics endpoint, served over real HTTP on a free port."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from exporters.http import MetricsServer, serve
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
