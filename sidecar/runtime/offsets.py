"""Completion tracking for at-least-once commits when records finish out of order.

Records of one partition are started in offset order but may finish in any order (a judged
trace takes seconds, a dead letter milliseconds). The committable position of a partition is
offset+1 of the highest record such that it and every record started before it have finished.
Used from the poll thread only: it takes no locks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

__all__ = ["OffsetTracker", "PartitionState"]


@dataclass
class PartitionState:
    """Offsets of one partition between the last commit and the newest started record."""

    epoch: int
    pending: deque[int] = field(default_factory=deque)
    done: set[int] = field(default_factory=set)
    position: int | None = None
    """Offset+1 of the highest contiguous finished record (what to commit next)."""
    committed: int | None = None
    """The last position committed."""

    def advance(self) -> None:
        while self.pending and self.pending[0] in self.done:
            offset = self.pending.popleft()
            self.done.discard(offset)
            self.position = offset + 1


class OffsetTracker:
    """Tracks started and finished offsets per partition.

    Each partition carries an ``epoch`` that changes when the partition is dropped (revoked,
    lost) or re-seeked; :meth:`start` returns it and :meth:`finish` ignores completions of an
    older epoch, so work started before a rebalance can never move a newer position.
    """

    def __init__(self) -> None:
        self._parts: dict[Hashable, PartitionState] = {}
        self._epochs = 0

    def _new_state(self) -> PartitionState:
        self._epochs += 1
        return PartitionState(epoch=self._epochs)

    def start(self, tp: Hashable, offset: int) -> int:
        """Record that ``offset`` of ``tp`` is being processed; returns the epoch to pass
        back to :meth:`finish`. An offset at or below the newest started one means the
        partition was re-seeked: its state starts afresh."""
        state = self._parts.get(tp)
        if (
            state is None
            or (state.pending and offset <= state.pending[-1])
            or (state.position is not None and offset < state.position)
        ):
            state = self._new_state()
            self._parts[tp] = state
        state.pending.append(offset)
        return state.epoch

    def finish(self, tp: Hashable, offset: int, epoch: int) -> bool:
        """Record that ``offset`` finished; False if it belongs to a dropped epoch."""
        state = self._parts.get(tp)
        if state is None or state.epoch != epoch:
            return False
        state.done.add(offset)
        state.advance()
        return True

    def committable(self) -> dict[Hashable, int]:
        """Positions that moved since they were last committed."""
        return {
            tp: state.position
            for tp, state in self._parts.items()
            if state.position is not None and state.position != state.committed
        }

    def mark_committed(self, positions: dict[Hashable, int]) -> None:
        """Remember that ``positions`` were committed (only if the epoch is unchanged is up
        to the caller: a dropped partition simply ignores it)."""
        for tp, position in positions.items():
            state = self._parts.get(tp)
            if state is not None:
                state.committed = position

    def drop(self, tps: Iterable[Hashable]) -> dict[Hashable, int]:
        """Forget partitions (revoked or lost): their in-flight completions are ignored.

        Returns, for each dropped partition with unfinished records, the first unfinished
        offset: where consumption must restart if the partition comes back with its fetch
        position kept (kafka-python 3.x keeps it for partitions in both assignments).
        """
        resume: dict[Hashable, int] = {}
        for tp in tps:
            state = self._parts.pop(tp, None)
            if state is not None and state.pending:
                resume[tp] = state.pending[0]
        return resume

    def in_flight(self, tp: Hashable | None = None) -> int:
        """Records started and not yet committable, for one partition or all."""
        if tp is not None:
            state = self._parts.get(tp)
            return len(state.pending) if state is not None else 0
        return sum(len(state.pending) for state in self._parts.values())

    def partitions(self) -> list[Hashable]:
        """Partitions with tracked state."""
        return list(self._parts)

    def epoch(self, tp: Hashable) -> int | None:
        """The current epoch of ``tp``, or None if it is not tracked."""
        state = self._parts.get(tp)
        return state.epoch if state is not None else None
