"""The one ordered, windowed loop of `citewatch check` and the file source."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncGenerator, Sequence

from schemas import EvaluationRecord
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from sidecar.runtime.guard import Evaluated, Failure
from sidecar.runtime.ordered import IDLE, INLINE_BATCH, Outcome, evaluate_in_order
from tests.support.factories import make_trace


class ListSink:
    def __init__(self) -> None:
        self.events: list[tuple[str, int, str]] = []

    def write(self, position: int, outcome: Outcome) -> None:
        label = outcome.reason if isinstance(outcome, Failure) else type(outcome).__name__
        self.events.append(("write", position, label))

    def flush(self) -> None:
        self.events.append(("flush", 0, ""))


async def _records(positions: Sequence[int]) -> AsyncGenerator[tuple[int, bytes], None]:
    for position in positions:
        yield position, b""


def _record() -> EvaluationRecord:
    return asyncio.run(Pipeline(Settings()).evaluate(make_trace()))


RECORD = _record()


def test_outcomes_are_written_in_input_order_with_at_most_concurrency_in_flight() -> None:
    in_flight = 0
    most = 0

    async def start(position: int, value: bytes) -> Outcome:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.001 * (10 - position))  # later records finish first
        in_flight -= 1
        return Evaluated(RECORD, b"{}")

    sink = ListSink()
    abandoned = asyncio.run(evaluate_in_order(_records(range(1, 10)), start, sink, concurrency=3))
    assert abandoned == 0
    assert sink.events == [("write", n, "Evaluated") for n in range(1, 10)]
    assert most == 3


def test_idle_writes_everything_in_flight_then_flushes() -> None:
    async def start(position: int, value: bytes) -> Outcome:
        await asyncio.sleep(0.001)
        return Evaluated(RECORD, b"{}")

    sink = ListSink()
    asyncio.run(evaluate_in_order(_records([1, 2, IDLE, 3]), start, sink, concurrency=8))
    assert sink.events == [
        ("write", 1, "Evaluated"),
        ("write", 2, "Evaluated"),
        ("flush", 0, ""),
        ("write", 3, "Evaluated"),
    ]


def test_an_exception_around_the_evaluation_is_a_failure_for_that_record_only() -> None:
    async def start(position: int, value: bytes) -> Outcome:
        if position == 2:
            raise RuntimeError("boom")
        return Evaluated(RECORD, b"{}")

    sink = ListSink()
    asyncio.run(evaluate_in_order(_records([1, 2, 3]), start, sink, concurrency=2))
    assert sink.events == [
        ("write", 1, "Evaluated"),
        ("write", 2, "evaluation_error"),
        ("write", 3, "Evaluated"),
    ]


def test_records_still_in_flight_at_the_finish_timeout_are_abandoned_unwritten() -> None:
    async def start(position: int, value: bytes) -> Outcome:
        if position == 2:
            await asyncio.sleep(60)
        return Evaluated(RECORD, b"{}")

    sink = ListSink()
    abandoned = asyncio.run(
        evaluate_in_order(_records([1, 2, 3]), start, sink, concurrency=8, finish_timeout=0.05)
    )
    assert abandoned == 1
    assert sink.events == [("write", 1, "Evaluated"), ("write", 3, "Evaluated")]


def test_a_slow_record_holds_one_slot_and_the_backlog_bounds_what_waits_behind_it() -> None:
    """A judge call being retried must not idle the other slots: records behind it keep
    starting, up to the backlog of finished outcomes waiting for it."""
    started: list[int] = []
    slow_done = asyncio.Event()

    async def start(position: int, value: bytes) -> Outcome:
        started.append(position)
        if position == 1:
            await asyncio.sleep(0.2)
            slow_done.set()
        else:
            await asyncio.sleep(0)
        return Evaluated(RECORD, b"{}")

    started_before_slow: list[int] = []

    async def main(backlog: int) -> ListSink:
        sink = ListSink()

        async def watch() -> None:
            await slow_done.wait()
            started_before_slow.extend(started)

        watcher = asyncio.ensure_future(watch())
        await evaluate_in_order(_records(range(1, 41)), start, sink, concurrency=2, backlog=backlog)
        await watcher
        return sink

    sink = asyncio.run(main(backlog=6))
    assert sink.events == [("write", n, "Evaluated") for n in range(1, 41)]
    # concurrency 2 + backlog 6: record 1 and seven behind it, not one at a time
    assert len(started_before_slow) == 8, started_before_slow


_SEEN: contextvars.ContextVar[int] = contextvars.ContextVar("seen", default=0)


def test_inline_evaluations_are_written_in_order_whether_they_wait_or_not() -> None:
    """Inline, an evaluation that returns at once is written at once, and one that waits
    goes on in a task of its own: the order of the output is the input's all the same."""
    events: list[str] = []

    async def start(position: int, value: bytes) -> Outcome:
        events.append(f"start {position}")
        if position % 3 == 0:
            await asyncio.sleep(0.01 * (4 - position // 3))
        if position == 4:
            raise RuntimeError("boom")
        _SEEN.set(position)  # a task's own context: never the loop's, never a neighbour's
        return Evaluated(RECORD, b"{}")

    sink = ListSink()

    async def main() -> int:
        before = _SEEN.get()
        abandoned = await evaluate_in_order(
            _records(range(1, 10)), start, sink, concurrency=2, inline=True
        )
        assert _SEEN.get() == before
        return abandoned

    assert asyncio.run(main()) == 0
    assert sink.events == [
        ("write", n, "evaluation_error" if n == 4 else "Evaluated") for n in range(1, 10)
    ]
    # The first records are written as they return, before record 3 (which waits) ends.
    assert events[:3] == ["start 1", "start 2", "start 3"]


def test_an_inline_evaluation_still_waiting_at_the_finish_timeout_is_cancelled() -> None:
    cancelled: list[int] = []

    async def start(position: int, value: bytes) -> Outcome:
        if position == 2:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.append(position)
                raise
        return Evaluated(RECORD, b"{}")

    sink = ListSink()
    abandoned = asyncio.run(
        evaluate_in_order(
            _records([1, 2, 3]), start, sink, concurrency=8, finish_timeout=0.05, inline=True
        )
    )
    assert abandoned == 1
    assert cancelled == [2]
    assert sink.events == [("write", 1, "Evaluated"), ("write", 3, "Evaluated")]


def test_inline_evaluations_let_the_event_loop_turn_between_batches() -> None:
    """Evaluations that never wait still leave the loop its turns (a heartbeat, timers)."""
    turns = 0

    async def start(position: int, value: bytes) -> Outcome:
        return Evaluated(RECORD, b"{}")

    async def main() -> None:
        nonlocal turns
        loop = asyncio.get_running_loop()

        def beat() -> None:
            nonlocal turns
            turns += 1
            loop.call_soon(beat)

        loop.call_soon(beat)
        count = 5 * INLINE_BATCH
        await evaluate_in_order(
            _records(range(1, count + 1)), start, ListSink(), concurrency=4, inline=True
        )

    asyncio.run(main())
    assert turns >= 5
