"""SIGTERM/SIGINT handling: the first signal asks for a graceful stop, a second exits at once."""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

__all__ = ["ShutdownBudget", "ShutdownSignals", "run_until_deadline"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ShutdownBudget:
    """How a signal's shutdown deadline is spent: records in flight get
    :attr:`in_flight_seconds`, the runtime thread is waited for :attr:`runtime_seconds`,
    and the rest is kept for writing what finished, the summary and exiting.

    Only a signal starts this clock; the end of the input is not a shutdown.
    """

    deadline_seconds: float

    @property
    def _margin(self) -> float:
        return min(1.0, self.deadline_seconds / 5)

    @property
    def in_flight_seconds(self) -> float:
        """Seconds records still in evaluation get after the signal."""
        return self.deadline_seconds - 2 * self._margin

    @property
    def runtime_seconds(self) -> float:
        """Seconds the runtime thread is waited for after the signal."""
        return self.deadline_seconds - self._margin


class ShutdownSignals:
    """Installs SIGTERM and SIGINT handlers (main thread only) that set :attr:`event`;
    :attr:`received` is the first signal's number (None before one).

    A second signal ends the process immediately with 128 + the signal number, without
    committing anything: the records in flight are replayed on the next start.
    """

    def __init__(self, event: threading.Event | None = None) -> None:
        self.event = event if event is not None else threading.Event()
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def interrupted(self) -> bool:
        """The first signal was SIGINT (Ctrl-C): the command exits 130 once stopped."""
        return self.received == signal.SIGINT

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            os.write(2, b"citewatch: second signal, exiting now\n")
            os._exit(128 + signum)
        logger.info("signal %d received: stopping gracefully", signum)
        self.received = signum
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


def run_until_deadline(
    target: Callable[[], None],
    *,
    stop: threading.Event,
    deadline_seconds: float,
    name: str = "citewatch-runtime",
) -> bool:
    """Run ``target`` in a daemon thread and wait for it; once ``stop`` is set, wait at most
    ``deadline_seconds`` more. True if ``target`` returned, False if it was abandoned.

    The main thread stays free to honour SIGTERM whatever ``target`` does: a stage busy for
    minutes in one record cannot hold the process past the shutdown deadline. An exception
    raised by ``target`` is raised here.
    """
    failure: list[BaseException] = []

    def run() -> None:
        try:
            target()
        except BaseException as exc:  # handed to the waiting thread
            failure.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    while thread.is_alive() and not stop.is_set():
        thread.join(0.1)
    thread.join(deadline_seconds if thread.is_alive() else None)
    if thread.is_alive():
        logger.warning(
            "shutdown deadline of %.1fs reached with a record still in evaluation", deadline_seconds
        )
        return False
    if failure:
        raise failure[0]
    return True
