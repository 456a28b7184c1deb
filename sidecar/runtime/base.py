"""The shape every runtime of `citewatch run` has: health, readiness, one blocking run."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sidecar.runtime.filesource import FileSummary

__all__ = ["RunResult", "Runtime"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """How one run ended.

    ``started`` is False when ``stop`` came before anything was consumed; ``left_behind``
    is True when a thread is still busy with an abandoned record (everything else is
    written, committed and closed: the caller ends the process without the interpreter's
    teardown, which would wait on that thread); ``summary`` holds a file run's totals;
    ``gave_up`` says why start-up stopped waiting for an unreachable source (nothing was
    consumed; a client constructor may still be blocked in its thread).
    """

    started: bool = True
    left_behind: bool = False
    summary: FileSummary | None = None
    gave_up: str | None = None


class Runtime(Protocol):
    """A source of traces run through the pipeline to its sinks until it ends or ``stop``."""

    def ready(self) -> bool:
        """Whether /readyz says ready (input open, nothing slow)."""
        ...

    def live(self) -> bool:
        """Whether /healthz says alive (the evaluation loop is beating)."""
        ...

    def run(self, stop: threading.Event) -> RunResult:
        """Consume, evaluate and emit until the source ends or ``stop`` is set, then shut
        down within the settings' deadline. Raises :class:`~sidecar.errors.ConfigError`
        when the source cannot be used at all (an unreadable file, bad client settings)."""
        ...
