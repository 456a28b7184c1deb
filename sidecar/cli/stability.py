"""`citewatch stability`: re-judge a fixed slice several times and print the spread."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import click

from sidecar.cli._common import CliError, config_option, one_line_errors
from sidecar.cli._rejudge import close_pipeline, echo_judge, judge_options, judging_pipeline
from sidecar.cli._summary import JudgeTally
from sidecar.decode import DecodeLimits
from sidecar.quality.replay import load_traces
from sidecar.quality.stability import measure_stability

__all__ = ["stability_command"]


@click.command("stability")
@click.argument("traces_path", metavar="TRACES", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--repeats",
    type=click.IntRange(2, 50),
    default=5,
    show_default=True,
    help="How many times each trace is judged.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=50,
    show_default=True,
    help="Judge at most this many traces of TRACES (the first ones).",
)
@judge_options
@config_option
@one_line_errors
def stability_command(
    traces_path: str,
    repeats: int,
    limit: int,
    judge: str | None,
    model: str | None,
    config_file: str | None,
) -> None:
    """Re-judge a fixed slice of TRACES several times and print the spread.

    The suggested gate tolerance is 2 x sqrt(2) x the standard deviation of the run means:
    what judge noise alone rarely exceeds between two runs. Set it as gate.tolerance.

    Exit codes: 0 measured; 2 usage error, unreadable traces, or nothing to compare (fewer
    than two repeats with a judged trace, e.g. traces without cited claims); 3 the judge
    failed on every trace it was asked about.

    \b
    Examples:
      citewatch stability golden-traces.jsonl --repeats 5 --judge openai-responses
      citewatch stability traces.jsonl --limit 20 --config judge.yaml
    """
    tally = JudgeTally()
    settings, pipeline = judging_pipeline(config_file, judge, model, tally)
    tally.describe(settings)
    limits = DecodeLimits.from_settings(settings)
    traces: Sequence[Any] = load_traces(traces_path, limits=limits)[:limit]
    if not traces:
        raise CliError(f"nothing to compare: {traces_path} holds no traces")

    async def run() -> Any:
        try:
            return await measure_stability(pipeline, traces, repeats=repeats)
        finally:
            await close_pipeline(pipeline)

    result = asyncio.run(run())

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    click.echo(f"{result.traces} traces x {result.repeats} repeats")
    click.echo("run means: " + ", ".join(fmt(m) for m in result.run_means))
    click.echo(f"spread of run means (sd): {fmt(result.run_sd)}")
    click.echo(f"within-trace sd (pooled): {fmt(result.within_trace_sd)}")
    click.echo(f"largest per-trace range: {fmt(result.max_trace_range)}")
    click.echo(f"claims whose verdict changed: {result.claims_flipped} of {result.claims_judged}")
    if result.unjudged_runs:
        click.echo(f"trace runs without a score (skipped or failed): {result.unjudged_runs}")
    click.echo(f"suggested gate.tolerance: {fmt(result.suggested_tolerance)}")
    echo_judge(tally, settings)
    if result.suggested_tolerance is None:
        runs = result.traces * result.repeats
        raise CliError(
            f"nothing to compare: {runs - result.unjudged_runs} of {runs} trace "
            "runs got a score; a spread "
            "needs judged traces (with cited claims) in at least two repeats"
        )
