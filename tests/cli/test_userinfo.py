"""Credentials in addresses (https://user:password@host) are masked wherever they are shown:
config show and validate, the start-up and judge-failure lines, log lines (the HTTP client's
own included), CLI errors, the weekly report; and never reach metrics or spans."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry, generate_latest

from exporters.prometheus import CitewatchMetrics
from exporters.tracing import get_tracer
from sidecar._userinfo import MaskUserinfo, mask_userinfo
from sidecar.assembly import build_pipeline
from sidecar.cli import cli
from sidecar.config import Settings
from sidecar.quality._prometheus import PrometheusClient, PrometheusError
from tests.support.openai_server import FakeOpenAI, Status, not_found
from tests.support.traces import refund_trace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"
SECRET = "pw-8d1f2c77"
NO_KEY = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


def _with_credentials(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://citewatch:{SECRET}@{rest}"


def _invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env={**NO_KEY, **(env or {})})


# -- the function ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        pytest.param("https://user:pw@judge.example/v1", "https://***@judge.example/v1", id="url"),
        pytest.param("http://token@judge.example", "http://***@judge.example", id="user-only"),
        pytest.param("http://u:p@ss@h:8080/x", "http://***@h:8080/x", id="at-in-password"),
        pytest.param("https://u:a,b;c@h", "https://***@h", id="sub-delims-in-password"),
        pytest.param("k1:9092,svc:pw@k2:9092", "k1:9092,***@k2:9092", id="host-list"),
        pytest.param("svc:pw@kafka:9092", "***@kafka:9092", id="bare-address"),
        pytest.param("me@corp.example:pw@kafka:9092", "***@kafka:9092", id="at-in-user"),
        pytest.param(
            'HTTP Request: POST http://u:pw@127.0.0.1:1/v1/chat "HTTP/1.1 200 OK"',
            'HTTP Request: POST http://***@127.0.0.1:1/v1/chat "HTTP/1.1 200 OK"',
            id="in-a-log-line",
        ),
        pytest.param(
            "cannot reach 'https://u:p@a' or (v:q@b:1)",
            "cannot reach 'https://***@a' or (***@b:1)",
            id="quoted-and-bracketed",
        ),
        pytest.param("http://a:1@h1,http://b:2@h2", "http://***@h1,http://***@h2", id="two"),
        pytest.param(
            "https://judge.example/v1?user=a@b",
            "https://judge.example/v1?user=a@b",
            id="at-after-the-authority",
        ),
        pytest.param("support@example.com", "support@example.com", id="e-mail"),
        pytest.param(
            "sent to jane@example.com: ok", "sent to jane@example.com: ok", id="e-mail-then-colon"
        ),
        pytest.param("https://judge.example/v1", "https://judge.example/v1", id="no-userinfo"),
    ],
)
def test_mask_userinfo(text: str, shown: str) -> None:
    assert mask_userinfo(text) == shown
    assert mask_userinfo(shown) == shown  # idempotent


def test_masking_is_linear_on_text_that_almost_holds_an_address() -> None:
    text = "a.b+c-" * 200_000 + "@"
    started = time.perf_counter()
    assert mask_userinfo(text) == text
    assert time.perf_counter() - started < 1.0


# -- config show and validate ----------------------------------------------------------------


def test_config_show_masks_the_credentials_of_every_url_setting() -> None:
    result = _invoke(
        "config",
        "show",
        env={
            "CITEWATCH_JUDGE_BASE_URL": f"https://citewatch:{SECRET}@judge.example/v1",
            "CITEWATCH_REDACTION_ALLOW": json.dumps(
                [f"https://u:{SECRET}@wiki.example", "support@example.com"]
            ),
        },
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert SECRET not in result.output
    assert shown["judge"]["base_url"] == "https://***@judge.example/v1"
    assert shown["redaction"]["allow"] == ["https://***@wiki.example", "support@example.com"]


def test_config_validate_masks_the_credentials_of_a_refused_address() -> None:
    result = _invoke(
        "config", "validate", env={"CITEWATCH_KAFKA_BOOTSTRAP_SERVERS": f"svc:{SECRET}@kafka:9092"}
    )
    assert result.exit_code == 2
    assert SECRET not in result.output
    assert "'***@kafka:9092' has no valid host name" in result.stderr


# -- the start-up and judge-failure lines, and log lines -------------------------------------


@pytest.fixture
def failing_judge() -> Iterator[str]:
    with FakeOpenAI(responder=not_found) as server:
        yield server.base_url


def test_start_up_failure_and_log_lines_mask_the_judge_url(
    failing_judge: str, tmp_path: Path
) -> None:
    # A real process, so its stderr is what an operator reads (and httpx's own INFO line,
    # which prints every URL it requests, is written at -v).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "CITEWATCH_JUDGE_API_KEY": "dummy",
            "CITEWATCH_JUDGE_BASE_URL": _with_credentials(failing_judge),
            "CITEWATCH_JUDGE_MAX_RETRIES": "0",
        }
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sidecar.cli import main; sys.exit(main())",
            "-v",
            "run",
            "--input",
            str(EXAMPLES),
            "--once",
            "--output",
            str(tmp_path / "o.jsonl"),
            "--judge",
            "openai-chat",
            "--sample-rate",
            "1",
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    masked = failing_judge.replace("http://", "http://***@")
    lines = done.stderr.splitlines()
    assert done.returncode == 3, done.stderr
    assert SECRET not in done.stderr
    [first] = [line for line in lines if line.startswith("citewatch run: reading")]
    assert f"at {masked}, as --judge" in first
    [cause] = [line for line in lines if line.startswith("judge failed on")]
    assert f"at {masked})" in cause
    assert any(f"HTTP Request: POST {masked}/chat/completions" in line for line in lines)


def test_the_log_filter_masks_messages_and_tracebacks() -> None:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep()
    handler.addFilter(MaskUserinfo())
    log = logging.getLogger("tests.userinfo")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("calling %s", f"https://u:{SECRET}@h/v1")
        try:
            raise OSError(f"cannot connect to https://u:{SECRET}@h/v1")
        except OSError:
            log.exception("judge call failed")
    finally:
        log.removeHandler(handler)
        log.propagate = True
    assert records[0] == "calling https://***@h/v1"
    assert records[1].startswith("judge call failed\nTraceback")
    assert "OSError: cannot connect to https://***@h/v1" in records[1]
    assert SECRET not in "\n".join(records)


# -- CLI errors and the weekly report --------------------------------------------------------


class _Prometheus(BaseHTTPRequestHandler):
    authorization: list[str | None] = []

    def do_GET(self) -> None:
        type(self).authorization.append(self.headers.get("Authorization"))
        raw = json.dumps({"status": "success", "data": {"result": []}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


def test_prometheus_credentials_are_sent_as_basic_auth_and_never_shown(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Prometheus)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = _with_credentials(f"http://127.0.0.1:{server.server_address[1]}")
    try:
        result = _invoke(
            "report",
            "--weekly",
            "--prometheus",
            url,
            "--end",
            "2025-03-16",
            "--out-dir",
            str(tmp_path),
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert result.exit_code == 0, result.output
    expected = "Basic " + base64.b64encode(f"citewatch:{SECRET}".encode()).decode()
    assert set(_Prometheus.authorization) == {expected}
    written = "".join(path.read_text() for path in tmp_path.iterdir())
    assert f"Prometheus at http://127.0.0.1:{server.server_address[1]}" in written
    assert SECRET not in result.output + written


def test_an_unreachable_prometheus_is_named_without_its_credentials() -> None:
    with pytest.raises(PrometheusError) as info:
        PrometheusClient(f"http://u:{SECRET}@127.0.0.1:9", timeout=2).query_range(
            "up", start=0, end=1, step=1
        )
    assert str(info.value).startswith("cannot reach Prometheus at http://127.0.0.1:9: ")
    result = _invoke(
        "report",
        "--weekly",
        "--prometheus",
        f"http://u:{SECRET}@127.0.0.1:9",
        "--end",
        "2025-03-16",
    )
    assert result.exit_code == 2
    assert SECRET not in result.output


# -- metrics and spans -----------------------------------------------------------------------


def test_metrics_and_spans_of_a_judged_trace_hold_no_credentials() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, version="test")
    with FakeOpenAI() as server:
        server.script(Status(500))
        settings = Settings(
            judge={
                "backend": "openai-chat",
                "base_url": _with_credentials(server.base_url),
                "api_key": "test-key",
                "max_retries": 0,
                "screen": False,
            },
            sampling={"rate": 1.0},
        )
        pipeline = build_pipeline(settings, tracer=get_tracer(provider))
        assert pipeline.judge is not None
        identity = pipeline.judge.identity

        async def run() -> None:
            metrics.observe_record(await pipeline.evaluate(refund_trace()))
            await pipeline.judge.aclose(1.0)  # type: ignore[union-attr]

        asyncio.run(run())
    metrics.set_build_info(
        version="test", rubric_version=identity.rubric_version, judge_model=identity.model
    )
    spans = exporter.get_finished_spans()
    assert spans
    shown = generate_latest(registry).decode() + "".join(
        json.dumps(span.to_json()) for span in spans
    )
    assert "@127.0.0.1" not in shown and SECRET not in shown
