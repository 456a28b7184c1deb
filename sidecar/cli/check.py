"""`citewatch check`: evaluate a JSON Lines file of traces offline."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import IO, Any

import click
from rich.console import Console

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.cli._common import (
    EXIT_JUDGE_FAILED,
    CliError,
    config_option,
    exit_now,
    input_format_option,
    one_line_errors,
    open_output,
    output_option,
    settings_from,
)
from sidecar.cli._no_traces import (
    SAMPLE_LINES,
    SAMPLED_REASONS,
    formats_reading,
    no_traces_message,
)
from sidecar.cli._progress import (
    PROGRESS_MIN_LINES,
    LineProgress,
    count_lines,
    shown_by_default,
)
from sidecar.cli._quality import QualityTally, print_summary
from sidecar.cli._summary import JudgeTally
from sidecar.decode import DecodeLimits
from sidecar.inputs import LINE_FORMATS
from sidecar.judge import JUDGE_CHOICES
from sidecar.runtime.guard import Evaluated, Failure, evaluate_raw
from sidecar.runtime.lines import LineSource
from sidecar.runtime.ordered import Outcome, evaluate_in_order
from sidecar.runtime.records import evaluates_inline
from sidecar.runtime.shutdown import ShutdownSignals, run_until_deadline

__all__ = ["check_command", "CheckSummary"]

_CLOSE_SECONDS = 5.0
_INTERRUPTED_CLOSE_SECONDS = 1.0
_INTERRUPTED_SECONDS = 3.0
"""After a signal: how long the evaluation may take to unwind (records in flight are
cancelled at once, what finished is written) before the command exits without it."""
_FLAG_SETTINGS = {
    "judge_backend": "judge.backend",
    "sample_rate": "sampling.rate",
    "input_format": "input.format",
}


@dataclass
class CheckSummary:
    """Totals printed after a run of `citewatch check`: lines read, records written and bad
    lines; :attr:`quality` counts what the written records say."""

    lines: int = 0
    records: int = 0
    evaluated: int = 0
    bad: Counter[str] = field(default_factory=Counter)
    quality: QualityTally = field(default_factory=QualityTally)
    first_lines: dict[int, bytes] = field(default_factory=dict)
    """The first few lines read, by number: another input format is tried on those that
    turn out bad when no line is a trace."""
    samples: list[bytes] = field(default_factory=list)

    def add(self, record: EvaluationRecord) -> None:
        self.evaluated += 1
        self.quality.add(record)

    def totals(self) -> list[tuple[str, str]]:
        """The command's own rows of the summary table."""
        rows = [
            ("lines read", str(self.lines)),
            ("traces evaluated", str(self.evaluated)),
            ("bad lines", str(sum(self.bad.values()))),
        ]
        rows += [(f"  bad: {reason}", str(n)) for reason, n in sorted(self.bad.items())]
        return rows


class _Output:
    """Where records go: stdout, or a file opened at the first record written (replaced
    unless ``append``), so an input without a trace leaves an earlier output as it was.
    Records are written in batches of whole lines, at most :data:`_FLUSH_SECONDS` apart (a
    flush per record cost about a sixth of a record's evaluation), each batch decoded from
    the records' UTF-8 JSON at once: whatever stops the command, the file holds complete
    lines, and :meth:`flush` writes out what is pending."""

    def __init__(self, path: str, *, append: bool) -> None:
        self.path = path
        self.append = append
        self._pending: list[bytes] = []
        self._flushed = time.monotonic()
        self.stream: IO[str] | None = sys.stdout if path == "-" else None
        if self.stream is None:
            existed = os.path.exists(path)
            open_output(path, append=True).close()  # fail now, not after the evaluation
            if not existed:
                os.remove(path)

    def open(self) -> IO[str]:
        if self.stream is None:
            self.stream = open_output(self.path, append=self.append)
        return self.stream

    def write(self, payload: bytes) -> None:
        """Write one record's JSON (without its line end)."""
        self._pending.append(payload)
        if time.monotonic() - self._flushed >= _FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        self._flushed = time.monotonic()
        if not self._pending and self.stream is None:
            return
        stream = self.open()
        pending, self._pending = self._pending, []
        if pending:
            stream.write((b"\n".join(pending) + b"\n").decode("utf-8"))
        stream.flush()

    def close(self) -> None:
        self.flush()
        stream = self.stream
        if stream is None:
            return
        if stream is sys.stdout:
            stream.flush()
        else:
            stream.close()


