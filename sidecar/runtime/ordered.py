"""The one ordered, windowed loop: records evaluated concurrently, outcomes written in order.

`citewatch check` and the file source of `citewatch run` both read numbered records, start
one evaluation per record, keep at most ``concurrency`` of them running, and hand each
outcome to a :class:`Sink` in input order, whatever order the evaluations finish in.

Only running evaluations count against ``concurrency``: a slow record (a judge call being
retried) holds one slot, not the whole window, so the records behind it keep starting and
the judge's other slots stay busy. Their outcomes wait, in memory, for the slow one to be
written; at most ``backlog`` of them (by default eight times ``concurrency``), beyond which
reading waits for the oldest record.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Protocol

from sidecar.runtime.guard import Evaluated, Failure, Skipped

__all__ = ["IDLE", "Outcome", "Sink", "evaluate_in_order"]

logger = logging.getLogger(__name__)

Outcome = Evaluated | Failure | Skipped
"""What one record ends with: a record to write, a dead letter, or a skip (a duplicate)."""

IDLE = 0
"""A position that carries no record: the source is idle (a followed file at its end), so
everything in flight is finished and written, and the sink flushed, before waiting on."""


class Sink(Protocol):
    """Where outcomes go, in input order (evaluation records, dead letters, counts)."""

    def write(self, position: int, outcome: Outcome) -> None:
        """Write the outcome of the record at ``position``; must not raise."""
        ...

    def flush(self) -> None:
        """Make what was written so far visible (the source went idle)."""
        ...


async def evaluate_in_order(
    records: AsyncGenerator[tuple[int, bytes], None],
    start: Callable[[int, bytes], Awaitable[Outcome]],
    sink: Sink,
    *,
    concurrency: int,
    finish_timeout: float | None = None,
    backlog: int | None = None,
    stopping: Callable[[], bool] | None = None,
) -> int:
    """Evaluate ``records`` with ``start``, at most ``concurrency`` running at once and at
    most ``concurrency + backlog`` not yet written, and write each outcome to ``sink`` in
    order. When the records end, what is in flight gets ``finish_timeout`` seconds (None: as
    long as it takes); the rest is cancelled, not written. With ``stopping``, the end of the
    records is not a deadline: what is in flight runs to its end, and ``finish_timeout``
    counts only from the moment ``stopping()`` turns true (a signal). Returns how many
    records were abandoned.
    """
    limit = concurrency + (backlog if backlog is not None else 8 * concurrency)
    window: deque[tuple[int, asyncio.Task[Outcome]]] = deque()
    running: set[asyncio.Task[Outcome]] = set()
    # With ``stopping``, a full window is waited on in short steps, so a signal stops the
    # reading at once instead of after the slowest record in flight.
    poll = _STOP_POLL_SECONDS if stopping is not None else None

    def stopped() -> bool:
        return stopping is not None and stopping()

    async with contextlib.aclosing(records):
        async for position, value in records:
            if position == IDLE:
                while window and not stopped():
                    await asyncio.wait([window[0][1]], timeout=poll)
                    await _write_ready(window, sink, wait=False)
                running = {task for task in running if not task.done()}
                sink.flush()
                if stopped():
                    break
                continue
            task = asyncio.ensure_future(start(position, value))
            window.append((position, task))
            running.add(task)
            await _write_ready(window, sink, wait=False)
            while not stopped():
                running = {task for task in running if not task.done()}
                if len(running) >= concurrency:
                    await asyncio.wait(running, timeout=poll, return_when=asyncio.FIRST_COMPLETED)
                elif len(window) >= limit:
                    await asyncio.wait([window[0][1]], timeout=poll)
                else:
                    break
                await _write_ready(window, sink, wait=False)
            if stopped():
                break
    return await _finish(window, sink, finish_timeout, stopping)


async def _write_ready(
    window: deque[tuple[int, asyncio.Task[Outcome]]], sink: Sink, *, wait: bool
) -> None:
    """Write the finished head of the window; with ``wait``, wait for the head first."""
    while window:
        position, head = window[0]
        if not head.done():
            if not wait:
                return
            await asyncio.wait([head])
        wait = False
        window.popleft()
        sink.write(position, _outcome(head))


_STOP_POLL_SECONDS = 0.1
"""How often the finish checks ``stopping`` while in-flight work has no deadline yet."""


async def _finish(
    window: deque[tuple[int, asyncio.Task[Outcome]]],
    sink: Sink,
    timeout: float | None,
    stopping: Callable[[], bool] | None,
) -> int:
    loop = asyncio.get_running_loop()
    until = None if timeout is None or stopping is not None else loop.time() + timeout
    pending = {task for _, task in window}
    while pending:
        wait: float | None
        if until is None and stopping is not None and stopping() and timeout is not None:
            until = loop.time() + timeout
        if until is not None:
            wait = until - loop.time()
            if wait <= 0:
                break
            if stopping is not None:
                wait = min(wait, _STOP_POLL_SECONDS)
        else:
            wait = _STOP_POLL_SECONDS if stopping is not None else None
        _, pending = await asyncio.wait(pending, timeout=wait)
        await _write_ready(window, sink, wait=False)
    for task in pending:
        task.cancel()
    if pending:
        logger.warning("deadline reached: %d traces abandoned", len(pending))
    while window:
        position, head = window.popleft()
        if head.cancelled() or not head.done():
            continue
        sink.write(position, _outcome(head))
    return len(pending)


def _outcome(task: asyncio.Task[Outcome]) -> Outcome:
    # evaluate_raw returns failures as values; an exception here came from around it.
    error = task.exception()
    if error is not None:
        return Failure.of(error, reason="evaluation_error", during="evaluation")
    return task.result()
