"""A bounded window of recently counted trace_ids, so replays are not counted twice."""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["RecentIds"]


class RecentIds:
    """The last ``capacity`` trace_ids added, oldest forgotten first. Thread-safe.

    A capacity of 0 remembers nothing (every trace counts).
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError("capacity must be >= 0")
        self._capacity = capacity
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, trace_id: object) -> bool:
        with self._lock:
            return trace_id in self._ids

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids)

    def add(self, trace_id: str) -> bool:
        """Remember ``trace_id``; False if it was already in the window (a duplicate)."""
        if self._capacity == 0:
            return True
        with self._lock:
            if trace_id in self._ids:
                self._ids.move_to_end(trace_id)
                return False
            self._ids[trace_id] = None
            if len(self._ids) > self._capacity:
                self._ids.popitem(last=False)
            return True
