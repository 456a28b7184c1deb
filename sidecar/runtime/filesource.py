"""The embedded default of `citewatch run`: traces from a JSON Lines file or stdin, no Kafka.

The same pipeline and metrics as the Kafka runtime; evaluation records are written in input
order to a stream, bad lines are counted and written with their line number and reason to an
optional dead-letter stream. With ``once`` the run ends at the end of the input; otherwise a
file is followed as it grows (standard input ends when it closes).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import IO

from exporters.prometheus import UNKNOWN_APP, CitewatchMetrics
from schemas import Trace
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.pipeline import Pipeline
from sidecar.runtime.dedup import RecentIds
from sidecar.runtime.guard import Evaluated, Failure, Skipped, evaluate_raw, where
from sidecar.runtime.slow import SlowRecords

__all__ = ["FileRunner", "FileSummary"]

logger = logging.getLogger(__name__)


@dataclass
class FileSummary:
    """Totals of one file run."""

    lines: int = 0
    evaluated: int = 0
    dead_lettered: int = 0
    duplicates: int = 0
    abandoned: int = 0


@dataclass
class _Bad:
    number: int
    value: bytes
    failure: Failure
    app: str = UNKNOWN_APP


_Outcome = Evaluated | Failure | Skipped
"""What one line's task ends with; Skipped for a duplicate."""