_FLUSH_SECONDS = 0.2
"""How long a written record may wait in memory before it reaches the output."""


class _CheckSink:
    """Evaluation records to the output, bad lines to stderr, both in line order."""

    def __init__(
        self,
        summary: CheckSummary,
        out: _Output,
        err: Console,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.summary = summary
        self.out = out
        self.err = err
        self.progress = progress

    def write(self, position: int, outcome: Outcome) -> None:
        first = self.summary.first_lines.pop(position, None)
        if isinstance(outcome, Failure):
            self.summary.bad[outcome.reason] += 1
            if first is not None and outcome.reason in SAMPLED_REASONS:
                self.summary.samples.append(first)
            self.err.print(
                f"line {position}: {outcome.reason}: {outcome.message}",
                markup=False,
                highlight=False,
            )
        elif isinstance(outcome, Evaluated):
            self.out.write(outcome.payload)
            self.summary.add(outcome.record)
        if self.progress is not None:
            self.progress(position)

    def flush(self) -> None:
        self.out.flush()


@click.command("check")
@click.argument(
    "source", metavar="FILE|-", type=click.Path(exists=True, allow_dash=True, dir_okay=False)
)
@output_option(
    "out_path",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    show_default=True,
    help="Where evaluation records go (JSON Lines); the file is replaced unless --append.",
)
@click.option("--append", is_flag=True, help="Append to --output instead of replacing it.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 4096),
    default=None,
    help="Traces evaluated at once (matters with a judge; keep it at least twice "
    "judge.concurrency) [default: input.concurrency from the settings, 64].",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help=f"Progress bar; on by default for files over {PROGRESS_MIN_LINES} lines when stderr "
    "is a terminal.",
)
@click.option(
    "--judge",
    "judge_backend",
    type=click.Choice(JUDGE_CHOICES),
    default=None,
    help="Judge backend (default: lexical, the offline screen; an API "
    "key alone never selects an LLM judge).",
)
@click.option(
    "--sample-rate",
    "sample_rate",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Base share of traces the judge sees, by a hash of trace_id.",
)
@input_format_option
@config_option
@one_line_errors
def check_command(
    source: str,
    out_path: str,
    append: bool,
    concurrency: int | None,
    progress: bool | None,
    config_file: str | None,
    **judge_flags: Any,
) -> None:
    """Evaluate JSON Lines traces from FILE (or - for stdin) without Kafka.

    Writes one evaluation record per trace, prints a summary table to stderr (what the
    judge did; each mean with its n, the number of traces that had a value, or "not
    judged"; claims not judged and critical claims by reason; findings), and reports each
    bad line with its number and reason. Reading a terminal (- with no pipe) says so on
    stderr; end the input with Ctrl-D. Ctrl-C stops reading: the records already written
    stay, whole, and the summary counts them.

    Exit codes: 0 done; 2 usage error, bad settings, unreadable input, or an input with no
    trace at all (an earlier --output is then left as it was); 3 the judge failed on every
    trace it was asked about (the first failure's cause is printed); 130 stopped by Ctrl-C
    (SIGINT; 143 for SIGTERM).

    \b
    Examples:
      citewatch check examples/traces.jsonl --output evaluations.jsonl
      citewatch check traces.jsonl --judge openai-chat --sample-rate 1 --config judge.yaml
      producer | citewatch check - > evaluations.jsonl
    """
    settings = settings_from(
        config_file, {_FLAG_SETTINGS.get(k, k): v for k, v in judge_flags.items()}
    )
    if settings.input.format not in LINE_FORMATS:
        raise CliError(
            f"{settings.input.format} records are read from Kafka only (a file of "
            "lines cannot hold protobuf); use otlp_json for files"
        )
    tally = JudgeTally.for_settings(settings)
    pipeline = build_pipeline(settings, on_record=tally.add)
    err = Console(stderr=True)
    summary = CheckSummary()
    total = count_lines(source) if source != "-" else None
    bar = LineProgress(
        total=total,
        enabled=progress if progress is not None else shown_by_default(total),
        description="checking",
    )
    out = _Output(out_path, append=append)
    if source == "-" and sys.stdin.isatty():
        err.print(
            "citewatch check: reading traces from the terminal (standard input), one "
            "JSON object a line; end with Ctrl-D, or give a FILE",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    in_stream: IO[bytes] = sys.stdin.buffer if source == "-" else open(source, "rb")
    limits = DecodeLimits.from_settings(settings)
    stop = threading.Event()

    async def run() -> None:
        def start(number: int, line: bytes) -> Coroutine[Any, Any, Outcome]:
            # Each line is counted as it starts, which is as soon as it is read (the loop
            # starts a record at once): no generator of its own between source and loop.
            summary.lines = number
            summary.records += 1
            if summary.records <= SAMPLE_LINES:
                summary.first_lines[number] = line
            return evaluate_raw(pipeline, line, limits)

        sink = _CheckSink(summary, out, err, bar if bar.enabled else None)
        try:
            await evaluate_in_order(
                LineSource(in_stream).records(stop),
                start,
                sink,
                concurrency=concurrency or settings.input.concurrency,
                finish_timeout=0.0,
                stopping=stop.is_set,
                inline=evaluates_inline(pipeline),
            )
        finally:
            if pipeline.judge is not None:
                await pipeline.judge.aclose(
                    _INTERRUPTED_CLOSE_SECONDS if stop.is_set() else _CLOSE_SECONDS
                )

    def evaluate() -> bool:
        """True when the evaluation ended; False when a signal abandoned it (blocked)."""
        with bar.shown(err):
            return run_until_deadline(
                lambda: asyncio.run(run()),
                stop=stop,
                deadline_seconds=_INTERRUPTED_SECONDS,
            )

    # A signal stops the reading; what finished is written and summed up (a second signal
    # exits at once, with every record written so far whole on disk).
    signals = ShutdownSignals(stop).install()
    ended = False
    try:
        ended = evaluate()
    finally:
        signals.restore()
        if ended:
            if in_stream is not sys.stdin.buffer:
                in_stream.close()
            out.close()
        else:
            out.flush()
    if signals.received is None and summary.evaluated == 0:
        if summary.records:
            print_summary(err, "citewatch check", summary.totals(), summary.quality, tally)
        raise CliError(
            no_traces_message(
                "standard input" if source == "-" else source,
                bad=summary.bad,
                readers=formats_reading(summary.samples, limits),
                kept=None if out_path == "-" else out_path,
            )
        )
    print_summary(
        err, "citewatch check", summary.totals(), summary.quality, tally, records_in=out_path
    )
    cause = tally.cause(settings)
    if cause is not None:
        err.print(cause, markup=False, highlight=False, soft_wrap=True)
    if signals.received is not None:
        err.print(
            f"citewatch check: stopped by a signal at line {summary.lines}: "
            f"{summary.evaluated} record(s) written; traces still in evaluation and "
            "the rest of the input were not",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        code = 128 + signals.received
        if not ended:  # a thread is still blocked reading the input: do not wait for it
            exit_now(code)
        raise SystemExit(code)
    if tally.all_failed:
        raise SystemExit(EXIT_JUDGE_FAILED)
