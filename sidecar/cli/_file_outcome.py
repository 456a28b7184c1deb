"""How a `citewatch run --input` ended: its summary table, why it stopped short, its exit code."""

from __future__ import annotations

import click
from rich.console import Console

from sidecar._userinfo import mask_userinfo
from sidecar.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_JUDGE_FAILED,
    EXIT_OK,
    EXIT_USAGE,
)
from sidecar.cli._no_traces import formats_reading, no_traces_message
from sidecar.cli._quality import QualityTally, print_summary
from sidecar.cli._summary import JudgeTally
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.runtime import FileSummary
from sidecar.runtime.shutdown import ShutdownBudget

__all__ = ["file_outcome"]


def file_outcome(
    settings: Settings,
    summary: FileSummary,
    quality: QualityTally,
    tally: JudgeTally,
    *,
    left_behind: bool,
    interrupted: bool,
    ended: bool,
) -> int:
    """Print the summary table of a file run (and why it stopped short); its exit code.
    ``ended``: the input ended (rather than a signal stopping the run); with no trace in
    it, that is exit 2, and an earlier output was left as it was."""
    s = summary
    abandoned = (
        max(1, s.lines - s.evaluated - s.dead_lettered - s.duplicates)
        if left_behind
        else s.abandoned
    )
    totals = [
        ("lines read", str(s.lines)),
        ("traces evaluated", str(s.evaluated)),
        ("dead-lettered", str(s.dead_lettered)),
        ("duplicates", str(s.duplicates)),
    ]
    if abandoned:
        totals.append(("abandoned", str(abandoned)))
    print_summary(
        Console(stderr=True),
        "citewatch run",
        totals,
        quality,
        tally,
        records_in=settings.input.output or "-",
    )
    cause = tally.cause(settings)
    if cause is not None:
        click.echo(cause, err=True)
    if abandoned:
        budget = ShutdownBudget(settings.runtime.shutdown_deadline_seconds)
        click.echo(
            f"Error: stopped by a signal: {abandoned} line(s) read but not written "
            f"(still in evaluation {budget.in_flight_seconds:g}s after the signal, or "
            f"waiting behind one that was; shutdown deadline "
            f"{budget.deadline_seconds:g}s)",
            err=True,
        )
        return EXIT_INTERRUPTED if interrupted else EXIT_FAILED
    if interrupted:
        click.echo(
            f"citewatch run: stopped by Ctrl-C after line {s.lines}; every record read was written",
            err=True,
        )
        return EXIT_INTERRUPTED
    if ended and s.evaluated == 0 and s.duplicates == 0:
        path = settings.input.path or "-"
        output = settings.input.output
        message = no_traces_message(
            "standard input" if path == "-" else path,
            bad=s.bad,
            readers=formats_reading(s.samples, DecodeLimits.from_settings(settings)),
            kept=None if output in (None, "-") else output,
        )
        click.echo(f"Error: {mask_userinfo(message)}", err=True)
        return EXIT_USAGE
    return EXIT_JUDGE_FAILED if tally.all_failed else EXIT_OK
