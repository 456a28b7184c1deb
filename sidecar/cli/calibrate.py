"""`citewatch calibrate`: agreement of the judge with human labels."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from sidecar.cli._common import one_line_errors, output_option
from sidecar.quality._calibration_render import (
    calibration_html,
    calibration_json,
    calibration_markdown,
    fmt_estimate,
)
from sidecar.quality._io import record_files
from sidecar.quality.calibration import CalibrationReport, calibrate
from sidecar.quality.labels import (
    join_evaluations,
    load_evaluations,
    load_labels,
    pairs_from_labels,
)
from sidecar.quality.review_labels import pairs_from_review

__all__ = ["calibrate_command", "write_calibration"]


def write_calibration(reports: Sequence[CalibrationReport], out_dir: str | Path) -> list[Path]:
    """Write calibration.json, calibration.md and calibration.html into ``out_dir``."""
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        ("calibration.json", calibration_json(reports)),
        ("calibration.md", calibration_markdown(reports)),
        ("calibration.html", calibration_html(reports)),
    ):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def echo_headline(reports: Sequence[CalibrationReport]) -> None:
    """The few figures a person reads first, one series per block, on stderr."""
    for report in reports:
        m = report.overall
        click.echo(
            f"rubric {report.rubric_version} / judge {report.judge_model}: {m.n} claims", err=True
        )
        click.echo(
            f"  unsupported->supported  {fmt_estimate(m.unsupported_to_supported)}", err=True
        )
        click.echo(f"  partial->supported      {fmt_estimate(m.partial_to_supported)}", err=True)
        click.echo(f"  exact agreement         {fmt_estimate(m.agreement)}", err=True)
        kappa = "n/a" if m.kappa is None else f"{m.kappa:.3f}"
        weighted = "n/a" if m.weighted_kappa is None else f"{m.weighted_kappa:.3f}"
        click.echo(f"  kappa {kappa}, weighted kappa (linear) {weighted}", err=True)
        click.echo(f"  abstained               {fmt_estimate(m.abstained)}", err=True)
        if m.not_judged:
            states = ", ".join(f"{state} {count}" for state, count in m.not_judged.items())
            click.echo(f"  not judged              {states}", err=True)
        for label, est in m.precision.items():
            click.echo(f"  precision {label:<13} {fmt_estimate(est)}", err=True)


@click.command("calibrate")
@click.argument("labels", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option(
    "--from-review",
    "from_review",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="STORE",
    help="Read the settled labels of a review store instead of LABELS (judge "
    "verdict, rubric and model come with each item; docs/review.md).",
)
@click.option(
    "--evaluations",
    type=click.Path(exists=True),
    default=None,
    help="Evaluation records (a JSON Lines file or a directory of them); judge "
    "labels are taken from them, joined to LABELS by (trace_id, claim_id) "
    "(LABELS' case_id is the trace_id).",
)
@click.option(
    "--compare",
    is_flag=True,
    help="Allow several rubric versions or judge models, reported side by side.",
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
@one_line_errors
def calibrate_command(
    labels: str | None,
    from_review: str | None,
    evaluations: str | None,
    compare: bool,
    out_dir: str,
) -> None:
    """Compare judge verdicts with human labels in LABELS (CSV or JSON Lines).

    LABELS columns: case_id, claim_id, human_label, judge_label ("abstained" when the judge
    gave no verdict), importance, failure_type, optional rubric_version and judge_model, and
    any other column as a slice (app, document type, language...). Prints the Markdown
    report and writes JSON, Markdown and HTML (with a confusion-matrix picture): agreement
    and kappa on the claims the judge answered, how often it abstained, and per verdict
    class the share of its verdicts people agree with. Refuses to mix rubric versions or
    judge models unless --compare is given. How to read the figures:
    docs/judges.md.
    Exit codes: 0 done; 2 usage error, unreadable labels or records, or mixed series
    without --compare.

    \b
    Examples:
      citewatch calibrate labels.csv --output calibration-report
      citewatch calibrate labels.csv --evaluations evaluations/ --compare
      citewatch calibrate --from-review review.sqlite
    """
    if (labels is None) == (from_review is None):
        raise click.UsageError("give exactly one of LABELS or --from-review STORE")
    if from_review is not None and evaluations is not None:
        raise click.UsageError(
            "--evaluations does not apply with --from-review (review "
            "items carry the judge's verdicts)"
        )
    unmatched = 0
    if from_review is not None:
        pairs = pairs_from_review(from_review)
    else:
        assert labels is not None
        rows = load_labels(labels)
        if evaluations is not None:
            records = [
                record for file in record_files(evaluations) for record in load_evaluations(file)
            ]
            pairs, unmatched = join_evaluations(rows, records)
        else:
            pairs = pairs_from_labels(rows)
    reports = calibrate(pairs, compare=compare, unmatched=unmatched)
    written = write_calibration(reports, out_dir)
    click.echo(calibration_markdown(reports))
    echo_headline(reports)
    click.echo("wrote " + ", ".join(str(p) for p in written), err=True)
