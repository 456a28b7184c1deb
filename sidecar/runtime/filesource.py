"""The embedded default of `citewatch run`: traces from any :class:`TraceSource` (a JSON
Lines file or stdin by default), no Kafka.

The same pipeline and metrics as the Kafka runtime; evaluation records are written in input
order to a :class:`LineSink`, bad records are counted and written with their position and
reason as dead letters (redacted unless dead_letters.payload says raw). The source decides
when the run ends (a followed file never does; standard input ends when it closes).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from exporters.prometheus import UNKNOWN_APP, CitewatchMetrics
from schemas import EvaluationRecord
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.pipeline import Pipeline
from sidecar.runtime.dead_letters import letter_content
from sidecar.runtime.guard import SAMPLE_LINES, SAMPLED_REASONS, Failure, Skipped, where
from sidecar.runtime.lines import TraceSource
from sidecar.runtime.ordered import IDLE, Outcome, evaluate_in_order
from sidecar.runtime.records import RecordProcessor, evaluates_inline
from sidecar.runtime.shutdown import ShutdownBudget
from sidecar.runtime.slow import SlowRecords
from sidecar.runtime.worker import Heartbeat

if TYPE_CHECKING:
    from sidecar.review.sink import ReviewSink

__all__ = ["FileRunner", "FileSummary", "JsonLinesSink", "LineSink", "TextOut"]

logger = logging.getLogger(__name__)


@dataclass
class FileSummary:
    """Totals of one file run."""

    lines: int = 0
    evaluated: int = 0
    dead_lettered: int = 0
    duplicates: int = 0
    abandoned: int = 0
    bad: Counter[str] = field(default_factory=Counter)
    """Dead-lettered lines by reason."""
    samples: list[bytes] = field(default_factory=list)
    """The first few dead-lettered lines that were JSON but not a trace of the configured
    input format (at most :data:`SAMPLE_LINES`): what another format is tried on."""


class LineSink(Protocol):
    """Where the file runtime writes: evaluation records and dead letters, one line each."""

    def record(self, payload: bytes) -> None:
        """Write one evaluation record (its JSON, without the line end)."""
        ...

    def dead_letter(self, letter: dict[str, Any]) -> None:
        """Write one dead letter: position, reason, error class and message, payload (raw
        or redacted) and the value."""
        ...

    def flush(self) -> None:
        """Make what was written so far visible."""
        ...


class TextOut(Protocol):
    """A text stream written line by line: a file, stdout, or one opened at its first write."""

    def write(self, text: str, /) -> int:
        """Write ``text``; the number of characters written."""
        ...

    def flush(self) -> None:
        """Make what was written visible."""
        ...


@dataclass
class JsonLinesSink:
    """Records to ``output`` and dead letters to ``dead_letters`` (dropped when None), one
    JSON object a line."""

    output: TextOut
    dead_letters: TextOut | None = None

    def record(self, payload: bytes) -> None:
        """Write one evaluation record line."""
        self.output.write(payload.decode("utf-8") + "\n")

    def dead_letter(self, letter: dict[str, Any]) -> None:
        """Write one dead-letter line, if there is a dead-letter stream."""
        if self.dead_letters is not None:
            self.dead_letters.write(json.dumps(letter) + "\n")

    def flush(self) -> None:
        """Flush both streams."""
        self.output.flush()
        if self.dead_letters is not None:
            self.dead_letters.flush()


@dataclass
class _Bad:
    number: int
    value: bytes
    failure: Failure
    app: str = UNKNOWN_APP


class FileRunner:
    """Evaluates the records of one :class:`TraceSource` in order into a :class:`LineSink`."""

    def __init__(
        self,
        *,
        settings: Settings,
        pipeline: Pipeline,
        metrics: CitewatchMetrics,
        source: TraceSource,
        sink: LineSink,
        review: ReviewSink | None = None,
        on_written: Callable[[EvaluationRecord], None] | None = None,
        on_line: Callable[[int], None] | None = None,
    ) -> None:
        self.settings = settings
        self.pipeline = pipeline
        self.metrics = metrics
        self.source = source
        self.sink = sink
        self.review = review  # routed claims go to the review store beside the output
        self.on_written = on_written  # every record written (not duplicates): the summary
        self.on_line = on_line  # the number of each line finished, in order: progress
        self.summary = FileSummary()
        self.slow = SlowRecords(
            threshold_seconds=settings.runtime.slow_record_seconds,
            on_slow=metrics.slow_record,
            on_change=metrics.set_slow_in_progress,
        )
        self.records = RecordProcessor(
            pipeline=pipeline,
            limits=DecodeLimits.from_settings(settings),
            metrics=metrics,
            slow=self.slow,
            dedup_window=settings.runtime.dedup_window,
            dedup_max_bytes=settings.runtime.dedup_max_bytes,
        )
        self.input_open = False
        self.heartbeat = Heartbeat()
        self.letters = letter_content(settings, pipeline, sink="file")  # dead_letters.payload
        self._values: dict[int, bytes] = {}

    def ready(self) -> bool:
        """The input is open (a followed file stays ready while waiting for lines) and no
        record has been in evaluation longer than runtime.slow_record_seconds."""
        return self.input_open and not self.slow.any_slow()

    def live(self) -> bool:
        """The evaluation loop has beaten within runtime.worker_stuck_seconds (liveness)."""
        return self.heartbeat.age() < self.settings.runtime.worker_stuck_seconds

    async def run(self, stop: threading.Event) -> FileSummary:
        """Read, evaluate and write until the input ends or ``stop`` is set.

        At the end of the input every record in flight is finished and written (each is
        bounded by the judge's own timeouts and budgets); only ``stop`` (a signal) limits
        them, to the shutdown budget's ``in_flight_seconds``.
        """
        self.input_open = True
        self.slow.start()
        budget = ShutdownBudget(self.settings.runtime.shutdown_deadline_seconds)
        self.heartbeat.attach(asyncio.get_running_loop())
        try:
            self.summary.abandoned += await evaluate_in_order(
                self._records(stop),
                self._start,
                self,
                concurrency=self.settings.input.concurrency,
                finish_timeout=budget.in_flight_seconds,
                stopping=stop.is_set,
                inline=evaluates_inline(self.pipeline),
            )
        finally:
            self.input_open = False
            self.heartbeat.detach()
            self.slow.stop()
        self.sink.flush()
        return self.summary

    async def _records(self, stop: threading.Event) -> AsyncGenerator[tuple[int, bytes], None]:
        try:
            async for number, line in self.source.records(stop):
                if number != IDLE:
                    self.summary.lines = number
                yield number, line
        finally:
            self.input_open = False

    def _start(self, number: int, line: bytes) -> Awaitable[Outcome]:
        self._values[number] = line  # kept for the dead letter, should the line fail
        return self._evaluate(number, line)

    async def _evaluate(self, number: int, line: bytes) -> Outcome:
        token = self.slow.begin(f"line {number}")
        try:
            return await self.records.evaluate(line, token=token)
        finally:
            self.slow.end(token)

    def write(self, position: int, outcome: Outcome) -> None:
        """Write one line's outcome; any failure here dead-letters the line instead."""
        try:
            self._write_unguarded(position, outcome)
            if self.on_line is not None:
                self.on_line(position)
        except Exception as exc:
            logger.error(
                "writing the outcome of line %d raised %s at %s",
                position,
                type(exc).__name__,
                where(exc),
            )
            self._dead_letter(
                _Bad(
                    position,
                    self._values.pop(position, b""),
                    Failure.of(exc, reason="emit_error", during="emitting"),
                )
            )

    def flush(self) -> None:
        """The input went idle: make the records written so far visible."""
        self.sink.flush()

    def _write_unguarded(self, number: int, outcome: Outcome) -> None:
        value = self._values.pop(number, b"")
        if isinstance(outcome, Skipped):  # a duplicate, counted in the metrics already
            self.summary.duplicates += 1
            return
        if isinstance(outcome, Failure):
            self._dead_letter(_Bad(number, value, outcome))
            return
        record = outcome.record
        started = time.perf_counter()
        if not self.records.is_new(record):
            self.summary.duplicates += 1
            return
        self.sink.record(outcome.payload)
        if self.review is not None:
            self.review.take(record)
        self.records.emitted(record, emit_seconds=time.perf_counter() - started, new=True)
        self.summary.evaluated += 1
        if self.on_written is not None:
            self.on_written(record)

    def _dead_letter(self, bad: _Bad) -> None:
        self.summary.dead_lettered += 1
        self.summary.bad[bad.failure.reason] += 1
        if bad.failure.reason in SAMPLED_REASONS and len(self.summary.samples) < SAMPLE_LINES:
            self.summary.samples.append(bad.value)
        self.records.dead_lettered(bad.failure, bad.app)
        logger.info("line %d dead-lettered: %s", bad.number, bad.failure.reason)
        try:
            self.sink.dead_letter(
                {
                    "line": bad.number,
                    "reason": bad.failure.reason,
                    "error_class": bad.failure.error_class,
                    "error": bad.failure.message,
                    "payload": self.letters.payload,
                    "value": self.letters.text(bad.value),
                }
            )
        except Exception as exc:  # a full disk must not end the run either; it is counted
            logger.error("dead letter of line %d not written (%s)", bad.number, type(exc).__name__)
