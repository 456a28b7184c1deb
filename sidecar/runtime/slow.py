"""Watching for records that take too long: logged once, counted, and readiness drops.

Every runtime brackets the evaluation of one record with :meth:`SlowRecords.begin` and
:meth:`SlowRecords.end`. A daemon thread sweeps the records in progress; one older than the
threshold is logged once (its position and trace ID only), counted, and
:meth:`SlowRecords.any_slow` turns true until it finishes, so /readyz answers 503 meanwhile.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SlowRecords"]

logger = logging.getLogger(__name__)

_TRACE_ID_CHARS = 64
"""Characters of a trace ID kept for the log line (a valid one has 32): the watch holds one
entry per record in evaluation, so its bytes are bounded by the records in flight."""


@dataclass(slots=True)
class _InProgress:
    where: str
    started: float
    trace_id: str | None = None
    reported: bool = False


class SlowRecords:
    """Records in evaluation and which of them are slow. Thread-safe.

    ``on_slow`` is called once per record that crosses ``threshold_seconds`` (to count it);
    ``on_change`` with the number of slow records in progress whenever it changes.
    """

    def __init__(
        self,
        *,
        threshold_seconds: float,
        on_slow: Callable[[], None] | None = None,
        on_change: Callable[[int], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold_seconds
        self._on_slow = on_slow
        self._on_change = on_change
        self._clock = clock
        self._lock = threading.Lock()
        self._records: dict[int, _InProgress] = {}
        self._ids = itertools.count(1)
        self._slow_now = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def begin(self, where: str) -> int:
        """A record at ``where`` (e.g. ``rag.traces[0]@42``, ``line 7``) starts; returns a
        token for :meth:`identify` and :meth:`end`."""
        token = next(self._ids)
        with self._lock:
            self._records[token] = _InProgress(where, self._clock())
        return token

    def identify(self, token: int, trace_id: str) -> None:
        """Attach the decoded trace ID to a record in progress."""
        with self._lock:
            record = self._records.get(token)
            if record is not None:
                record.trace_id = trace_id[:_TRACE_ID_CHARS]

    def end(self, token: int) -> None:
        """The record finished (evaluated, dead-lettered or abandoned)."""
        with self._lock:
            record = self._records.pop(token, None)
        if record is not None and record.reported:
            logger.info(
                "slow record %s (trace %s) finished after %.1fs",
                record.where,
                record.trace_id or "unknown",
                self._clock() - record.started,
            )
            self.sweep()

    def sweep(self) -> int:
        """Report records that just became slow; returns how many are slow now."""
        now = self._clock()
        newly: list[_InProgress] = []
        with self._lock:
            slow = 0
            for record in self._records.values():
                if now - record.started < self.threshold:
                    continue
                slow += 1
                if not record.reported:
                    record.reported = True
                    newly.append(record)
            changed = slow != self._slow_now
            self._slow_now = slow
        for record in newly:
            logger.warning(
                "record %s (trace %s) still in evaluation after %.1fs",
                record.where,
                record.trace_id or "unknown",
                now - record.started,
            )
            if self._on_slow is not None:
                self._on_slow()
        if changed and self._on_change is not None:
            self._on_change(slow)
        return slow

    def any_slow(self) -> bool:
        """Whether a record in progress is older than the threshold (sweeps first)."""
        return self.sweep() > 0

    def in_progress(self) -> int:
        """Records between begin() and end()."""
        with self._lock:
            return len(self._records)

    def start(self, interval: float | None = None) -> SlowRecords:
        """Sweep in a daemon thread every ``interval`` seconds (default: a quarter of the
        threshold, at most 1 s); returns self."""
        period = interval if interval is not None else min(1.0, self.threshold / 4)
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(period):
                try:
                    self.sweep()
                except Exception:  # the watch must outlive a faulty callback
                    logger.exception("slow-record sweep failed")

        self._thread = threading.Thread(target=loop, name="citewatch-slow-records", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the sweeping thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
