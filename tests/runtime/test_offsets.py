"""Completion tracking: commit positions under out-of-order finishing and rebalances."""

from __future__ import annotations

import pytest

from sidecar.runtime.offsets import OffsetTracker

TP = ("traces", 0)


@pytest.mark.parametrize(
    ("finish_order", "positions"),
    [
        pytest.param([0, 1, 2], [1, 2, 3], id="in-order"),
        pytest.param([2, 1, 0], [None, None, 3], id="reversed"),
        pytest.param([1, 0, 2], [None, 2, 3], id="middle-first"),
    ],
)
def test_position_is_highest_contiguous_finished_plus_one(
    finish_order: list[int], positions: list[int | None]
) -> None:
    tracker = OffsetTracker()
    epochs = {offset: tracker.start(TP, offset) for offset in (0, 1, 2)}
    seen = []
    for offset in finish_order:
        assert tracker.finish(TP, offset, epochs[offset])
        seen.append(tracker.committable().get(TP))
    assert seen == positions
    assert tracker.in_flight() == 0


def test_gaps_in_offsets_do_not_block_the_position() -> None:
    tracker = OffsetTracker()
    epochs = {offset: tracker.start(TP, offset) for offset in (5, 7, 10)}
    for offset in (10, 5, 7):
        tracker.finish(TP, offset, epochs[offset])
    assert tracker.committable() == {TP: 11}


def test_committed_positions_are_not_offered_again() -> None:
    tracker = OffsetTracker()
    tracker.finish(TP, 0, tracker.start(TP, 0))
    tracker.mark_committed(tracker.committable())
    assert tracker.committable() == {}
    tracker.finish(TP, 1, tracker.start(TP, 1))
    assert tracker.committable() == {TP: 2}


def test_completions_of_a_dropped_partition_are_ignored() -> None:
    tracker = OffsetTracker()
    old = tracker.start(TP, 0)
    tracker.drop([TP])
    new = tracker.start(TP, 0)
    assert old != new
    assert not tracker.finish(TP, 0, old)
    assert tracker.committable() == {}
    assert tracker.finish(TP, 0, new)
    assert tracker.committable() == {TP: 1}


def test_a_seek_backwards_starts_a_new_epoch() -> None:
    tracker = OffsetTracker()
    first = tracker.start(TP, 10)
    again = tracker.start(TP, 3)
    assert first != again
    assert tracker.in_flight(TP) == 1


def test_in_flight_counts_per_partition_and_total() -> None:
    tracker = OffsetTracker()
    other = ("traces", 1)
    for offset in range(3):
        tracker.start(TP, offset)
    tracker.start(other, 0)
    assert (tracker.in_flight(TP), tracker.in_flight(other), tracker.in_flight()) == (3, 1, 4)
