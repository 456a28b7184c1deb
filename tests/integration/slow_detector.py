"""A redaction detector plug-in (redaction.ner_detector) that makes one stage slow on cue.

A text containing SLOW-STAGE keeps the redaction stage busy in pure Python for a minute,
like a pathological record would; every other text passes at once. Loaded by `citewatch
run` child processes as ``tests.integration.slow_detector:SlowDetector``.
"""

from __future__ import annotations

import time
from typing import Any

CUE = "SLOW-STAGE"
BUSY_SECONDS = 60.0


class SlowDetector:
    name = "slow-test-detector"

    def detect(self, text: str) -> list[Any]:
        if CUE in text:
            until = time.monotonic() + BUSY_SECONDS
            spins = 0
            while time.monotonic() < until:
                spins += 1  # CPU-bound, never yields to the event loop
        return []
