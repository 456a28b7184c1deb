"""`citewatch check`: evaluate a JSON Lines file of traces offline."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from schemas import EvaluationRecord
from sidecar._cli_common import config_option, one_line_errors, settings_from
from sidecar.assembly import build_pipeline
from sidecar.decode import decode_trace
from sidecar.errors import TraceError
from sidecar.judge import JUDGE_CHOICES
from sidecar.pipeline import Pipeline

__all__ = ["check_command", "CheckSummary", "iter_lines"]

PROGRESS_MIN_LINES = 2000
_FLAG_SETTINGS = {"judge_backend": "judge.backend", "sample_rate": "sampling.rate"}


@dataclass
class CheckSummary:
    """Totals printed after a run of `citewatch check`."""

    lines: int = 0
    evaluated: int = 0
    bad: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)
    critical: Counter[str] = field(default_factory=Counter)
    judged: int = 0
    validity_sum: float = 0.0
    correctness: list[float] = field(default_factory=list)
    completeness: list[float] = field(default_factory=list)

    def add(self, record: EvaluationRecord) -> None:
        self.evaluated += 1
        self.validity_sum += record.scores.validity
        for finding in record.findings:
            self.findings[finding.code] += 1
        for claim in record.claims:
            if claim.critical_reason:
                self.critical[claim.critical_reason] += 1
        if record.judged:
            self.judged += 1
            if record.scores.correctness is not None:
                self.correctness.append(record.scores.correctness)
            if record.scores.completeness is not None:
                self.completeness.append(record.scores.completeness)


def iter_lines(stream: IO[str]) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based line numbers."""
    for number, line in enumerate(stream, start=1):
        if line.strip():
            yield number, line


async def _evaluate_in_order(
    pipeline: Pipeline,
    lines: Iterator[tuple[int, str]],
    *,
    concurrency: int,
    max_bytes: int,
    max_depth: int,
) -> AsyncIterator[tuple[int, EvaluationRecord | TraceError]]:
    window: list[tuple[int, asyncio.Task[EvaluationRecord] | TraceError]] = []
    for number, line in lines:
        try:
            trace = decode_trace(line, max_bytes=max_bytes, max_depth=max_depth)
        except TraceError as exc:
            window.append((number, exc))
        else:
            window.append((number, asyncio.ensure_future(pipeline.evaluate(trace))))
        while len(window) > concurrency or (window and not isinstance(window[0][1], asyncio.Task)):
            head_number, head = window.pop(0)
            yield head_number, (await head if isinstance(head, asyncio.Task) else head)
    for number, item in window:
        yield number, (await item if isinstance(item, asyncio.Task) else item)


def _render_summary(console: Console, summary: CheckSummary) -> None:
    table = Table(title="citewatch check", show_header=True, header_style="bold")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("lines read", str(summary.lines))
    table.add_row("traces evaluated", str(summary.evaluated))
    table.add_row("bad lines", str(sum(summary.bad.values())))
    for reason, count in sorted(summary.bad.items()):
        table.add_row(f"  bad: {reason}", str(count))
    mean_validity = summary.validity_sum / summary.evaluated if summary.evaluated else 0.0
    table.add_row("mean citation validity", f"{mean_validity:.4f}")
    table.add_row("traces judged", str(summary.judged))
    for name, values in (("correctness", summary.correctness),
                         ("completeness", summary.completeness)):
        shown = f"{sum(values) / len(values):.4f}" if values else "not judged"
        table.add_row(f"mean {name}", shown)
    table.add_row("critical unsupported claims", str(sum(summary.critical.values())))
    for reason, count in sorted(summary.critical.items()):
        table.add_row(f"  critical: {reason}", str(count))
    for code, count in sorted(summary.findings.items()):
        table.add_row(f"finding: {code}", str(count))
    console.print(table)


def _count_lines(path: str) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


@click.command("check")
@click.argument("source", metavar="FILE|-",
                type=click.Path(exists=True, allow_dash=True, dir_okay=False))
@click.option("--out", "out_path", type=click.Path(dir_okay=False, allow_dash=True),
              default="-", show_default=True, help="Where evaluation records go (JSON Lines).")
@click.option("--concurrency", type=click.IntRange(1, 1024), default=16, show_default=True,
              help="Traces evaluated at once (matters with a judge).")
@click.option("--progress/--no-progress", default=None,
              help=f"Progress bar; on by default for files over {PROGRESS_MIN_LINES} lines.")
@click.option("--judge", "judge_backend",
              type=click.Choice(JUDGE_CHOICES),
              default=None, help="Judge backend (default: openai-responses with an API key, "
              "else lexical).")
@click.option("--sample-rate", "sample_rate", type=click.FloatRange(0.0, 1.0), default=None,
              help="Base share of traces the judge sees, by a hash of trace_id.")
@config_option
@one_line_errors
def check_command(source: str, out_path: str, concurrency: int, progress: bool | None,
                  config_file: str | None, **judge_flags: Any) -> None:
    """Evaluate JSON Lines traces from FILE (or - for stdin) without Kafka.

    Writes one evaluation record per trace, prints a summary table to stderr, and reports
    each bad line with its number and reason. Exits non-zero only on usage errors.
    """
    settings = settings_from(config_file,
                             {_FLAG_SETTINGS.get(k, k): v for k, v in judge_flags.items()})
    pipeline = build_pipeline(settings)
    err = Console(stderr=True)
    summary = CheckSummary()
    total = _count_lines(source) if source != "-" else 0
    show_progress = progress if progress is not None else total > PROGRESS_MIN_LINES

    in_stream: IO[str] = (sys.stdin if source == "-"
                          else open(source, encoding="utf-8", errors="surrogateescape"))
    out_stream: IO[str] = sys.stdout if out_path == "-" else open(out_path, "w", encoding="utf-8")

    async def run(progress_bar: Progress | None, task_id: Any) -> None:
        def counted() -> Iterator[tuple[int, str]]:
            for number, line in iter_lines(in_stream):
                summary.lines = number
                yield number, line

        async for number, outcome in _evaluate_in_order(
            pipeline, counted(), concurrency=concurrency,
            max_bytes=settings.checks.max_record_bytes, max_depth=settings.checks.max_json_depth,
        ):
            if isinstance(outcome, TraceError):
                summary.bad[outcome.reason] += 1
                err.print(f"line {number}: {outcome.reason}: {outcome}", markup=False,
                          highlight=False)
            else:
                summary.add(outcome)
                out_stream.write(outcome.model_dump_json() + "\n")
            if progress_bar is not None:
                progress_bar.update(task_id, completed=number)
        if pipeline.judge is not None:
            await pipeline.judge.aclose(5.0)

    try:
        if show_progress:
            columns = (*Progress.get_default_columns()[:1], BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn())
            with Progress(*columns, console=err, transient=True) as bar:
                task_id = bar.add_task("checking", total=total or None)
                asyncio.run(run(bar, task_id))
        else:
            asyncio.run(run(None, None))
    finally:
        if in_stream is not sys.stdin:
            in_stream.close()
        if out_stream is not sys.stdout:
            out_stream.close()
        else:
            out_stream.flush()
    _render_summary(err, summary)
