"""Start-up that a signal can interrupt: building clients while the broker is unreachable.

kafka-python's constructors block while they bootstrap (tens of seconds against an
unreachable broker) and cannot be interrupted. :func:`build_until_stopped` runs the
constructor in a daemon thread, retries it while the failure is retriable, and returns None
as soon as ``stop`` is set, so SIGTERM during start-up ends the process at once: nothing has
been consumed yet, so nothing is lost.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["build_until_stopped"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


def build_until_stopped(
    build: Callable[[], T],
    *,
    stop: threading.Event,
    retriable: Callable[[BaseException], bool],
    retry_seconds: float = 5.0,
    what: str = "clients",
) -> T | None:
    """``build()``'s result, or None if ``stop`` is set first.

    A failure for which ``retriable`` is true is logged and retried after ``retry_seconds``;
    any other failure is raised here (bad settings stop start-up).
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def attempts() -> None:
        try:
            while not stop.is_set():
                try:
                    outcome["value"] = build()
                    return
                except Exception as exc:
                    if not retriable(exc):
                        outcome["error"] = exc
                        return
                    logger.warning("cannot build %s (%s); retrying in %.0fs", what,
                                   type(exc).__name__, retry_seconds)
                    stop.wait(retry_seconds)
        finally:
            finished.set()

    thread = threading.Thread(target=attempts, name=f"citewatch-start-{what}", daemon=True)
    thread.start()
    while not finished.wait(0.1):
        if stop.is_set():
            logger.info("stopped while building %s", what)
            return None
    if "error" in outcome:
        raise outcome["error"]
    if stop.is_set() and "value" not in outcome:
        return None
    return outcome.get("value")
