"""The progress bar of `citewatch check` and `citewatch run --input`: lines finished against
the lines of the file, on stderr."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

__all__ = ["PROGRESS_MIN_LINES", "LineProgress", "count_lines", "shown_by_default"]

PROGRESS_MIN_LINES = 2000
"""Files with more lines than this show a progress bar unless told not to."""
_MOVE_SECONDS = 0.1
"""How often the bar moves: rich redraws it ten times a second, no more often."""


def count_lines(path: str) -> int:
    """The lines of the file at ``path`` (its size in lines, blank ones included)."""
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def shown_by_default(total: int | None) -> bool:
    """Whether the bar shows unasked for a file of ``total`` lines: a large file, and stderr
    a terminal (a bar drawn into a pipe or a log is work per record that shows nothing)."""
    return total is not None and total > PROGRESS_MIN_LINES and sys.stderr.isatty()


class LineProgress:
    """A bar of the lines finished (``total`` when the input's size is known), shown on
    stderr while :meth:`shown` lasts; called with each finished line's number from any
    thread. Off, it shows nothing and costs a call."""

    def __init__(
        self, *, total: int | None, enabled: bool, description: str = "evaluating"
    ) -> None:
        self.total = total
        self.enabled = enabled
        self.description = description
        self._bar: Progress | None = None
        self._task: Any = None
        self._moved = 0.0  # when the bar last moved

    def __call__(self, line: int) -> None:
        bar = self._bar
        if bar is None:
            return
        now = time.monotonic()
        if now - self._moved >= _MOVE_SECONDS:
            self._moved = now
            bar.update(self._task, completed=line)

    @contextmanager
    def shown(self, console: Console | None = None) -> Iterator[None]:
        """Show the bar (when enabled) on ``console`` (stderr's by default) until the block
        ends; it is removed then."""
        if not self.enabled:
            yield
            return
        # Imported only when a bar is shown: most commands over small files never need it.
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        columns = (
            *Progress.get_default_columns()[:1],
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        console = console if console is not None else Console(stderr=True)
        with Progress(*columns, console=console, transient=True) as bar:
            self._task = bar.add_task(self.description, total=self.total or None)
            self._bar = bar
            try:
                yield
            finally:
                self._bar = None
