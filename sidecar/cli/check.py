"""`citewatch check`: evaluate a JSON Lines file of traces offline."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import IO, Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.cli._common import (
    EXIT_JUDGE_FAILED,
    CliError,
    config_option,
    input_format_option,
    one_line_errors,
    open_output,
    output_option,
    settings_from,
)
from sidecar.cli._summary import JudgeTally
from sidecar.decode import DecodeLimits
from sidecar.inputs import LINE_FORMATS
from sidecar.judge import JUDGE_CHOICES
from sidecar.runtime.guard import Evaluated, Failure, evaluate_raw
from sidecar.runtime.lines import LineSource
from sidecar.runtime.ordered import Outcome, evaluate_in_order

__all__ = ["check_command", "CheckSummary"]

PROGRESS_MIN_LINES = 2000
_FLAG_SETTINGS = {"judge_backend": "judge.backend", "sample_rate": "sampling.rate",
                  "input_format": "input.format"}


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


class _CheckSink:
    """Evaluation records to the output stream, bad lines to stderr, both in line order."""

    def __init__(self, summary: CheckSummary, out: IO[str], err: Console,
                 progress: Callable[[int], None]) -> None:
        self.summary = summary
        self.out = out
        self.err = err
        self.progress = progress

    def write(self, position: int, outcome: Outcome) -> None:
        if isinstance(outcome, Failure):
            self.summary.bad[outcome.reason] += 1
            self.err.print(f"line {position}: {outcome.reason}: {outcome.message}",
                           markup=False, highlight=False)
        elif isinstance(outcome, Evaluated):
            self.summary.add(outcome.record)
            self.out.write(outcome.payload.decode("utf-8") + "\n")
        self.progress(position)

    def flush(self) -> None:
        self.out.flush()


def _render_summary(console: Console, summary: CheckSummary, judge: JudgeTally) -> None:
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
    for measure, value in judge.rows():
        table.add_row(measure, value)
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
@output_option("out_path", type=click.Path(dir_okay=False, allow_dash=True), default="-",
               show_default=True, help="Where evaluation records go (JSON Lines); the file "
               "is replaced unless --append.")
@click.option("--append", is_flag=True, help="Append to --output instead of replacing it.")
@click.option("--concurrency", type=click.IntRange(1, 4096), default=None,
              help="Traces evaluated at once (matters with a judge; keep it at least twice "
                   "judge.concurrency) [default: input.concurrency from the settings, 64].")
@click.option("--progress/--no-progress", default=None,
              help=f"Progress bar; on by default for files over {PROGRESS_MIN_LINES} lines.")
@click.option("--judge", "judge_backend",
              type=click.Choice(JUDGE_CHOICES),
              default=None, help="Judge backend (default: lexical, the offline screen; an API "
              "key alone never selects an LLM judge).")
@click.option("--sample-rate", "sample_rate", type=click.FloatRange(0.0, 1.0), default=None,
              help="Base share of traces the judge sees, by a hash of trace_id.")
@input_format_option
@config_option
@one_line_errors
def check_command(source: str, out_path: str, append: bool, concurrency: int | None,
                  progress: bool | None, config_file: str | None, **judge_flags: Any) -> None:
    """Evaluate JSON Lines traces from FILE (or - for stdin) without Kafka.

    Writes one evaluation record per trace, prints a summary table to stderr (with what
    the judge did), and reports each bad line with its number and reason.

    Exit codes: 0 done; 2 usage error, bad settings or unreadable input; 3 the judge failed
    on every trace it was asked about (the first failure's cause is printed).

    \b
    Examples:
      citewatch check examples/traces.jsonl --output evaluations.jsonl
      citewatch check traces.jsonl --judge openai-chat --sample-rate 1 --config judge.yaml
      producer | citewatch check - > evaluations.jsonl
    """
    settings = settings_from(config_file,
                             {_FLAG_SETTINGS.get(k, k): v for k, v in judge_flags.items()})
    if settings.input.format not in LINE_FORMATS:
        raise CliError(f"{settings.input.format} records are read from Kafka only (a file of "
                       "lines cannot hold protobuf); use otlp_json for files")
    tally = JudgeTally()
    pipeline = build_pipeline(settings, on_record=tally.add)
    err = Console(stderr=True)
    summary = CheckSummary()
    total = _count_lines(source) if source != "-" else 0
    show_progress = progress if progress is not None else total > PROGRESS_MIN_LINES

    in_stream: IO[bytes] = sys.stdin.buffer if source == "-" else open(source, "rb")
    out_stream: IO[str] = sys.stdout if out_path == "-" else open_output(out_path, append=append)

    limits = DecodeLimits.from_settings(settings)

    async def run(progress_bar: Progress | None, task_id: Any) -> None:
        async def records() -> AsyncGenerator[tuple[int, bytes], None]:
            async for number, line in LineSource(in_stream).records():
                summary.lines = number
                yield number, line

        def progress(number: int) -> None:
            if progress_bar is not None:
                progress_bar.update(task_id, completed=number)

        sink = _CheckSink(summary, out_stream, err, progress)
        await evaluate_in_order(records(),
                                lambda _, value: evaluate_raw(pipeline, value, limits),
                                sink, concurrency=concurrency or settings.input.concurrency)
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
        if in_stream is not sys.stdin.buffer:
            in_stream.close()
        if out_stream is not sys.stdout:
            out_stream.close()
        else:
            out_stream.flush()
    _render_summary(err, summary, tally)
    cause = tally.cause(settings)
    if cause is not None:
        err.print(cause, markup=False, highlight=False, soft_wrap=True)
    if tally.all_failed:
        raise SystemExit(EXIT_JUDGE_FAILED)
