"""A bounded in-memory LRU cache of checked claim verdicts.

Keys are :func:`sidecar.judge.packet.cache_key` hashes (rubric version, judge model, claim
text, cited passage texts), so a change of any of them misses.

The cache is bounded twice: by entries (``judge.cache_size``) and by bytes
(``judge.cache_max_bytes``), the bytes of an entry estimated from what it holds. A verdict's
reason and evidence quote are stored cut to ``judge.cache_text_chars`` characters (ending in
" [truncated]"), so one judge reply of megabytes cannot fill it; the checks on the quote
(found, inside an injection span) were made on the whole quote before it was stored, and
their flags are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from sidecar.judge._memory import ENTRY_OVERHEAD_BYTES, clip_text, sizeof
from sidecar.scoring import ClaimVerdict

__all__ = ["VerdictCache"]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_TEXT_CHARS = 2_048
_PAIR_BYTES = sizeof((None, None)) + sizeof(2**40)
"""The (verdict, size) pair each entry keeps."""


def _entry_bytes(key: str, verdict: ClaimVerdict) -> int:
    return (
        sizeof(key)
        + sizeof(verdict)
        + sizeof(verdict.reason)
        + sizeof(verdict.evidence_quote)
        + _PAIR_BYTES
        + ENTRY_OVERHEAD_BYTES
    )


class VerdictCache:
    """Least-recently-used verdicts, at most ``max_size`` of them and about ``max_bytes``
    bytes (either 0 disables caching)."""

    def __init__(
        self,
        max_size: int,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        text_chars: int = DEFAULT_TEXT_CHARS,
    ) -> None:
        self._max_size = max_size
        self._max_bytes = max_bytes
        self._text_chars = text_chars
        self._items: OrderedDict[str, tuple[ClaimVerdict, int]] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def bytes(self) -> int:
        """Estimated bytes held by the cached entries (at most ``max_bytes``)."""
        return self._bytes

    def get(self, key: str) -> ClaimVerdict | None:
        """The cached verdict, refreshed as most recently used; counts hits and misses."""
        entry = self._items.get(key)
        if entry is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return entry[0]

    def put(self, key: str, verdict: ClaimVerdict) -> None:
        """Store a verdict (its reason and quote cut to the text bound), evicting the least
        recently used beyond the bounds."""
        if self._max_size <= 0 or self._max_bytes <= 0:
            return
        stored = verdict
        if len(verdict.reason) > self._text_chars or len(verdict.evidence_quote) > self._text_chars:
            stored = replace(
                verdict,
                reason=clip_text(verdict.reason, self._text_chars),
                evidence_quote=clip_text(verdict.evidence_quote, self._text_chars),
            )
        size = _entry_bytes(key, stored)
        if size > self._max_bytes:
            return
        previous = self._items.pop(key, None)
        if previous is not None:
            self._bytes -= previous[1]
        self._items[key] = (stored, size)
        self._bytes += size
        while len(self._items) > self._max_size or self._bytes > self._max_bytes:
            _, (_, evicted) = self._items.popitem(last=False)
            self._bytes -= evicted