class FileRunner:
    """Evaluates the traces of one JSON Lines stream (opened in binary mode)."""

    def __init__(
        self,
        *,
        settings: Settings,
        pipeline: Pipeline,
        metrics: CitewatchMetrics,
        source: IO[bytes],
        output: IO[str],
        dead_letters: IO[str] | None = None,
        once: bool = True,
        follow: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.pipeline = pipeline
        self.metrics = metrics
        self.source = source
        self.output = output
        self.dead_letters = dead_letters
        self.once = once
        self.follow = follow and not once
        self.clock = clock
        self.summary = FileSummary()
        self.recent = RecentIds(settings.kafka.dedup_window)
        self.limits = DecodeLimits.from_settings(settings)
        self.slow = SlowRecords(threshold_seconds=settings.runtime.slow_record_seconds,
                                on_slow=metrics.slow_record,
                                on_change=metrics.set_slow_in_progress)
        self.input_open = False
        self._values: dict[int, bytes] = {}
        self._last_read = clock()
        try:
            self._blocking = not source.seekable()
        except (AttributeError, ValueError):
            self._blocking = True

    def ready(self) -> bool:
        """The input is open (a followed file stays ready while waiting for lines) and no
        record has been in evaluation longer than runtime.slow_record_seconds."""
        return self.input_open and not self.slow.any_slow()

    async def _lines(self, stop: threading.Event) -> AsyncIterator[tuple[int, bytes]]:
        interval = self.settings.input.follow_interval_seconds
        number = 0
        partial = b""
        while not stop.is_set():
            # A pipe or terminal blocks in readline(); a regular file never does.
            line = (await asyncio.to_thread(self.source.readline) if self._blocking
                    else self.source.readline())
            if line:
                self._last_read = self.clock()
                if not line.endswith(b"\n") and self.follow:
                    partial += line  # the writer is mid-line: wait for the rest
                    continue
                number += 1
                line, partial = partial + line, b""
                if line.strip():
                    yield number, line
                continue
            if not self.follow:
                break
            yield 0, b""  # idle: the caller writes out what has finished meanwhile
            await asyncio.sleep(interval)
        if partial.strip() and not stop.is_set():
            yield number + 1, partial

    async def run(self, stop: threading.Event) -> FileSummary:
        """Read, evaluate and write until the input ends or ``stop`` is set."""
        concurrency = self.settings.input.concurrency
        window: deque[tuple[int, asyncio.Task[_Outcome]]] = deque()
        self.input_open = True
        self.slow.start()
        try:
            async for number, line in self._lines(stop):
                if number == 0:
                    while window:
                        await self._drain(window, wait=True)
                    self.output.flush()
                    continue
                self.summary.lines = number
                window.append((number, self._start(number, line)))
                await self._drain(window, wait=len(window) >= concurrency)
        finally:
            self.input_open = False
        try:
            await self._finish(window)
        finally:
            self.slow.stop()
        self.output.flush()
        if self.dead_letters is not None:
            self.dead_letters.flush()
        return self.summary

    def _start(self, number: int, line: bytes) -> asyncio.Task[_Outcome]:
        self._values[number] = line  # kept for the dead letter, should the line fail
        return asyncio.ensure_future(self._evaluate(number, line))

    async def _evaluate(self, number: int, line: bytes) -> _Outcome:
        started = time.perf_counter()
        token = self.slow.begin(f"line {number}")

        async def admit(trace: Trace) -> bool:
            self.metrics.observe_stage("decode", time.perf_counter() - started)
            self.slow.identify(token, trace.trace_id)
            if trace.trace_id in self.recent:
                self.metrics.trace_duplicate(trace.app)
                self.summary.duplicates += 1
                return False
            return True

        try:
            return await evaluate_raw(self.pipeline, line.rstrip(b"\r\n"), self.limits,
                                      admit=admit)
        finally:
            self.slow.end(token)

    async def _drain(self, window: deque[tuple[int, asyncio.Task[_Outcome]]],
                     *, wait: bool) -> None:
        while window:
            number, head = window[0]
            if not head.done():
                if not wait:
                    return
                await asyncio.wait([head])
            wait = False
            window.popleft()
            self._write(number, head)

    async def _finish(self, window: deque[tuple[int, asyncio.Task[_Outcome]]]
                      ) -> None:
        tasks = [item for _, item in window]
        if tasks:
            # Most of the shutdown deadline: the caller stops waiting for this loop at the
            # deadline itself, and writing what finished takes a moment too.
            _, pending = await asyncio.wait(
                tasks, timeout=0.6 * self.settings.kafka.shutdown_deadline_seconds)
            for task in pending:
                task.cancel()
            self.summary.abandoned += len(pending)
            if pending:
                logger.warning("deadline reached: %d traces abandoned", len(pending))
        while window:
            number, head = window.popleft()
            if head.cancelled() or not head.done():
                continue
            self._write(number, head)

    def _write(self, number: int, item: asyncio.Task[_Outcome]) -> None:
        """Write one line's outcome; any failure here dead-letters the line instead."""
        try:
            self._write_unguarded(number, item)
        except Exception as exc:
            logger.error("writing the outcome of line %d raised %s at %s", number,
                         type(exc).__name__, where(exc))
            self._dead_letter(_Bad(number, self._values.pop(number, b""),
                                   Failure.of(exc, reason="emit_error", during="emitting")))

    def _write_unguarded(self, number: int, item: asyncio.Task[_Outcome]) -> None:
        value = self._values.pop(number, b"")
        error = item.exception()
        outcome = (Failure.of(error, reason="evaluation_error", during="evaluation")
                   if error is not None else item.result())
        if isinstance(outcome, Skipped):
            return
        if isinstance(outcome, Failure):
            self._dead_letter(_Bad(number, value, outcome))
            return
        record = outcome.record
        started = time.perf_counter()
        if not self.recent.add(record.trace_id):
            self.metrics.trace_duplicate(record.app)
            self.summary.duplicates += 1
            return
        self.output.write(outcome.payload.decode("utf-8") + "\n")
        self.metrics.observe_stage("emit", time.perf_counter() - started)
        self.metrics.observe_record(record)
        self.metrics.mark_processed(time.time())
        self.summary.evaluated += 1

    def _dead_letter(self, bad: _Bad) -> None:
        self.summary.dead_lettered += 1
        self.metrics.dead_letter(bad.failure.reason, bad.app)
        logger.info("line %d dead-lettered: %s", bad.number, bad.failure.reason)
        if self.dead_letters is None:
            return
        try:
            self.dead_letters.write(json.dumps({
                "line": bad.number,
                "reason": bad.failure.reason,
                "error_class": bad.failure.error_class,
                "error": bad.failure.message,
                "value": bad.value.rstrip(b"\r\n").decode("utf-8", errors="replace"),
            }) + "\n")
        except Exception as exc:  # a full disk must not end the run either; it is counted
            logger.error("dead letter of line %d not written (%s)", bad.number,
                         type(exc).__name__)

