"""`citewatch report --weekly`: the weekly quality report as HTML and Markdown."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from schemas import EvaluationRecord
from sidecar.cli._common import CliError, one_line_errors, output_option
from sidecar.decode import decode_trace
from sidecar.errors import TraceError
from sidecar.quality._io import read_records, record_files
from sidecar.quality._prometheus import PrometheusClient, weekly_from_prometheus
from sidecar.quality._render import weekly_html, weekly_markdown
from sidecar.quality.audit import audit_html, audit_markdown, audit_section
from sidecar.quality.report import WeeklyReport, weekly_from_records

__all__ = ["report_command"]

PROGRESS_MIN_FILES = 20


def _is_trace_line(file: Path, number: int) -> bool:
    """Whether line ``number`` of ``file`` is a trace (the input of check/run)."""
    with open(file, encoding="utf-8", errors="replace") as handle:
        for current, line in enumerate(handle, start=1):
            if current == number:
                try:
                    decode_trace(line)
                except TraceError:
                    return False
                return True
    return False


def _no_records(path: str, bad: list[tuple[Path, int]]) -> CliError:
    if bad and _is_trace_line(*bad[0]):
        return CliError(
            f"{path} holds traces, not evaluation records: evaluate them first "
            f"(citewatch check {path} --output evaluations.jsonl) and report on "
            "the evaluations"
        )
    if bad:
        first_file, first_line = bad[0]
        return CliError(
            f"{path}: no evaluation records ({len(bad)} lines are not; first: "
            f"{first_file}:{first_line})"
        )
    return CliError(f"{path}: no evaluation records (empty)")


def _from_records(path: str, end: date | None, top: int, progress: bool | None) -> WeeklyReport:
    files = record_files(path)
    bad: list[tuple[Path, int]] = []
    duplicates: list[tuple[Path, int]] = []
    read = 0
    err = Console(stderr=True)
    show = progress if progress is not None else len(files) >= PROGRESS_MIN_FILES

    def counted(records: Iterator[EvaluationRecord]) -> Iterator[EvaluationRecord]:
        nonlocal read
        for record in records:
            read += 1
            yield record

    if not show:
        report = weekly_from_records(
            counted(
                read_records(
                    files,
                    on_bad_line=lambda f, n: bad.append((f, n)),
                    on_duplicate=lambda f, n: duplicates.append((f, n)),
                )
            ),
            end=end,
            top=top,
        )
    else:
        columns = (
            *Progress.get_default_columns()[:1],
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=err, transient=True) as bar:
            task = bar.add_task("reading evaluation records", total=len(files))
            records = read_records(
                files,
                on_bad_line=lambda f, n: bad.append((f, n)),
                on_file_done=lambda _f: bar.advance(task),
                on_duplicate=lambda f, n: duplicates.append((f, n)),
            )
            report = weekly_from_records(counted(records), end=end, top=top)
    if read == 0:
        raise _no_records(path, bad)
    if bad:
        first_file, first_line = bad[0]
        err.print(
            f"skipped {len(bad)} lines that are not evaluation records (first: "
            f"{first_file}:{first_line})",
            markup=False,
            highlight=False,
        )
        report.notes.append(f"{len(bad)} unreadable lines were skipped")
    if duplicates:
        first_file, first_line = duplicates[0]
        err.print(
            f"skipped {len(duplicates)} records of traces already counted (first: "
            f"{first_file}:{first_line})",
            markup=False,
            highlight=False,
        )
        report.notes.append(
            f"{len(duplicates)} records of traces already counted were "
            "skipped (each trace counts once)"
        )
    return report


@click.command("report")
@click.option(
    "--weekly",
    is_flag=True,
    required=True,
    help="The weekly quality report (the only report so far).",
)
@click.option(
    "--records",
    "records_path",
    type=click.Path(exists=True),
    default=None,
    help="Evaluation records: a JSON Lines file or a directory of them.",
)
@click.option(
    "--prometheus",
    "prometheus_url",
    default=None,
    metavar="URL",
    help="Read daily figures from the Prometheus HTTP API at URL instead.",
)
@click.option(
    "--end",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Last day of 'this week' (UTC) [default: the latest day in the records; "
    "yesterday with --prometheus].",
)
@output_option(
    "out_dir",
    aliases=("--out-dir",),
    type=click.Path(file_okay=False),
    default="weekly-report",
    show_default=True,
    metavar="DIR",
    help="Directory where weekly-<end>.html and .md are written (replaced).",
)
@click.option(
    "--top",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="Critical claims and sources listed per app.",
)
@click.option(
    "--review",
    "review_store",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="STORE",
    help="Add the judge's precision on the audit slice of this review store.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help=f"Progress bar; on by default from {PROGRESS_MIN_FILES} files.",
)
@one_line_errors
def report_command(
    weekly: bool,
    records_path: str | None,
    prometheus_url: str | None,
    end: datetime | None,
    out_dir: str,
    top: int,
    review_store: str | None,
    progress: bool | None,
) -> None:
    """Write the weekly quality report (self-contained HTML and Markdown) and print the
    Markdown.

    Per app: validity, correctness and completeness per day with 95% intervals and the
    number of traces behind each, this week against last week, the top critical unsupported
    claims (redacted text, cited IDs, verdict, reason, evidence), the sources most often
    cited by unsupported claims, and judge tokens and error rates. Give exactly one of
    --records or --prometheus. How to read it: docs/judges.md.

    Exit codes: 0 written; 2 usage error, or records that cannot be read (a file of traces
    rather than evaluation records is named as such).

    \b
    Examples:
      citewatch report --weekly --records evaluations/ --output weekly-report
      citewatch report --weekly --prometheus http://prometheus:9090 --end 2025-03-09
    """
    if (records_path is None) == (prometheus_url is None):
        raise click.UsageError("give exactly one of --records PATH or --prometheus URL")
    end_day = end.date() if end is not None else None
    if prometheus_url is not None:
        if end_day is None:
            end_day = date.fromordinal(datetime.now(UTC).date().toordinal() - 1)
        report = weekly_from_prometheus(PrometheusClient(prometheus_url), end=end_day)
    else:
        assert records_path is not None
        report = _from_records(records_path, end_day, top, progress)
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    markdown = weekly_markdown(report)
    page = weekly_html(report)
    if review_store is not None:
        audit = audit_section(review_store, end=report.end)
        markdown += audit_markdown(audit)
        page = page.replace("</body>", audit_html(audit) + "</body>", 1)
    html_path = directory / f"weekly-{report.end.isoformat()}.html"
    md_path = directory / f"weekly-{report.end.isoformat()}.md"
    html_path.write_text(page, encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    click.echo(markdown)
    click.echo(f"wrote {html_path}, {md_path}", err=True)
