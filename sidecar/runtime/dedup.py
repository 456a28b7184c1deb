"""A bounded window of recently counted trace_ids, so replays are not counted twice."""

from __future__ import annotations

import threading
from collections import OrderedDict

from sidecar.judge._memory import ENTRY_OVERHEAD_BYTES, sizeof

__all__ = ["DEFAULT_MAX_BYTES", "RecentIds"]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class RecentIds:
    """The last trace_ids added, oldest forgotten first. Thread-safe.

    At most ``capacity`` of them and about ``max_bytes`` bytes (each id counted by its own
    size and the window's slot: about 190 bytes for 32 hex digits). A capacity of 0
    remembers nothing (every trace counts).
    """

    def __init__(self, capacity: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if capacity < 0:
            raise ValueError("capacity must be >= 0")
        if max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        self._capacity = capacity
        self._max_bytes = max_bytes
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __contains__(self, trace_id: object) -> bool:
        with self._lock:
            return trace_id in self._ids

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids)

    @property
    def bytes(self) -> int:
        """Estimated bytes held by the window (at most ``max_bytes``)."""
        return self._bytes

    def add(self, trace_id: str) -> bool:
        """Remember ``trace_id``; False if it was already in the window (a duplicate)."""
        if self._capacity == 0:
            return True
        with self._lock:
            if trace_id in self._ids:
                self._ids.move_to_end(trace_id)
                return False
            self._ids[trace_id] = None
            self._bytes += _entry_bytes(trace_id)
            while self._ids and (len(self._ids) > self._capacity or self._bytes > self._max_bytes):
                forgotten, _ = self._ids.popitem(last=False)
                self._bytes -= _entry_bytes(forgotten)
            return True


def _entry_bytes(trace_id: str) -> int:
    return sizeof(trace_id) + ENTRY_OVERHEAD_BYTES
