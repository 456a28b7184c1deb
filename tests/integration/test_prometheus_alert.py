"""A real Prometheus (and Alertmanager) with the project's rules, scraping CitewatchMetrics.

Needs Debian's ``prometheus`` package (and ``prometheus-alertmanager`` for the notification
part); skipped with a reason when the binaries are absent.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry

from exporters.http import MetricsServer, serve
from exporters.prometheus import CitewatchMetrics
from schemas import Trace
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from tests.support.servers import free_port, get_json, stop, wait_for

pytestmark = pytest.mark.integration

RULES_DIR = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
ALERT = "CiteWatchCriticalUnsupportedClaim"
DEADLINE_SECONDS = 60.0


class _Webhook:
    """A webhook receiver that keeps every Alertmanager notification it gets."""

    def __init__(self) -> None:
        received: list[dict[str, Any]] = []
        self.received = received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.append(json.loads(body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def metrics_endpoint(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[CitewatchMetrics, MetricsServer]]:
    """The metrics on a served registry: with the allow-list ``["shop"]``, or (parametrised
    indirectly with ``"defaults"``) built from the default settings as ``citewatch run``
    builds them, with no allow-list at all."""
    registry = CollectorRegistry()
    if getattr(request, "param", None) == "defaults":
        defaults = Settings().metrics
        metrics = CitewatchMetrics(
            registry=registry, apps=defaults.apps, max_apps=defaults.max_apps, version="test"
        )
    else:
        metrics = CitewatchMetrics(registry=registry, apps=["shop"], version="test")
    server = serve(registry, address="127.0.0.1", port=0, ready=lambda: True)
    try:
        yield metrics, server
    finally:
        server.close()


@pytest.fixture
def webhook() -> Iterator[_Webhook]:
    receiver = _Webhook()
    try:
        yield receiver
    finally:
        receiver.close()


@pytest.fixture
def alertmanager(tmp_path: Path, webhook: _Webhook) -> Iterator[int | None]:
    """Alertmanager on a free port routing everything to the webhook; None if not installed."""
    binary = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    if binary is None:
        yield None
        return
    port = free_port()
    config = {
        "route": {
            "receiver": "webhook",
            "group_by": ["alertname", "app", "reason"],
            "group_wait": "1s",
            "group_interval": "1s",
            "repeat_interval": "1h",
        },
        "receivers": [
            {
                "name": "webhook",
                "webhook_configs": [{"url": f"http://127.0.0.1:{webhook.port}/hook"}],
            }
        ],
    }
    (tmp_path / "alertmanager.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "am-data").mkdir()
    with (tmp_path / "alertmanager.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                binary,
                f"--config.file={tmp_path / 'alertmanager.yml'}",
                f"--storage.path={tmp_path / 'am-data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--cluster.listen-address=",
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:
        wait_for(
            "alertmanager ready",
            lambda: (
                urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=2).status == 200
            ),
            proc,
        )
        yield port
    finally:
        stop(proc)


@pytest.fixture
def prometheus(
    tmp_path: Path,
    metrics_endpoint: tuple[CitewatchMetrics, MetricsServer],
    alertmanager: int | None,
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus not installed (Debian package 'prometheus')")
    _, server = metrics_endpoint
    port = free_port()
    config: dict[str, Any] = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(RULES_DIR / "alerts.yml"), str(RULES_DIR / "recording.yml")],
        "scrape_configs": [
            {
                "job_name": "citewatch",
                "static_configs": [{"targets": [f"127.0.0.1:{server.port}"]}],
            }
        ],
    }
    if alertmanager is not None:
        config["alerting"] = {
            "alertmanagers": [{"static_configs": [{"targets": [f"127.0.0.1:{alertmanager}"]}]}]
        }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "prom-data").mkdir()
    with (tmp_path / "prometheus.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                binary,
                f"--config.file={tmp_path / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp_path / 'prom-data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--enable-feature=exemplar-storage",
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:
        wait_for(
            "prometheus ready",
            lambda: (
                urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=2).status == 200
            ),
            proc,
        )
        yield port, proc
    finally:
        stop(proc)


def _critical_trace(app: str = "shop", trace_id: str = TRACE_ID) -> Trace:
    return Trace.model_validate(
        {
            "trace_id": trace_id,
            "timestamp": datetime.now(UTC),
            "app": app,
            "generator": {"model": "gen-1", "prompt_version": "p1"},
            "question": "What is the refund window?",
            "answer": "Refunds are accepted within 30 days [S1]. No fee applies.",
            "sources": [{"id": "S1", "text": "Refunds are accepted within 30 days."}],
            "claims": [
                {"id": "c1", "text": "Refunds within 30 days.", "citation_ids": ["S1"],
                 "importance": 2},
                {"id": "c2", "text": "No fee applies.", "citation_ids": [], "importance": 3},
            ],
        }
    )  # fmt: skip


def _query(port: int, expr: str) -> list[dict[str, Any]]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    result: list[dict[str, Any]] = get_json(url)["data"]["result"]
    return result


def _firing(port: int, **labels: str) -> list[dict[str, Any]]:
    alerts = get_json(f"http://127.0.0.1:{port}/api/v1/alerts")["data"]["alerts"]
    return [
        a
        for a in alerts
        if a["labels"]["alertname"] == ALERT
        and a["state"] == "firing"
        and all(a["labels"].get(k) == v for k, v in labels.items())
    ]


def test_critical_unsupported_claim_fires_and_notifies(
    metrics_endpoint: tuple[CitewatchMetrics, MetricsServer],
    prometheus: tuple[int, subprocess.Popen[bytes]],
    alertmanager: int | None,
    webhook: _Webhook,
) -> None:
    metrics, _ = metrics_endpoint
    port, proc = prometheus
    record = asyncio.run(Pipeline(Settings()).evaluate(_critical_trace()))
    assert [c.critical_reason for c in record.claims] == [None, "uncited"]

    # An allow-listed app's zero-valued series are in Prometheus before the claim: an increase.
    wait_for(
        "the zero critical-claims series scraped",
        lambda: _query(
            port, 'citewatch_critical_unsupported_claims_total{app="shop",reason="uncited"} == 0'
        ),
        proc,
    )
    assert _firing(port) == []

    metrics.observe_record(record)

    firing = wait_for(f"{ALERT} firing", lambda: _firing(port), proc)
    assert len(firing) == 1
    labels = firing[0]["labels"]
    assert {k: labels[k] for k in ("app", "reason", "severity")} == {
        "app": "shop",
        "reason": "uncited",
        "severity": "page",
    }
    assert firing[0]["annotations"]["runbook_url"].endswith("#citewatchcriticalunsupportedclaim")

    # The trace ID travelled as an exemplar through OpenMetrics exposition.
    now = time.time()
    exemplars = get_json(
        f"http://127.0.0.1:{port}/api/v1/query_exemplars?"
        + urllib.parse.urlencode(
            {
                "query": "citewatch_critical_unsupported_claims_total",
                "start": now - 300,
                "end": now + 60,
            }
        )
    )["data"]
    trace_ids = {e["labels"]["trace_id"] for series in exemplars for e in series["exemplars"]}
    assert trace_ids == {TRACE_ID}

    if alertmanager is None:
        return
    notification = wait_for("the webhook notification", lambda: list(webhook.received), proc)[0]
    assert notification["status"] == "firing"
    assert [
        (a["labels"]["alertname"], a["labels"]["app"], a["labels"]["reason"])
        for a in notification["alerts"]
    ] == [(ALERT, "shop", "uncited")]


def _invalid_citation_trace(app: str, trace_id: str) -> Trace:
    """A trace whose one importance-3 claim cites only an ID no source has."""
    return Trace.model_validate(
        {
            "trace_id": trace_id,
            "timestamp": datetime.now(UTC),
            "app": app,
            "generator": {"model": "gen-1", "prompt_version": "p1"},
            "question": "Is there a fee?",
            "answer": "No fee applies [S9].",
            "sources": [{"id": "S1", "text": "Refunds are accepted within 30 days."}],
            "claims": [
                {"id": "c1", "text": "No fee applies.", "citation_ids": ["S9"],
                 "importance": 3},
            ],
        }
    )  # fmt: skip


@pytest.mark.parametrize("metrics_endpoint", ["defaults"], indirect=True)
def test_the_first_critical_claims_of_a_never_seen_app_page_with_default_settings(
    metrics_endpoint: tuple[CitewatchMetrics, MetricsServer],
    prometheus: tuple[int, subprocess.Popen[bytes]],
    alertmanager: int | None,
    webhook: _Webhook,
) -> None:
    """No ``metrics.apps`` list: the app's series are born with its first record, so
    Prometheus first sees them at 1, and that first claim pages; a second reason of the same
    app pages on its own."""
    metrics, _ = metrics_endpoint
    port, proc = prometheus
    wait_for("the target scraped", lambda: _query(port, 'up{job="citewatch"} == 1'), proc)
    assert _query(port, 'citewatch_critical_unsupported_claims_total{app="fresh"}') == []

    first = asyncio.run(Pipeline(Settings()).evaluate(_critical_trace("fresh")))
    assert [c.critical_reason for c in first.claims] == [None, "uncited"]
    metrics.observe_record(first)

    firing = wait_for(
        "the first claim of app fresh paging",
        lambda: _firing(port, app="fresh", reason="uncited"),
        proc,
    )
    assert firing[0]["labels"]["severity"] == "page"
    # Prometheus first saw the series at 1: the page came from a series born in the window.
    assert [
        r["value"][1]
        for r in _query(
            port, 'citewatch_critical_unsupported_claims_total{app="fresh",reason="uncited"}'
        )
    ] == ["1"]
    # The exporter's _created samples reach this Prometheus, which is what keeps old counts
    # seen again after an outage from paging.
    assert _query(port, 'citewatch_critical_unsupported_claims_created{app="fresh"}')

    second_id = "1af7651916cd43dd8448eb211c80319d"
    second = asyncio.run(Pipeline(Settings()).evaluate(_invalid_citation_trace("fresh", second_id)))
    assert [c.critical_reason for c in second.claims] == ["invalid_citation"]
    metrics.observe_record(second)
    wait_for(
        "the first invalid_citation claim of app fresh paging",
        lambda: _firing(port, app="fresh", reason="invalid_citation"),
        proc,
    )

    if alertmanager is None:
        return

    def notified() -> set[tuple[str, str]]:
        return {
            (a["labels"]["app"], a["labels"]["reason"])
            for n in webhook.received
            if n["status"] == "firing"
            for a in n["alerts"]
        }

    wait_for(
        "both pages notified",
        lambda: {("fresh", "uncited"), ("fresh", "invalid_citation")} <= notified(),
        proc,
    )
