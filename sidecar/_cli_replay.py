"""`citewatch replay` and `citewatch stability`: re-judge labelled or fixed slices."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import click

from sidecar._cli_calibrate import echo_headline, write_calibration
from sidecar._cli_common import (
    EXIT_JUDGE_FAILED,
    CliError,
    config_option,
    one_line_errors,
    output_option,
    settings_from,
)
from sidecar._cli_summary import JudgeTally
from sidecar.assembly import build_pipeline
from sidecar.calibration import calibrate
from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.judge import BACKEND_NAMES
from sidecar.pipeline import Pipeline
from sidecar.replay import load_traces, replay_labels
from sidecar.stability import measure_stability

__all__ = ["replay_command", "stability_command"]


def _judging_pipeline(config_file: str | None, judge: str | None, model: str | None,
                      tally: JudgeTally) -> tuple[Settings, Pipeline]:
    """A pipeline that judges every trace and never answers from its verdict cache."""
    overrides: dict[str, Any] = {
        "judge.backend": judge, "judge.model": model, "judge.cache_size": 0,
        "sampling.rate": 1.0,
    }
    settings: Settings = settings_from(config_file, overrides)
    pipeline = build_pipeline(settings, on_record=tally.add)
    if pipeline.judge is None:
        raise ConfigError("judge backend is 'none': nothing to re-judge with")
    return settings, pipeline


def _echo_judge(tally: JudgeTally, settings: Settings) -> None:
    """The judge rows and, when it failed, the first cause; exit 3 if it never answered."""
    for line in tally.lines(settings):
        click.echo(line, err=True)
    if tally.all_failed:
        raise SystemExit(EXIT_JUDGE_FAILED)


async def _close(pipeline: Pipeline) -> None:
    if pipeline.judge is not None:
        await pipeline.judge.aclose()


def _judge_options(func: Any) -> Any:
    func = click.option("--model", default=None,
                        help="Judge model [default: judge.model from the settings].")(func)
    return click.option("--judge", "judge", type=click.Choice(BACKEND_NAMES), default=None,
                        help="Judge backend [default: judge.backend from the settings].")(func)


@click.command("replay")
@click.argument("labels", type=click.Path(exists=True, dir_okay=False))
@click.option("--traces", "traces_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="JSON Lines traces the labels refer to by (trace_id, "
                                 "claim_id); without it LABELS carry claim_text and passages.")
@output_option("out_dir", aliases=("--out-dir",), type=click.Path(file_okay=False),
               default="calibration-report", show_default=True, metavar="DIR",
               help="Directory where calibration.json, .md and .html are written (replaced).")
@output_option("records_out", name="--records-output", aliases=("--records-out",),
               type=click.Path(dir_okay=False), default=None,
               help="Also write the fresh evaluation records (JSON Lines, replaced).")
@_judge_options
@config_option
@one_line_errors
def replay_command(labels: str, traces_path: str | None, out_dir: str, records_out: str | None,
                   judge: str | None, model: str | None, config_file: str | None) -> None:
    """Re-judge a human-labelled set with the configured judge and calibrate the result.

    LABELS is CSV or JSON Lines with case_id, claim_id, human_label and, unless --traces is
    given, claim_text and passages (a list of {"id", "text"}); importance, failure_type and
    slice columns as for `citewatch calibrate`. For a scheduled job tracking kappa over
    rubric and model changes.

    Exit codes: 0 done; 2 usage error or unreadable labels or traces; 3 the judge failed on
    every trace it was asked about (the first failure's cause is printed).

    \b
    Examples:
      citewatch replay labels.csv --traces traces.jsonl --judge openai-chat --config judge.yaml
      citewatch replay labels.jsonl --output calibration-report --records-output fresh.jsonl
    """
    tally = JudgeTally()
    settings, pipeline = _judging_pipeline(config_file, judge, model, tally)
    traces = load_traces(traces_path) if traces_path is not None else None

    async def run() -> Any:
        try:
            return await replay_labels(pipeline, labels, traces=traces)
        finally:
            await _close(pipeline)

    outcome = asyncio.run(run())
    if records_out is not None:
        with open(records_out, "w", encoding="utf-8") as handle:
            for record in outcome.records:
                handle.write(record.model_dump_json() + "\n")
    _echo_judge(tally, settings)
    reports = calibrate(outcome.pairs, unmatched=outcome.unmatched)
    written = write_calibration(reports, out_dir)
    echo_headline(reports)
    click.echo("wrote " + ", ".join(str(p) for p in written), err=True)


@click.command("stability")
@click.argument("traces_path", metavar="TRACES", type=click.Path(exists=True, dir_okay=False))
@click.option("--repeats", type=click.IntRange(2, 50), default=5, show_default=True,
              help="How many times each trace is judged.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True,
              help="Judge at most this many traces of TRACES (the first ones).")
@_judge_options
@config_option
@one_line_errors
def stability_command(traces_path: str, repeats: int, limit: int, judge: str | None,
                      model: str | None, config_file: str | None) -> None:
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
    settings, pipeline = _judging_pipeline(config_file, judge, model, tally)
    traces: Sequence[Any] = load_traces(traces_path)[:limit]
    if not traces:
        raise CliError(f"nothing to compare: {traces_path} holds no traces")

    async def run() -> Any:
        try:
            return await measure_stability(pipeline, traces, repeats=repeats)
        finally:
            await _close(pipeline)

    result = asyncio.run(run())

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    click.echo(f"{result.traces} traces x {result.repeats} repeats")
    click.echo("run means: " + ", ".join(fmt(m) for m in result.run_means))
    click.echo(f"spread of run means (sd): {fmt(result.run_sd)}")
    click.echo(f"within-trace sd (pooled): {fmt(result.within_trace_sd)}")
    click.echo(f"largest per-trace range: {fmt(result.max_trace_range)}")
    click.echo(f"claims whose verdict changed: {result.claims_flipped} of "
               f"{result.claims_judged}")
    if result.unjudged_runs:
        click.echo(f"trace runs without a score (skipped or failed): {result.unjudged_runs}")
    click.echo(f"suggested gate.tolerance: {fmt(result.suggested_tolerance)}")
    _echo_judge(tally, settings)
    if result.suggested_tolerance is None:
        runs = result.traces * result.repeats
        raise CliError(f"nothing to compare: {runs - result.unjudged_runs} of {runs} trace "
                       "runs got a score; a spread "
                       "needs judged traces (with cited claims) in at least two repeats")
