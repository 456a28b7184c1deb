"""An asyncio event loop in a worker thread, where traces are evaluated off the poll thread.

The poll thread hands work over with :meth:`AsyncWorker.submit`; coroutines run on the
worker's loop, so many slow judge calls can be in flight while the poll thread keeps calling
``poll()``. Tasks are grouped by a key (the topic-partition) so a rebalance can cancel the
work of the partitions it takes away.

A :class:`Heartbeat` beats on the loop every second; a stage that keeps the loop busy (a
record stuck in CPU-bound work) stops the beats, and its age is what liveness (/healthz)
reports against ``runtime.worker_stuck_seconds``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Hashable, Iterable
from concurrent.futures import Future as ThreadFuture
from typing import Any, Protocol, TypeVar

__all__ = ["AsyncWorker", "Heartbeat", "KafkaFuture", "LoopInbox", "wait_kafka_future"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

Factory = Callable[[], Coroutine[Any, Any, Any]]
"""Makes the coroutine of one task."""


class KafkaFuture(Protocol):
    """What a producer's ``send()`` returns (kafka-python's FutureRecordMetadata)."""

    def add_callback(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call ``fn(value)`` once the send succeeded."""
        ...

    def add_errback(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call ``fn(exception)`` once the send failed."""
        ...


def _settle(target: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if target.done():
        return
    if error is not None:
        target.set_exception(error)
    else:
        target.set_result(value)


class LoopInbox:
    """Hands results from other threads to one event loop, many per wakeup of the loop.

    ``loop.call_soon_threadsafe`` writes to the loop's self-pipe on every call, so a
    producer that acknowledges a batch of 200 records would wake the loop 200 times (and
    hand the interpreter lock back and forth as often). The inbox wakes it once per burst:
    the first item of a burst schedules a drain, the rest join it.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._items: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []

    def settle(
        self, target: asyncio.Future[Any], value: Any, error: BaseException | None = None
    ) -> None:
        """Resolve ``target`` on its loop (from any thread)."""
        with self._lock:
            self._items.append((target, value, error))
            if len(self._items) > 1:
                return  # a drain is already scheduled
        self._loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        with self._lock:
            items, self._items = self._items, []
        for target, value, error in items:
            _settle(target, value, error)


async def wait_kafka_future(future: KafkaFuture, inbox: LoopInbox | None = None) -> Any:
    """Await a producer future from a coroutine; its callbacks fire on the producer's thread
    and reach the loop through ``inbox`` (one wakeup per burst of acks) when given."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[Any] = loop.create_future()
    if inbox is not None:
        future.add_callback(functools.partial(inbox.settle, waiter))
        future.add_errback(functools.partial(_errback, inbox, waiter))
    else:

        def ok(value: Any) -> None:
            loop.call_soon_threadsafe(_settle, waiter, value, None)

        def failed(error: BaseException) -> None:
            loop.call_soon_threadsafe(_settle, waiter, None, error)

        future.add_callback(ok)
        future.add_errback(failed)
    return await waiter


def _errback(inbox: LoopInbox, waiter: asyncio.Future[Any], error: BaseException) -> None:
    inbox.settle(waiter, None, error)


class Heartbeat:
    """Beats on an event loop every ``interval`` seconds; :meth:`age` is the time since the
    last beat (0 before the loop is attached). Read from any thread."""

    def __init__(
        self, interval: float = 1.0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval = interval
        self._clock = clock
        self._last: float | None = None
        self._handle: asyncio.TimerHandle | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start beating on ``loop`` (thread-safe)."""
        self._last = self._clock()
        loop.call_soon_threadsafe(self._beat, loop)

    def _beat(self, loop: asyncio.AbstractEventLoop) -> None:
        self._last = self._clock()
        self._handle = loop.call_later(self.interval, self._beat, loop)

    def detach(self) -> None:
        """Stop beating (call on the loop's thread, or after the loop stopped)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._last = None

    def age(self) -> float:
        """Seconds since the last beat; 0 when not attached."""
        last = self._last
        return 0.0 if last is None else max(0.0, self._clock() - last)


class AsyncWorker:
    """Runs coroutines on an event loop in a daemon thread; tasks are grouped by key."""

    def __init__(
        self, name: str = "citewatch-worker", *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._tasks: dict[Hashable, set[asyncio.Task[Any]]] = {}
        self.heartbeat = Heartbeat(clock=clock)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def stuck_for(self) -> float:
        """Seconds the loop has gone without a heartbeat (about 1 s when it turns freely)."""
        return self.heartbeat.age()

    def start(self) -> None:
        """Start the loop's thread."""
        self._thread.start()
        self.heartbeat.attach(self.loop)

    def submit(
        self, key: Hashable, factories: Iterable[Callable[[], Coroutine[Any, Any, Any]]]
    ) -> None:
        """Schedule one task per coroutine factory under ``key`` (thread-safe, non-blocking)."""
        self.submit_all([(key, list(factories))])

    def submit_all(self, batches: list[tuple[Hashable, list[Factory]]]) -> None:
        """Schedule the tasks of several keys with one wakeup of the loop (a whole poll
        batch is one hand-off, whatever its partitions and records)."""
        batches = [(key, factories) for key, factories in batches if factories]
        if batches:
            self.loop.call_soon_threadsafe(self._spawn, batches)

    def _spawn(self, batches: list[tuple[Hashable, list[Factory]]]) -> None:
        for key, factories in batches:
            group = self._tasks.setdefault(key, set())
            forget = functools.partial(self._forget, key)
            for factory in factories:
                task = self.loop.create_task(factory())
                group.add(task)
                task.add_done_callback(forget)

    def _forget(self, key: Hashable, task: asyncio.Task[Any]) -> None:
        group = self._tasks.get(key)
        if group is not None:
            group.discard(task)
            if not group:
                del self._tasks[key]
        if not task.cancelled() and task.exception() is not None:
            logger.error("worker task failed", exc_info=task.exception())

    def cancel(self, keys: Iterable[Hashable]) -> None:
        """Cancel the tasks of ``keys`` (thread-safe, non-blocking)."""
        wanted = list(keys)
        self.loop.call_soon_threadsafe(self._cancel, wanted)

    def _cancel(self, keys: list[Hashable]) -> None:
        for key in keys:
            for task in list(self._tasks.get(key, ())):
                task.cancel()

    def call(self, fn: Callable[[], T], timeout: float = 10.0) -> T:
        """Run ``fn`` on the loop's thread and wait for its result."""
        result: ThreadFuture[T] = ThreadFuture()

        def run() -> None:
            try:
                result.set_result(fn())
            except BaseException as exc:  # handed back to the caller
                result.set_exception(exc)

        self.loop.call_soon_threadsafe(run)
        return result.result(timeout)

    def pending(self) -> int:
        """Tasks not finished yet (approximate when read from another thread)."""
        return sum(len(group) for group in list(self._tasks.values()))

    def alive(self) -> bool:
        """Whether the loop's thread still runs (after :meth:`stop`: a task never yielded)."""
        return self._thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel what is left, stop the loop and join its thread."""
        if not self._thread.is_alive():
            return

        def cancel_all() -> None:
            self.heartbeat.detach()
            for group in list(self._tasks.values()):
                for task in list(group):
                    task.cancel()

        self.loop.call_soon_threadsafe(cancel_all)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()
