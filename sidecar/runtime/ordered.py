"""The one ordered, windowed loop: records evaluated concurrently, outcomes written in order.

`citewatch check` and the file source of `citewatch run` both read numbered records, start
one evaluation per record, keep at most ``concurrency`` of them running, and hand each
outcome to a :class:`Sink` in input order, whatever order the evaluations finish in.

Only running evaluations count against ``concurrency``: a slow record (a judge call being
retried) holds one slot, not the whole window, so the records behind it keep starting and
the judge's other slots stay busy. Their outcomes wait, in memory, for the slow one to be
written; at most ``backlog`` of them (by default eight times ``concurrency``), beyond which
reading waits for the oldest record.

With ``inline``, each evaluation's first step runs at once, in the reading loop, rather
than in a task of its own: an evaluation that never waits (no judge, or the offline screen)
is written as soon as it returns, without a task, a hand-off to the event loop and a pass
of it per record (together about as much as decoding the record). One that does wait goes
on in a task from where it stopped. The loop lets the event loop turn every
:data:`INLINE_BATCH` records all the same (its heartbeat, timers, other threads' calls).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from typing import Any, Protocol

from sidecar.runtime.guard import Evaluated, Failure, Skipped

__all__ = ["IDLE", "INLINE_BATCH", "Outcome", "Sink", "evaluate_in_order", "start_inline"]

logger = logging.getLogger(__name__)

Outcome = Evaluated | Failure | Skipped
"""What one record ends with: a record to write, a dead letter, or a skip (a duplicate)."""

IDLE = 0
"""A position that carries no record: the source is idle (a followed file at its end), so
everything in flight is finished and written, and the sink flushed, before waiting on."""

INLINE_BATCH = 64
"""Records evaluated inline, one after the other, between two turns of the event loop."""


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
    inline: bool = False,
) -> int:
    """Evaluate ``records`` with ``start``, at most ``concurrency`` running at once and at
    most ``concurrency + backlog`` not yet written, and write each outcome to ``sink`` in
    order. When the records end, what is in flight gets ``finish_timeout`` seconds (None: as
    long as it takes); the rest is cancelled, not written. With ``stopping``, the end of the
    records is not a deadline: what is in flight runs to its end, and ``finish_timeout``
    counts only from the moment ``stopping()`` turns true (a signal). With ``inline``, each
    evaluation starts in this loop (see :func:`start_inline`): only for evaluations that
    enter no task-bound timer (``asyncio.timeout``, an HTTP client's deadline) before they
    first wait, as the timer would belong to this loop's task. Returns how many records
    were abandoned.
    """
    limit = concurrency + (backlog if backlog is not None else 8 * concurrency)
    window: deque[tuple[int, asyncio.Future[Outcome]]] = deque()
    running: set[asyncio.Future[Outcome]] = set()
    # With ``stopping``, a full window is waited on in short steps, so a signal stops the
    # reading at once instead of after the slowest record in flight.
    poll = _STOP_POLL_SECONDS if stopping is not None else None
    inline_run = 0  # records evaluated inline since the event loop last turned

    def stopped() -> bool:
        return stopping is not None and stopping()

    async with contextlib.aclosing(records):
        async for position, value in records:
            if position == IDLE:
                while window and not stopped():
                    await asyncio.wait([window[0][1]], timeout=poll)
                    _write_ready(window, sink)
                running = {task for task in running if not task.done()}
                sink.flush()
                if stopped():
                    break
                continue
            evaluation = start(position, value)
            if inline and asyncio.iscoroutine(evaluation):
                task = start_inline(evaluation)
            else:
                task = asyncio.ensure_future(evaluation)
            window.append((position, task))
            if task.done():
                _write_ready(window, sink)
                inline_run += 1
                if inline_run >= INLINE_BATCH:
                    inline_run = 0
                    await asyncio.sleep(0)  # one turn of the event loop per batch
            else:
                running.add(task)
                _write_ready(window, sink)
            while not stopped():
                if len(running) >= concurrency:
                    running = {task for task in running if not task.done()}
                if len(running) >= concurrency:
                    await asyncio.wait(running, timeout=poll, return_when=asyncio.FIRST_COMPLETED)
                elif len(window) >= limit:
                    await asyncio.wait([window[0][1]], timeout=poll)
                else:
                    break
                _write_ready(window, sink)
            if stopped():
                break
    return await _finish(window, sink, finish_timeout, stopping)


def _write_ready(window: deque[tuple[int, asyncio.Future[Outcome]]], sink: Sink) -> None:
    """Write the finished head of the window."""
    while window:
        position, head = window[0]
        if not head.done():
            return
        window.popleft()
        sink.write(position, _outcome(head))


_STOP_POLL_SECONDS = 0.1
"""How often the finish checks ``stopping`` while in-flight work has no deadline yet."""


async def _finish(
    window: deque[tuple[int, asyncio.Future[Outcome]]],
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
        _write_ready(window, sink)
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


def _outcome(task: asyncio.Future[Outcome]) -> Outcome:
    # evaluate_raw returns failures as values; an exception here came from around it.
    error = task.exception()
    if error is not None:
        return Failure.of(error, reason="evaluation_error", during="evaluation")
    return task.result()


def start_inline(evaluation: Coroutine[Any, Any, Outcome]) -> asyncio.Future[Outcome]:
    """Run ``evaluation`` up to its first wait, here and now, in a copy of the current
    context (as a task would); a future of its outcome. An evaluation that returned is a
    finished future; one that waits goes on in a task of its own from that wait.

    Only for coroutines that enter no task-bound timer before their first wait: during
    this step, the current task is the caller's.
    """
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    try:
        waiting = context.run(evaluation.send, None)
    except StopIteration as returned:
        done: asyncio.Future[Outcome] = loop.create_future()
        done.set_result(returned.value)
        return done
    except Exception as exc:
        failed: asyncio.Future[Outcome] = loop.create_future()
        failed.set_exception(exc)
        return failed
    return loop.create_task(_resume(evaluation, waiting), context=context)


async def _resume(evaluation: Coroutine[Any, Any, Outcome], waiting: Any) -> Outcome:
    """Drive ``evaluation`` on from a wait it yielded (a future, or None for a bare
    yield): what the future ends with (its result, its exception, a cancellation of this
    task) is handed to the coroutine as a task would hand it."""
    while True:
        try:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                # The coroutine marked the future as awaited when it yielded it; a task
                # clears the mark as it takes the future over, and so does this one.
                waiting._asyncio_future_blocking = False
                await waiting
        except BaseException as exc:  # the wait's outcome goes into the coroutine
            try:
                waiting = evaluation.throw(exc)
            except StopIteration as returned:
                return returned.value  # type: ignore[no-any-return]
            continue
        try:
            waiting = evaluation.send(None)
        except StopIteration as returned:
            return returned.value  # type: ignore[no-any-return]
