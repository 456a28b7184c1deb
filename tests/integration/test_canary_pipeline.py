"""Canary across the whole service: a trace carrying one value of every sensitive type goes
through `citewatch run` with an LLM judge on the local OpenAI-compatible server. None of the
raw values may appear in anything the test can capture: the judge requests the server
received, the evaluation records, the dead-letter output, the logs, the exported spans and
the /metrics page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redaction._canary import canary_trace, leaks
from tests.support.factories import trace_dict
from tests.support.openai_server import FakeOpenAI
from tests.support.servers import free_port

pytestmark = pytest.mark.integration

MODEL = "judge-canary-2026-01-01"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _wait_for(condition: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_no_raw_value_leaves_the_process(server: FakeOpenAI, tmp_path: Path) -> None:
    source = tmp_path / "traces.jsonl"
    bad_line = "{truncated"
    source.write_text(
        canary_trace().model_dump_json()
        + "\n"
        + bad_line
        + "\n"
        + json.dumps(trace_dict(trace_id="f" * 32))
        + "\n",
        encoding="utf-8",
    )
    output, dead = tmp_path / "evaluations.jsonl", tmp_path / "dead.jsonl"
    port = free_port()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_", "OTEL_"))
    }
    env.update(
        {
            "CITEWATCH_JUDGE_BASE_URL": server.base_url,
            "CITEWATCH_JUDGE_API_KEY": "test-key",
            "CITEWATCH_JUDGE_MODEL": MODEL,
            "CITEWATCH_JUDGE_MAX_RETRIES": "0",
            "OTEL_TRACES_EXPORTER": "console",
        }
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from sidecar.cli import main; main()",
            "-vv",
            "run",
            "--input",
            str(source),
            "--output",
            str(output),
            "--dead-letters",
            str(dead),
            "--judge",
            "openai-chat",
            "--sample-rate",
            "1.0",
            "--metrics-port",
            str(port),
            "--metrics-address",
            "127.0.0.1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        _wait_for(lambda: output.exists() and len(output.read_text().splitlines()) == 2)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/metrics",
            headers={"Accept": "application/openmetrics-text; version=1.0.0"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            metrics_page = response.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr[-2000:]

    records = [json.loads(line) for line in output.read_text().splitlines()]
    canary = next(r for r in records if r["trace_id"] == canary_trace().trace_id)
    # The capture is real: the judge ran, spans were exported, metrics were served.
    assert canary["judged"] is True and canary["judge"]["judge"] == "openai-chat"
    assert canary["redactions"]["EMAIL"] >= 5
    assert len(server.recorded()) >= 1
    assert "gen_ai.request.model" in stdout and MODEL in stdout
    assert "citewatch_redactions_total" in metrics_page
    assert "citewatch_critical_unsupported_claims_total" in metrics_page
    assert "line 2" in dead.read_text() or '"line": 2' in dead.read_text()

    judge_requests = "\n".join(json.dumps(r.body) for r in server.recorded())
    evaluations = output.read_text()
    captured = {
        "judge requests": judge_requests,
        "evaluations": evaluations,
        "dead letters": dead.read_text(),
        "logs": stderr,
        "spans": stdout,
        "metrics": metrics_page,
    }
    assert {name: leaks(text) for name, text in captured.items()} == {name: [] for name in captured}
