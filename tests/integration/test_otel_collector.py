"""The OTLP input end to end: an app instrumented with the opentelemetry-sdk sends
OpenInference spans over OTLP/HTTP to a real OpenTelemetry Collector (OTLP receiver,
groupbytrace, the kafka exporter with ``partition_traces_by_id``), which writes them to the
real broker; `citewatch run --input-format otlp_proto` evaluates every trace once, under the
app's W3C trace ID.

The Collector is built from the Go module proxy by scripts/build-test-collector on first use
(several minutes; the binary is kept in .cache/otelcol)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest
import yaml
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from tests.support.kafka import (
    Sidecar,
    offsets,
    read_topic,
    run_topics,
    wait_until,
)
from tests.support.payloads import record_rag_requests
from tests.support.servers import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
COLLECTOR = ROOT / ".cache" / "otelcol" / "otelcol"
PRODUCING = ROOT / "docs" / "producing.md"
TRACES = 12


def _collector_binary(capsys: pytest.CaptureFixture[str]) -> Path:
    if shutil.which("go") is None:
        pytest.skip("the Collector test needs Go to build the Collector")
    # The first build takes minutes: what the script says it builds reaches the terminal.
    with capsys.disabled():
        subprocess.run(
            [str(ROOT / "scripts" / "build-test-collector"), str(COLLECTOR)],
            check=True,
            timeout=1500,
        )
    return COLLECTOR


def _config(bootstrap: str, topic: str, otlp_port: int) -> str:
    """The Collector configuration docs/producing.md gives, with this test's addresses and
    topic, and the Collector's own telemetry quiet."""
    [block] = re.findall(r"```yml\n(.+?)\n```", PRODUCING.read_text(encoding="utf-8"), re.S)
    config = yaml.safe_load(block)
    config["receivers"]["otlp"]["protocols"]["http"]["endpoint"] = f"127.0.0.1:{otlp_port}"
    config["exporters"]["kafka"]["brokers"] = [bootstrap]
    config["exporters"]["kafka"]["traces"]["topic"] = topic
    config["service"]["telemetry"] = {"metrics": {"level": "none"}, "logs": {"level": "warn"}}
    return json.dumps(config)


@pytest.mark.timeout(1800)  # the first build of the Collector
def test_spans_through_a_real_collector_are_evaluated_once_each(
    kafka_bootstrap: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = _collector_binary(capsys)
    topic, evaluations, dlt, group = run_topics(kafka_bootstrap, partitions=2, source="otlp")
    otlp_port = free_port()
    config = tmp_path / "otelcol.yaml"  # JSON is YAML
    config.write_text(_config(kafka_bootstrap, topic, otlp_port))
    log = tmp_path / "otelcol.log"
    with open(log, "wb") as sink:
        collector = subprocess.Popen(
            [str(binary), "--config", f"file:{config}"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    sidecar: Sidecar | None = None
    try:

        def listening() -> bool:
            request = urllib.request.Request(
                f"http://127.0.0.1:{otlp_port}/v1/traces",
                data=b"",
                method="POST",
                headers={"Content-Type": "application/x-protobuf"},
            )
            try:
                urllib.request.urlopen(request, timeout=2).close()
            except urllib.error.HTTPError:
                return True  # it answered
            except OSError:
                return collector.poll() is not None
            return True

        wait_until(listening, timeout=60, interval=0.5, what="the Collector's OTLP receiver")
        assert collector.poll() is None, log.read_text()

        provider = TracerProvider(resource=Resource.create({"service.name": "support-rag"}))
        provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{otlp_port}/v1/traces"))
        )
        expected = set(record_rag_requests(provider, traces=TRACES))
        provider.shutdown()  # flushes every span to the Collector

        sidecar = Sidecar(
            kafka_bootstrap,
            topic=topic,
            group=group,
            evaluations=evaluations,
            dead_letters=dlt,
            extra=["--input-format", "otlp_proto", "--judge", "none"],
            log=tmp_path / "sidecar.log",
        )

        def evaluated() -> bool:
            committed, ends = offsets(kafka_bootstrap, topic, group)
            return sum(ends.values()) >= TRACES and bool(committed) and committed == ends

        wait_until(evaluated, timeout=120, interval=1.0, what="every span record committed")
        sidecar.signal(signal.SIGTERM)
        assert sidecar.wait(30) == 0
    finally:
        if sidecar is not None:
            sidecar.stop()
        collector.terminate()
        try:
            collector.wait(timeout=20)
        except subprocess.TimeoutExpired:
            collector.kill()
            collector.wait()

    records = [json.loads(r.value) for r in read_topic(kafka_bootstrap, evaluations)]
    assert sorted(r["trace_id"] for r in records) == sorted(expected)  # each once
    assert {(r["app"], r["scores"]["validity"]) for r in records} == {("support-rag", 1.0)}
    assert all(len(r["claims"]) == 2 and r["generator"]["prompt_version"] == "v7" for r in records)
    assert read_topic(kafka_bootstrap, dlt) == []
