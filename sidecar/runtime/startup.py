"""Start-up that a signal can interrupt: building clients while the broker is unreachable.

kafka-python's constructors block while they bootstrap (tens of seconds against an
unreachable broker) and cannot be interrupted. :func:`build_until_stopped` runs the
constructor in a daemon thread, retries it while the failure is retriable, and returns None
as soon as ``stop`` is set, so SIGTERM during start-up ends the process at once: nothing has
been consumed yet, so nothing is lost. With ``give_up_after`` it stops trying after that many
seconds and raises :class:`TimeoutError` (the CLI exits 2 with one line); without it, it
tries until it succeeds or ``stop`` is set (``--wait-for-kafka``).

The first retriable failure is logged as a warning, the following ones at DEBUG: an
unreachable cluster is one line, not one per attempt.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["StartupAbandoned", "build_until_stopped"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


class StartupAbandoned(Exception):
    """Start-up stopped trying because ``failed`` was set: a failure that waiting cannot
    cure (the caller knows which)."""


def build_until_stopped(
    build: Callable[[], T],
    *,
    stop: threading.Event,
    retriable: Callable[[BaseException], bool],
    retry_seconds: float = 5.0,
    what: str = "clients",
    give_up_after: float | None = None,
    failed: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> T | None:
    """``build()``'s result, or None if ``stop`` is set first.

    A failure for which ``retriable`` is true is retried after ``retry_seconds``; any other
    failure is raised here (bad settings stop start-up). Raises :class:`TimeoutError`,
    naming the last retriable failure's class, when ``give_up_after`` seconds pass without
    a result (a constructor still blocked then is left behind in its daemon thread), and
    :class:`StartupAbandoned` as soon as ``failed`` is set, even with no ``give_up_after``.
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()
    given_up = threading.Event()

    def attempts() -> None:
        try:
            while not stop.is_set() and not given_up.is_set():
                try:
                    value = build()
                except Exception as exc:
                    if not retriable(exc):
                        outcome["error"] = exc
                        return
                    level = logging.DEBUG if "last" in outcome else logging.WARNING
                    outcome["last"] = exc
                    logger.log(
                        level,
                        "cannot build %s (%s); retrying every %.0fs%s",
                        what,
                        type(exc).__name__,
                        retry_seconds,
                        "" if level == logging.DEBUG else " (further attempts are logged at DEBUG)",
                    )
                    stop.wait(retry_seconds)
                else:
                    if given_up.is_set():
                        _close_quietly(value)
                        return
                    outcome["value"] = value
                    return
        finally:
            finished.set()

    started = clock()
    thread = threading.Thread(target=attempts, name=f"citewatch-start-{what}", daemon=True)
    thread.start()
    while not finished.wait(0.1):
        if stop.is_set():
            logger.info("stopped while building %s", what)
            return None
        if failed is not None and failed.is_set():
            given_up.set()
            raise StartupAbandoned(f"{what} not built")
        if give_up_after is not None and clock() - started >= give_up_after:
            given_up.set()
            last = outcome.get("last")
            cause = type(last).__name__ if last is not None else "no answer"
            raise TimeoutError(f"{what} not built within {give_up_after:g}s ({cause})")
    if "error" in outcome:
        raise outcome["error"]
    if stop.is_set() and "value" not in outcome:
        return None
    return outcome.get("value")


def _close_quietly(value: Any) -> None:
    """Close clients built after start-up gave up on them (each item's ``close``)."""
    for item in value if isinstance(value, tuple) else (value,):
        close = getattr(item, "close", None)
        if close is not None:
            try:
                close()
            except Exception as exc:  # nothing depends on it any more
                logger.debug("closing a late client raised %s", type(exc).__name__)
