"""`citewatch run`: the long-running service, from Kafka or (the embedded default) a file."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import IO, Any

import click
from opentelemetry.trace import Tracer
from prometheus_client import CollectorRegistry

from exporters.http import MetricsServer, serve
from exporters.prometheus import CitewatchMetrics
from exporters.tracing import configure_tracing, get_tracer
from sidecar import __version__
from sidecar._cli_common import config_option, one_line_errors, settings_from
from sidecar.assembly import build_pipeline
from sidecar.config import Settings
from sidecar.errors import CitewatchError
from sidecar.judge import JUDGE_CHOICES
from sidecar.pipeline import Pipeline
from sidecar.runtime.shutdown import ShutdownSignals

__all__ = ["run_command"]

logger = logging.getLogger(__name__)

_FLAG_SETTINGS = {
    "bootstrap_servers": "kafka.bootstrap_servers",
    "topic": "kafka.input_topic",
    "group": "kafka.group_id",
    "evaluations_topic": "kafka.evaluations_topic",
    "dead_letter_topic": "kafka.dead_letter_topic",
    "input_path": "input.path",
    "output": "input.output",
    "dead_letters": "input.dead_letters",
    "once": "input.once",
    "metrics_port": "metrics.port",
    "metrics_address": "metrics.address",
    "judge_backend": "judge.backend",
    "sample_rate": "sampling.rate",
    "shutdown_deadline": "kafka.shutdown_deadline_seconds",
}


def _metrics(settings: Settings) -> tuple[CollectorRegistry, CitewatchMetrics]:
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, apps=settings.metrics.apps, version=__version__)
    return registry, metrics


def _name_build(metrics: CitewatchMetrics, pipeline: Pipeline) -> None:
    """citewatch_build_info from the judge stage that was built: what actually runs."""
    identity = pipeline.judge.identity if pipeline.judge is not None else None
    metrics.set_build_info(version=__version__,
                           rubric_version=identity.rubric_version if identity else "",
                           judge_model=identity.model if identity else "")


def _serve(registry: CollectorRegistry, settings: Settings, ready: Any) -> MetricsServer:
    try:
        return serve(registry, address=settings.metrics.address, port=settings.metrics.port,
                     ready=ready)
    except OSError as exc:
        raise click.ClickException(
            f"cannot serve metrics on {settings.metrics.address}:{settings.metrics.port}: "
            f"{exc.strerror or exc}") from None


async def _close_judge(pipeline: Pipeline) -> None:
    if pipeline.judge is not None:
        await pipeline.judge.aclose(5.0)


def _run_file(settings: Settings, pipeline: Pipeline, metrics: CitewatchMetrics,
              registry: CollectorRegistry, stop: threading.Event) -> None:
    from sidecar.filesource import FileRunner

    path = settings.input.path or "-"
    try:
        source: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
        output: IO[str] = (sys.stdout if settings.input.output in (None, "-")
                           else open(settings.input.output, "a", encoding="utf-8"))  # noqa: SIM115
        dead: IO[str] | None = (open(settings.input.dead_letters, "a", encoding="utf-8")  # noqa: SIM115
                                if settings.input.dead_letters else None)
    except OSError as exc:
        raise click.ClickException(f"cannot open {exc.filename}: {exc.strerror}") from None
    runner = FileRunner(settings=settings, pipeline=pipeline, metrics=metrics, source=source,
                        output=output, dead_letters=dead, once=settings.input.once,
                        follow=path != "-")
    server = _serve(registry, settings, runner.ready)

    async def main() -> None:
        try:
            await runner.run(stop)
        finally:
            await _close_judge(pipeline)

    try:
        asyncio.run(main())
    finally:
        server.close()
        output.flush()
        for stream in (source, output, dead):
            if stream is not None and stream not in (sys.stdin.buffer, sys.stdout):
                stream.close()
    s = runner.summary
    click.echo(f"citewatch run: {s.lines} lines, {s.evaluated} evaluated, "
               f"{s.dead_lettered} dead-lettered, {s.duplicates} duplicates"
               + (f", {s.abandoned} abandoned" if s.abandoned else ""), err=True)


def _run_kafka(settings: Settings, pipeline: Pipeline, metrics: CitewatchMetrics,
               registry: CollectorRegistry, stop: threading.Event,
               tracer: Tracer | None = None) -> None:
    from kafka import KafkaConsumer, KafkaProducer
    from kafka.errors import KafkaError

    from exporters.kafka import KafkaEmitter, producer_config
    from sidecar.consumer import KafkaRunner, kafka_listener, security_config

    kafka = settings.kafka
    security = security_config(settings)
    try:
        producer = KafkaProducer(**producer_config(
            bootstrap_servers=kafka.bootstrap_servers, security=security,
            max_request_size=kafka.max_request_bytes))
        consumer = KafkaConsumer(
            bootstrap_servers=kafka.bootstrap_servers.split(","),
            group_id=kafka.group_id,
            client_id="citewatch",
            enable_auto_commit=False,
            auto_offset_reset=kafka.auto_offset_reset,
            session_timeout_ms=kafka.session_timeout_ms,
            heartbeat_interval_ms=max(1000, kafka.session_timeout_ms // 3),
            max_partition_fetch_bytes=max(1_048_576, kafka.max_request_bytes),
            **security,
        )
    except KafkaError as exc:
        raise click.ClickException(
            f"cannot reach Kafka at {kafka.bootstrap_servers}: {type(exc).__name__}") from None
    emitter = KafkaEmitter(producer, evaluations_topic=kafka.evaluations_topic,
                           dead_letter_topic=kafka.dead_letter_topic, group_id=kafka.group_id)
    runner = KafkaRunner(settings=settings, consumer=consumer, emitter=emitter,
                         pipeline=pipeline, metrics=metrics, listener=kafka_listener,
                         tracer=tracer)
    server = _serve(registry, settings, runner.ready)
    try:
        runner.run(stop)
    finally:
        server.close()


@click.command("run")
@config_option
@click.option("--bootstrap-servers", default=None, help="Kafka host:port list (comma-separated).")
@click.option("--topic", default=None, help="Input topic of traces.")
@click.option("--group", default=None, help="Consumer group.")
@click.option("--evaluations-topic", default=None, help="Topic of evaluation records.")
@click.option("--dead-letter-topic", default=None, help="Topic of records that cannot be read.")
@click.option("--input", "input_path", metavar="FILE|-", default=None,
              help="Read JSON Lines traces from FILE (or - for stdin) instead of Kafka.")
@click.option("--output", metavar="FILE", default=None,
              help="With --input: append evaluation records here (default stdout).")
@click.option("--dead-letters", metavar="FILE", default=None,
              help="With --input: append bad lines here with line number and reason.")
@click.option("--once", is_flag=True, default=None,
              help="With --input: stop at the end of the input instead of following it.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None,
              help="Port of /metrics, /healthz, /readyz (default 9464; 0 picks one).")
@click.option("--metrics-address", default=None, help="Bind address of the metrics port.")
@click.option("--judge", "judge_backend",
              type=click.Choice(JUDGE_CHOICES),
              default=None, help="Judge backend (default: openai-responses with an API key, "
              "else lexical).")
@click.option("--sample-rate", type=click.FloatRange(0.0, 1.0), default=None,
              help="Base share of traces the judge sees, by a hash of trace_id.")
@click.option("--shutdown-deadline", type=click.FloatRange(min=0.1), default=None,
              help="Seconds in-flight work may take after SIGTERM (default 20).")
@one_line_errors
def run_command(config_file: str | None, **flags: Any) -> None:
    """Run the service: consume traces, evaluate, export metrics, until SIGTERM.

    From Kafka by default (at least once: offsets are committed only after each evaluation
    record or dead letter is acknowledged); with --input, from a JSON Lines file or stdin
    with no Kafka at all. Metrics, /healthz and /readyz are served on the metrics port.
    """
    settings = settings_from(config_file, {_FLAG_SETTINGS[k]: v for k, v in flags.items()})
    try:
        registry, metrics = _metrics(settings)
        provider = configure_tracing()
        tracer = get_tracer(provider)
        pipeline = build_pipeline(settings, judge_observer=metrics,
                                  on_stage=metrics.observe_stage, tracer=tracer)
    except (CitewatchError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    _name_build(metrics, pipeline)
    signals = ShutdownSignals().install()
    try:
        if settings.input.path is not None:
            _run_file(settings, pipeline, metrics, registry, signals.event)
        else:
            _run_kafka(settings, pipeline, metrics, registry, signals.event, tracer)
    finally:
        signals.restore()
        shutdown = getattr(provider, "shutdown", None)
        if shutdown is not None:
            shutdown()  # flushes spans still queued for export
