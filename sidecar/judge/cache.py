"""A bounded in-memory LRU cache of checked claim verdicts.

Keys are :func:`sidecar.judge.packet.cache_key` hashes (rubric version, judge model, claim
text, cited passage texts), so a change of any of them misses.
"""

from __future__ import annotations

from collections import OrderedDict

from sidecar.scoring import ClaimVerdict

__all__ = ["VerdictCache"]


class VerdictCache:
    """Least-recently-used verdicts, at most ``max_size`` (0 disables caching)."""

    def __init__(self, max_size: int) -> None:
        self._max_size = max_size
        self._items: OrderedDict[str, ClaimVerdict] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> ClaimVerdict | None:
        """The cached verdict, refreshed as most recently used; counts hits and misses."""
        verdict = self._items.get(key)
        if verdict is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return verdict

    def put(self, key: str, verdict: ClaimVerdict) -> None:
        """Store a verdict, evicting the least recently used beyond the bound."""
        if self._max_size <= 0:
            return
        self._items[key] = verdict
        self._items.move_to_end(key)
        while len(self._items) > self._max_size:
            self._items.popitem(last=False)
