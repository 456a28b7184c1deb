"""`citewatch replay`: re-judge a human-labelled set and calibrate the result."""

from __future__ import annotations

import asyncio
from typing import Any

import click

from sidecar.cli._common import config_option, one_line_errors, output_option
from sidecar.cli._rejudge import close_pipeline, echo_judge, judge_options, judging_pipeline
from sidecar.cli._summary import JudgeTally
from sidecar.cli.calibrate import echo_headline, write_calibration
from sidecar.decode import DecodeLimits
from sidecar.quality.calibration import calibrate
from sidecar.quality.replay import load_traces, replay_labels

__all__ = ["replay_command"]


@click.command("replay")
@click.argument("labels", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--traces",
    "traces_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="JSON Lines traces the labels refer to by (trace_id, "
    "claim_id); without it LABELS carry claim_text and passages.",
)
@output_option(
    "out_dir",
    aliases=("--out-dir",),
    type=click.Path(file_okay=False),
    default="calibration-report",
    show_default=True,
    metavar="DIR",
    help="Directory where calibration.json, .md and .html are written (replaced).",
)
@output_option(
    "records_out",
    name="--records-output",
    aliases=("--records-out",),
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the fresh evaluation records (JSON Lines, replaced).",
)
@judge_options
@config_option
@one_line_errors
def replay_command(
    labels: str,
    traces_path: str | None,
    out_dir: str,
    records_out: str | None,
    judge: str | None,
    model: str | None,
    config_file: str | None,
) -> None:
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
    settings, pipeline = judging_pipeline(config_file, judge, model, tally)
    tally.describe(settings)
    traces = (
        load_traces(traces_path, limits=DecodeLimits.from_settings(settings))
        if traces_path is not None
        else None
    )

    async def run() -> Any:
        try:
            return await replay_labels(pipeline, labels, traces=traces)
        finally:
            await close_pipeline(pipeline)

    outcome = asyncio.run(run())
    if records_out is not None:
        with open(records_out, "w", encoding="utf-8") as handle:
            for record in outcome.records:
                handle.write(record.model_dump_json() + "\n")
    echo_judge(tally, settings)
    reports = calibrate(outcome.pairs, unmatched=outcome.unmatched)
    written = write_calibration(reports, out_dir)
    echo_headline(reports)
    click.echo("wrote " + ", ".join(str(p) for p in written), err=True)
