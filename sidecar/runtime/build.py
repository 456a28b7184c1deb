"""The runtime of `citewatch run`, chosen from the settings: a trace source run through the
file runtime, or the Kafka consumer.

:func:`build_runtime` is the one place that chooses. A trace source is a class with
``records(stop)`` (:class:`~sidecar.runtime.lines.TraceSource`) and one line in
:func:`_trace_source`; it then runs through :class:`FileRuntime` like the JSON Lines file.
A source with its own commit protocol (Kafka) is a runtime of its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from opentelemetry.trace import Tracer
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import EvaluationRecord
from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.pipeline import Pipeline
from sidecar.runtime.base import RunResult, Runtime
from sidecar.runtime.filesource import FileRunner, JsonLinesSink, LineSink
from sidecar.runtime.lines import LineSource, TraceSource
from sidecar.runtime.shutdown import ShutdownBudget, run_until_deadline

if TYPE_CHECKING:
    from sidecar.config.kafka import KafkaSettings
    from sidecar.runtime.kafka_diagnosis import KafkaErrorWatch

__all__ = ["FileRuntime", "KafkaRuntime", "build_runtime"]

logger = logging.getLogger(__name__)

_JUDGE_CLOSE_SECONDS = 5.0


class _Streams:
    """The files a file runtime opened, closed (or, for stdin and stdout, flushed) at its end."""

    def __init__(self) -> None:
        self.source: IO[bytes] | None = None
        self.written: list[_LateFile] = []

    def lines(self, settings: Settings) -> LineSource:
        path = settings.input.path or "-"
        try:
            self.source = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed by finish()
        except OSError as exc:
            raise ConfigError(f"cannot read {exc.filename}: {exc.strerror}") from None
        return LineSource(
            self.source,
            follow=path != "-" and not settings.input.once,
            interval=settings.input.follow_interval_seconds,
        )

    def sink(self, settings: Settings, *, append: bool) -> JsonLinesSink:
        output = (
            sys.stdout
            if settings.input.output in (None, "-")
            else self._open(settings.input.output, append=append)
        )
        dead = (
            self._open(settings.input.dead_letters, append=append)
            if settings.input.dead_letters
            else None
        )
        return JsonLinesSink(output, dead)

    def _open(self, path: str, *, append: bool) -> _LateFile:
        stream = _LateFile(path, append=append)
        self.written.append(stream)
        return stream

    def finish(self, *, finished: bool) -> None:
        """Close what was opened. Not ``finished`` (a thread is still busy with a record):
        only flush what was written so far; the thread ends with the process."""
        if not finished:
            for stream in self.written:
                stream.flush()
            sys.stdout.flush()
            return
        if self.source is not None and self.source is not sys.stdin.buffer:
            self.source.close()
        for stream in self.written:
            stream.close()
        sys.stdout.flush()


class _LateFile:
    """A file written only once something is written to it (replaced unless ``append``),
    so a run that writes nothing leaves an earlier file as it was. Whether it can be
    written is checked at once. Raises :class:`ConfigError` when it cannot."""

    def __init__(self, path: str, *, append: bool) -> None:
        self.path = path
        self.append = append
        self.stream: IO[str] | None = None
        existed = os.path.exists(path)
        try:
            open(path, "a", encoding="utf-8").close()  # fail now, not after the evaluation
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror}") from None
        if not existed:
            os.remove(path)

    def write(self, text: str) -> int:
        if self.stream is None:
            self.stream = open(self.path, "a" if self.append else "w", encoding="utf-8")  # noqa: SIM115
        return self.stream.write(text)

    def flush(self) -> None:
        if self.stream is not None:
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()


class FileRuntime:
    """Runs a :class:`FileRunner` off the main thread, so SIGTERM is honoured within the
    deadline even while a stage is busy with one record (it is then abandoned, not
    written). The end of the input is no deadline: only a signal starts the clock."""

    def __init__(self, runner: FileRunner, *, streams: _Streams | None = None) -> None:
        self.runner = runner
        self._streams = streams or _Streams()

    def ready(self) -> bool:
        """The input is open and no record is slow."""
        return self.runner.ready()

    def live(self) -> bool:
        """The evaluation loop beats."""
        return self.runner.live()

    def run(self, stop: threading.Event) -> RunResult:
        """Evaluate the source to its end (or ``stop``), then close the judge and the files."""
        pipeline = self.runner.pipeline

        async def main() -> None:
            try:
                await self.runner.run(stop)
            finally:
                if pipeline.judge is not None:
                    await pipeline.judge.aclose(_JUDGE_CLOSE_SECONDS)

        budget = ShutdownBudget(self.runner.settings.runtime.shutdown_deadline_seconds)
        finished = False
        try:
            finished = run_until_deadline(
                lambda: asyncio.run(main()), stop=stop, deadline_seconds=budget.runtime_seconds
            )
        finally:
            self._streams.finish(finished=finished)
        return RunResult(left_behind=not finished, summary=self.runner.summary)


class KafkaRuntime:
    """The Kafka consumer: builds its clients (waiting for an unreachable broker, stopped at
    once by a signal), then runs :class:`~sidecar.runtime.consumer.KafkaRunner`."""

    def __init__(
        self,
        settings: Settings,
        *,
        pipeline: Pipeline,
        metrics: CitewatchMetrics,
        tracer: Tracer | None = None,
        registry: CollectorRegistry | None = None,
    ) -> None:
        from sidecar.runtime.consumer import KafkaRunner

        self.settings = settings
        self.pipeline = pipeline
        self.metrics = metrics
        self.tracer = tracer
        self.registry = registry if registry is not None else CollectorRegistry()
        self.runner: KafkaRunner | None = None

    def ready(self) -> bool:
        """Not ready until the clients are built and partitions are assigned."""
        return self.runner is not None and self.runner.ready()

    def live(self) -> bool:
        """Alive during start-up; then the worker thread must beat."""
        return self.runner is None or self.runner.live()

    def run(self, stop: threading.Event) -> RunResult:
        """Consume until ``stop``; raises :class:`ConfigError` for clients that cannot be
        built (bad client settings)."""
        from kafka.errors import KafkaError

        from exporters.kafka import KafkaEmitter
        from sidecar.review.sink import review_sink
        from sidecar.runtime.consumer import KafkaRunner, kafka_listener
        from sidecar.runtime.heap import settle_heap
        from sidecar.runtime.kafka_clients import (
            build_clients,
            check_client_files,
            retriable_startup_error,
        )
        from sidecar.runtime.kafka_diagnosis import KafkaErrorWatch
        from sidecar.runtime.startup import StartupAbandoned, build_until_stopped

        kafka = self.settings.kafka
        _quiet_kafka_logging()
        # A missing or mismatched file is known before any connection: no waiting for it.
        check_client_files(self.settings, ("consumer", "producer"))
        wait = None if kafka.wait_for_kafka else kafka.startup_wait_seconds
        logger.info(
            "connecting to Kafka at %s (%s)",
            kafka.bootstrap_servers,
            "waiting as long as it takes" if wait is None else f"giving up after {wait:g}s",
        )
        with KafkaErrorWatch(self.settings, "consumer") as watch:
            try:
                clients = build_until_stopped(
                    lambda: build_clients(self.settings),
                    stop=stop,
                    retriable=retriable_startup_error,
                    what="Kafka clients",
                    give_up_after=wait,
                    failed=watch.failed,
                )
            except KafkaError as exc:
                raise ConfigError(watch.explain(type(exc).__name__)) from None
            except StartupAbandoned:
                return RunResult(started=False, gave_up=watch.explain("no answer"))
            except TimeoutError as exc:
                assert wait is not None  # only a bounded wait times out
                return RunResult(started=False, gave_up=_timed_out(kafka, wait, watch, exc))
        if clients is None:
            logger.info("stopped before consuming anything")
            return RunResult(started=False)
        producer, consumer = clients
        emitter = KafkaEmitter(
            producer,
            evaluations_topic=kafka.evaluations_topic,
            dead_letter_topic=kafka.dead_letter_topic,
            group_id=kafka.group_id,
        )
        runner = self.runner = KafkaRunner(
            settings=self.settings,
            consumer=consumer,
            emitter=emitter,
            pipeline=self.pipeline,
            metrics=self.metrics,
            listener=kafka_listener,
            tracer=self.tracer,
            review=review_sink(self.settings, self.pipeline, self.registry, producer=producer),
        )
        settle_heap()
        runner.run(stop)
        return RunResult(left_behind=runner.worker.alive())


def _quiet_kafka_logging() -> None:
    """kafka-python logs every failed connection attempt (warnings and errors, several a
    second against an unreachable broker); citewatch reports what an operator acts on
    itself (start-up reads those warnings to say why it failed), so the client's own lines
    reach the log only at -vv (DEBUG)."""
    if not logging.getLogger().isEnabledFor(logging.DEBUG):
        kafka = logging.getLogger("kafka")
        kafka.setLevel(logging.WARNING)
        kafka.propagate = False


def _timed_out(kafka: KafkaSettings, wait: float, watch: KafkaErrorWatch, exc: TimeoutError) -> str:
    """The line of a start-up that gave up: what the attempts ran into, and what to do."""
    last = watch.last
    if last is not None and last.kind != "connection":
        return f"{watch.explain('no answer')} (gave up after {wait:g}s)"
    cause = last.line if last is not None else str(exc).rpartition("(")[2].rstrip(")")
    return (
        f"cannot reach Kafka at {kafka.bootstrap_servers} within {wait:g}s ({cause}); start "
        "the broker, correct kafka.bootstrap_servers, or pass --wait-for-kafka to keep trying"
    )


def _trace_source(settings: Settings, streams: _Streams) -> TraceSource | None:
    """The configured trace source, or None for Kafka: one line per source."""
    if settings.input.path is not None:
        return streams.lines(settings)
    return None


def build_runtime(
    settings: Settings,
    *,
    pipeline: Pipeline,
    metrics: CitewatchMetrics,
    tracer: Tracer | None = None,
    registry: CollectorRegistry | None = None,
    append: bool = False,
    source: TraceSource | None = None,
    sink: LineSink | None = None,
    on_written: Callable[[EvaluationRecord], None] | None = None,
    on_line: Callable[[int], None] | None = None,
) -> Runtime:
    """The runtime the settings ask for. ``source`` and ``sink``, when given, are used
    instead of the configured ones (``sink`` defaults to ``input.output`` and
    ``input.dead_letters``, replaced unless ``append``); the review sink, when
    ``review.*`` asks for one, counts on ``registry``; ``on_written`` receives each record
    a trace source's run wrote (the CLI's summary), ``on_line`` the number of each line it
    finished, in order (the CLI's progress). Raises :class:`ConfigError` for an
    input that cannot be read or an output that cannot be written."""
    from sidecar.review.sink import review_sink

    registry = registry if registry is not None else CollectorRegistry()
    streams = _Streams()
    source = source if source is not None else _trace_source(settings, streams)
    if source is None:
        return KafkaRuntime(
            settings, pipeline=pipeline, metrics=metrics, tracer=tracer, registry=registry
        )
    try:
        sink = sink if sink is not None else streams.sink(settings, append=append)
        review = review_sink(settings, pipeline, registry)
    except Exception:
        streams.finish(finished=True)
        raise
    runner = FileRunner(
        settings=settings,
        pipeline=pipeline,
        metrics=metrics,
        source=source,
        sink=sink,
        review=review,
        on_written=on_written,
        on_line=on_line,
    )
    return FileRuntime(runner, streams=streams)
