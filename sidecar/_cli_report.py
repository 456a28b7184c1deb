"""`citewatch report --weekly`: the weekly quality report as HTML and Markdown."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from sidecar._cli_common import one_line_errors
from sidecar._report_io import read_records, record_files
from sidecar._report_prometheus import PrometheusClient, weekly_from_prometheus
from sidecar._report_render import weekly_html, weekly_markdown
from sidecar.report import WeeklyReport, weekly_from_records

__all__ = ["report_command"]

PROGRESS_MIN_FILES = 20


def _from_records(path: str, end: date | None, top: int, progress: bool | None) -> WeeklyReport:
    files = record_files(path)
    bad: list[tuple[Path, int]] = []
    err = Console(stderr=True)
    show = progress if progress is not None else len(files) >= PROGRESS_MIN_FILES
    if not show:
        report = weekly_from_records(
            read_records(files, on_bad_line=lambda f, n: bad.append((f, n))), end=end, top=top)
    else:
        columns = (*Progress.get_default_columns()[:1], BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn())
        with Progress(*columns, console=err, transient=True) as bar:
            task = bar.add_task("reading evaluation records", total=len(files))
            records = read_records(files, on_bad_line=lambda f, n: bad.append((f, n)),
                                   on_file_done=lambda _f: bar.advance(task))
            report = weekly_from_records(records, end=end, top=top)
    if bad:
        first_file, first_line = bad[0]
        err.print(f"skipped {len(bad)} lines that are not evaluation records (first: "
                  f"{first_file}:{first_line})", markup=False, highlight=False)
        report.notes.append(f"{len(bad)} unreadable lines were skipped")
    return report


@click.command("report")
@click.option("--weekly", is_flag=True, required=True,
              help="The weekly quality report (the only report so far).")
@click.option("--records", "records_path", type=click.Path(exists=True), default=None,
              help="Evaluation records: a JSON Lines file or a directory of them.")
@click.option("--prometheus", "prometheus_url", default=None, metavar="URL",
              help="Read daily figures from the Prometheus HTTP API at URL instead.")
@click.option("--end", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Last day of 'this week' (UTC) [default: the latest day in the records; "
                   "yesterday with --prometheus].")
@click.option("--out-dir", type=click.Path(file_okay=False), default="weekly-report",
              show_default=True, help="Where weekly-<end>.html and .md are written.")
@click.option("--top", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Critical claims and sources listed per app.")
@click.option("--progress/--no-progress", default=None,
              help=f"Progress bar; on by default from {PROGRESS_MIN_FILES} files.")
@one_line_errors
def report_command(weekly: bool, records_path: str | None, prometheus_url: str | None,
                   end: datetime | None, out_dir: str, top: int, progress: bool | None) -> None:
    """Write the weekly quality report (self-contained HTML and Markdown) and print the
    Markdown.

    Per app: validity, correctness and completeness per day with 95% intervals and the
    number of traces behind each, this week against last week, the top critical unsupported
    claims (redacted text, cited IDs, verdict, reason, evidence), the sources most often
    cited by unsupported claims, and judge tokens and error rates. Give exactly one of
    --records or --prometheus.
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
    html_path = directory / f"weekly-{report.end.isoformat()}.html"
    md_path = directory / f"weekly-{report.end.isoformat()}.md"
    html_path.write_text(weekly_html(report), encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    click.echo(markdown)
    click.echo(f"wrote {html_path}, {md_path}", err=True)
