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

from exporters.prometheus import CitewatchMetrics
from schemas import EvaluationRecord
from sidecar.config import Settings
from sidecar.decode import decode_trace
from sidecar.errors import TraceError
from sidecar.pipeline import Pipeline
from sidecar.runtime.dedup import RecentIds

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
    error: BaseException
    reason: str


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
        self.input_open = False
        self._last_read = clock()
        try:
            self._blocking = not source.seekable()
        except (AttributeError, ValueError):
            self._blocking = True

    def ready(self) -> bool:
        """The input is open (a followed file stays ready while waiting for lines)."""
        return self.input_open

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
        window: deque[tuple[int, asyncio.Task[EvaluationRecord | None] | _Bad]] = deque()
        self.input_open = True
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
        await self._finish(window)
        self.output.flush()
        if self.dead_letters is not None:
            self.dead_letters.flush()
        return self.summary

    def _start(self, number: int, line: bytes) -> asyncio.Task[EvaluationRecord | None] | _Bad:
        checks = self.settings.checks
        started = time.perf_counter()
        try:
            trace = decode_trace(line.rstrip(b"\r\n"), max_bytes=checks.max_record_bytes,
                                 max_depth=checks.max_json_depth)
        except TraceError as exc:
            return _Bad(number, line, exc, exc.reason)
        self.metrics.observe_stage("decode", time.perf_counter() - started)
        if trace.trace_id in self.recent:
            self.metrics.trace_duplicate(trace.app)
            self.summary.duplicates += 1
            return asyncio.ensure_future(_none())
        return asyncio.ensure_future(self.pipeline.evaluate(trace))

    async def _drain(self, window: deque[tuple[int, asyncio.Task[EvaluationRecord | None] | _Bad]],
                     *, wait: bool) -> None:
        while window:
            number, head = window[0]
            if isinstance(head, asyncio.Task):
                if not head.done():
                    if not wait:
                        return
                    await asyncio.wait([head])
                wait = False
            window.popleft()
            self._write(number, head)

    async def _finish(self, window: deque[tuple[int, asyncio.Task[EvaluationRecord | None] | _Bad]]
                      ) -> None:
        tasks = [item for _, item in window if isinstance(item, asyncio.Task)]
        if tasks:
            _, pending = await asyncio.wait(
                tasks, timeout=self.settings.kafka.shutdown_deadline_seconds)
            for task in pending:
                task.cancel()
            self.summary.abandoned += len(pending)
            if pending:
                logger.warning("deadline reached: %d traces abandoned", len(pending))
        while window:
            number, head = window.popleft()
            if isinstance(head, asyncio.Task) and (head.cancelled() or not head.done()):
                continue
            self._write(number, head)

    def _write(self, number: int, item: asyncio.Task[EvaluationRecord | None] | _Bad) -> None:
        if isinstance(item, _Bad):
            self._dead_letter(item)
            return
        error = item.exception()
        if error is not None:
            logger.error("evaluation of line %d failed", number, exc_info=error)
            self._dead_letter(_Bad(number, b"", error, "evaluation_error"))
            return
        record = item.result()
        if record is None:
            return
        started = time.perf_counter()
        if not self.recent.add(record.trace_id):
            self.metrics.trace_duplicate(record.app)
            self.summary.duplicates += 1
            return
        self.output.write(record.model_dump_json() + "\n")
        self.metrics.observe_stage("emit", time.perf_counter() - started)
        self.metrics.observe_record(record)
        self.metrics.mark_processed(time.time())
        self.summary.evaluated += 1

    def _dead_letter(self, bad: _Bad) -> None:
        self.summary.dead_lettered += 1
        self.metrics.dead_letter(bad.reason)
        logger.info("line %d dead-lettered: %s", bad.number, bad.reason)
        if self.dead_letters is not None:
            self.dead_letters.write(json.dumps({
                "line": bad.number,
                "reason": bad.reason,
                "error_class": type(bad.error).__name__,
                "error": str(bad.error),
                "value": bad.value.rstrip(b"\r\n").decode("utf-8", errors="replace"),
            }) + "\n")


async def _none() -> None:
    return None
