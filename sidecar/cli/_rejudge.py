"""What `citewatch replay` and `citewatch stability` share: a pipeline that judges every trace."""

from __future__ import annotations

from typing import Any

import click

from sidecar.assembly import build_pipeline
from sidecar.cli._common import EXIT_JUDGE_FAILED, settings_from
from sidecar.cli._summary import JudgeTally
from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.judge import BACKEND_NAMES
from sidecar.pipeline import Pipeline

__all__ = ["close_pipeline", "echo_judge", "judge_options", "judging_pipeline"]


def judging_pipeline(
    config_file: str | None, judge: str | None, model: str | None, tally: JudgeTally
) -> tuple[Settings, Pipeline]:
    """A pipeline that judges every trace and never answers from its verdict cache."""
    overrides: dict[str, Any] = {
        "judge.backend": judge,
        "judge.model": model,
        "judge.cache_size": 0,
        "sampling.rate": 1.0,
    }
    settings: Settings = settings_from(config_file, overrides)
    pipeline = build_pipeline(settings, on_record=tally.add)
    if pipeline.judge is None:
        raise ConfigError("judge backend is 'none': nothing to re-judge with")
    return settings, pipeline


def echo_judge(tally: JudgeTally, settings: Settings) -> None:
    """The judge rows and, when it failed, the first cause; exit 3 if it never answered."""
    for line in tally.lines(settings):
        click.echo(line, err=True)
    if tally.all_failed:
        raise SystemExit(EXIT_JUDGE_FAILED)


async def close_pipeline(pipeline: Pipeline) -> None:
    """Close the judge's HTTP client, if the pipeline has a judge."""
    if pipeline.judge is not None:
        await pipeline.judge.aclose()


def judge_options(func: Any) -> Any:
    func = click.option(
        "--model", default=None, help="Judge model [default: judge.model from the settings]."
    )(func)
    return click.option(
        "--judge",
        "judge",
        type=click.Choice(BACKEND_NAMES),
        default=None,
        help="Judge backend [default: judge.backend from the settings].",
    )(func)
