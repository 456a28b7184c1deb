"""The worker thread's hand-offs: whole poll batches in, bursts of acks back."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from sidecar.runtime.worker import AsyncWorker, LoopInbox, wait_kafka_future


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts the wakeups other threads ask of it."""

    def __init__(self) -> None:
        super().__init__()
        self.wakeups = 0

    def call_soon_threadsafe(self, callback: Any, *args: Any, context: Any = None) -> Any:
        self.wakeups += 1
        return super().call_soon_threadsafe(callback, *args, context=context)


class HeldFuture:
    """A producer future whose outcome another thread decides."""

    def __init__(self) -> None:
        self.callbacks: list[Any] = []
        self.errbacks: list[Any] = []

    def add_callback(self, fn: Any) -> None:
        self.callbacks.append(fn)

    def add_errback(self, fn: Any) -> None:
        self.errbacks.append(fn)


def test_a_burst_of_acks_wakes_the_loop_once_and_settles_every_waiter() -> None:
    loop = CountingLoop()
    inbox = LoopInbox(loop)
    futures = [HeldFuture() for _ in range(50)]

    async def main() -> list[Any]:
        waiters = [asyncio.ensure_future(wait_kafka_future(f, inbox)) for f in futures]
        await asyncio.sleep(0)  # every waiter has registered its callbacks
        before = loop.wakeups

        def producer_thread() -> None:  # kafka-python completes a batch in one go
            for i, future in enumerate(futures):
                if i == 7:
                    future.errbacks[0](RuntimeError("not leader"))
                else:
                    future.callbacks[0](i)

        thread = threading.Thread(target=producer_thread)
        thread.start()
        thread.join()
        results = await asyncio.gather(*waiters, return_exceptions=True)
        assert loop.wakeups - before == 1
        return results

    try:
        results = loop.run_until_complete(main())
    finally:
        loop.close()
    assert [r if not isinstance(r, Exception) else type(r).__name__ for r in results] == [
        *range(7),
        "RuntimeError",
        *range(8, 50),
    ]


def test_a_later_burst_schedules_its_own_drain() -> None:
    loop = CountingLoop()
    inbox = LoopInbox(loop)

    async def main() -> list[Any]:
        got = []
        for round_ in range(3):
            future = HeldFuture()
            waiter = asyncio.ensure_future(wait_kafka_future(future, inbox))
            await asyncio.sleep(0)
            threading.Thread(target=future.callbacks[0], args=(round_,)).start()
            got.append(await asyncio.wait_for(waiter, 5))
        return got

    try:
        assert loop.run_until_complete(main()) == [0, 1, 2]
    finally:
        loop.close()


def test_submit_all_hands_a_whole_poll_batch_over_in_one_wakeup() -> None:
    worker = AsyncWorker()
    loop = CountingLoop()
    worker.loop.close()
    worker.loop = loop
    done: list[tuple[str, int]] = []
    finished = threading.Event()

    def factory(key: str, i: int) -> Any:
        async def work() -> None:
            done.append((key, i))
            if len(done) == 6:
                finished.set()

        return work

    worker.start()
    try:
        before = loop.wakeups
        worker.submit_all(
            [
                ("p0", [factory("p0", i) for i in range(3)]),
                ("p1", []),
                ("p2", [factory("p2", i) for i in range(3)]),
            ]
        )
        assert finished.wait(5)
        assert loop.wakeups - before == 1
    finally:
        worker.stop()
    assert sorted(done) == [("p0", 0), ("p0", 1), ("p0", 2), ("p2", 0), ("p2", 1), ("p2", 2)]


def test_heartbeat_stops_while_a_task_keeps_the_loop_busy() -> None:
    now = [1000.0]
    worker = AsyncWorker(clock=lambda: now[0])
    assert worker.stuck_for() == 0.0  # not started: nothing to report
    worker.start()
    release = threading.Event()
    busy = threading.Event()

    async def stuck() -> None:
        busy.set()
        release.wait(10)  # blocks the loop, as a CPU-bound stage would

    try:
        worker.submit("p", [stuck])
        assert busy.wait(5)
        now[0] += 300.0
        assert worker.stuck_for() >= 300.0
        release.set()
        for _ in range(500):  # the loop turns again: the next beat comes within its interval
            if worker.stuck_for() < 300.0:
                break
            time.sleep(0.01)
        assert worker.stuck_for() == 0.0
    finally:
        release.set()
        worker.stop()
    assert worker.stuck_for() == 0.0  # stopped on purpose: not stuck
