"""SIGTERM/SIGINT handling: the first signal asks for a graceful stop, a second exits at once."""

from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType
from typing import Any

__all__ = ["ShutdownSignals"]

logger = logging.getLogger(__name__)


class ShutdownSignals:
    """Installs SIGTERM and SIGINT handlers (main thread only) that set :attr:`event`.

    A second signal ends the process immediately with 128 + the signal number, without
    committing anything: the records in flight are replayed on the next start.
    """

    def __init__(self, event: threading.Event | None = None) -> None:
        self.event = event if event is not None else threading.Event()
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            os.write(2, b"citewatch: second signal, exiting now\n")
            os._exit(128 + signum)
        logger.info("signal %d received: stopping gracefully", signum)
        self.event.set()

    def install(self) -> ShutdownSignals:
        """Install the handlers; returns self."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def restore(self) -> None:
        """Put the previous handlers back."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
