"""The progress bar of `citewatch run --input`: lines finished against the lines of the file,
on stderr, as `citewatch check` shows it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

__all__ = ["PROGRESS_MIN_LINES", "LineProgress", "count_lines"]

PROGRESS_MIN_LINES = 2000
"""Files with more lines than this show a progress bar unless told not to."""


def count_lines(path: str) -> int:
    """The lines of the file at ``path`` (its size in lines, blank ones included)."""
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


class LineProgress:
    """A bar of the lines finished (``total`` when the input's size is known), shown on
    stderr while :meth:`shown` lasts; called with each finished line's number from any
    thread. Off, it shows nothing and costs a call."""

    def __init__(self, *, total: int | None, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled
        self._bar: Progress | None = None
        self._task: Any = None

    def __call__(self, line: int) -> None:
        bar = self._bar
        if bar is not None:
            bar.update(self._task, completed=line)

    @contextmanager
    def shown(self) -> Iterator[None]:
        """Show the bar (when enabled) until the block ends; it is removed then."""
        if not self.enabled:
            yield
            return
        columns = (
            *Progress.get_default_columns()[:1],
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
            self._task = bar.add_task("evaluating", total=self.total or None)
            self._bar = bar
            try:
                yield
            finally:
                self._bar = None
