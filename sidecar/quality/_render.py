"""HTML (inline SVG plots) and Markdown pages of the weekly report."""

from __future__ import annotations

from sidecar.quality._stats import Estimate
from sidecar.quality._svg import ChartPoint, ChartSeries, esc, html_page, line_chart_svg
from sidecar.quality.report import AppSection, CriticalItem, WeeklyReport

__all__ = ["weekly_html", "weekly_markdown"]


def _fmt(est: Estimate) -> str:
    if est.value is None:
        return "n/a (n=0)"
    if est.low is None or est.high is None or est.n < 2:
        return f"{est.value:.3f} (n={est.n})"
    return f"{est.value:.3f} [{est.low:.3f}-{est.high:.3f}] (n={est.n})"


def _rate(est: Estimate) -> str:
    if est.value is None or est.low is None or est.high is None:
        return "n/a (0 calls)"
    return f"{est.value:.1%} [{est.low:.1%}-{est.high:.1%}] ({est.successes}/{est.n})"


def _change(last: Estimate, this: Estimate) -> str:
    if last.value is None or this.value is None:
        return "n/a"
    return f"{this.value - last.value:+.3f}"


def _title(report: WeeklyReport) -> str:
    start, end = report.this_week
    return f"citewatch weekly quality report, {start.isoformat()} to {end.isoformat()}"


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def clean(cell: str) -> str:
        return cell.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(clean(c) for c in row) + " |" for row in rows]
    return lines + [""]


def _overview_rows(report: WeeklyReport) -> list[list[str]]:
    rows = []
    for section in report.apps:
        for metric, (last, this) in section.weeks.items():
            rows.append([section.app, metric, _fmt(last), _fmt(this), _change(last, this)])
        rows.append(
            [
                section.app,
                "critical unsupported claims (this week)",
                "",
                str(section.critical_total),
                "",
            ]
        )
    return rows


def _daily_rows(section: AppSection) -> tuple[list[str], list[list[str]]]:
    metrics = list(section.series)
    head = ["day", *metrics]
    rows = []
    for index, day in enumerate(section.series[metrics[0]] if metrics else []):
        row = [day.day.isoformat()]
        for metric in metrics:
            row.append(_fmt(section.series[metric][index].estimate))
        rows.append(row)
    return head, rows


def _seen(item: CriticalItem) -> str:
    first = item.first_day or item.day
    return item.day.isoformat() if first == item.day else f"{first} to {item.day}"


def _critical_rows(section: AppSection) -> list[list[str]]:
    return [
        [
            _seen(item),
            str(item.traces),
            item.trace_id,
            item.claim_id,
            item.reason,
            item.verdict or "not judged",
            item.text,
            ", ".join(item.citation_ids) or "none",
            item.verdict_reason or "",
            item.evidence or "",
        ]
        for item in section.critical
    ]


def _critical_line(section: AppSection) -> str:
    counts = ", ".join(f"{k}: {v}" for k, v in section.critical_counts.items()) or "none"
    claims = len(section.critical)
    listed = (
        f"; {claims} distinct claim(s) listed, each once with the traces that made it"
        if claims
        else ""
    )
    return f"{section.critical_total} in total ({counts}){listed}"


_CRITICAL_HEAD = [
    "seen",
    "traces",
    "latest trace",
    "claim",
    "reason",
    "verdict",
    "claim text (redacted)",
    "cited IDs",
    "judge's reason",
    "evidence",
]
_SOURCES_TITLE = "Sources most often cited by unsupported claims"
_SOURCES_NOTE = (
    "Each source by its URL, else its title (both as redaction left them); a "
    "source with neither is shown by its ID, which may name no document."
)
_SOURCES_HEAD = ["source (URL or title)", "unsupported claims citing it"]
_OVERVIEW_HEAD = ["app", "metric", "last week", "this week", "change"]
_JUDGE_HEAD = [
    "scope",
    "judge/model",
    "calls",
    "error rate",
    "input tokens",
    "output tokens",
    "outcomes",
]


def _judge_rows(report: WeeklyReport) -> list[list[str]]:
    return [
        [
            c.scope,
            c.model,
            str(c.requests),
            _rate(c.errors),
            f"{c.input_tokens:,}",
            f"{c.output_tokens:,}",
            ", ".join(f"{k} {v}" for k, v in c.outcomes.items()),
        ]
        for c in report.judge
    ]


def weekly_markdown(report: WeeklyReport) -> str:
    """The report as Markdown, for pasting into a ticket."""
    lines = [
        f"# {_title(report)}",
        "",
        f"Source: {report.source}. Figures: mean [95% interval] (n = traces behind it); "
        "correctness and completeness from the judged base sample only.",
        "",
    ]
    lines += [f"> {note}" for note in report.notes]
    if report.notes:
        lines.append("")
    lines += ["## This week against last week", ""]
    lines += _md_table(_OVERVIEW_HEAD, _overview_rows(report))
    for section in report.apps:
        lines += [f"## {section.app}", "", f"{section.traces} traces in the two weeks.", ""]
        head, rows = _daily_rows(section)
        lines += ["### Per day", ""] + _md_table(head, rows)
        lines += ["### Critical unsupported claims (this week)", ""]
        lines += [f"{_critical_line(section)}.", ""]
        if section.critical:
            lines += _md_table(_CRITICAL_HEAD, _critical_rows(section))
        if section.top_sources:
            lines += [f"### {_SOURCES_TITLE}", "", _SOURCES_NOTE, ""]
            lines += _md_table(_SOURCES_HEAD, [[s, str(n)] for s, n in section.top_sources])
    lines += ["## Judge cost and errors (this week)", ""]
    lines += (
        _md_table(_JUDGE_HEAD, _judge_rows(report))
        if report.judge
        else ["No judge calls recorded.", ""]
    )
    return "\n".join(lines)


def _html_table(head: list[str], rows: list[list[str]], *, numeric_from: int = 1) -> str:
    parts = ["<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            css = ' class="num"' if index >= numeric_from else ""
            cells.append(f"<td{css}>{esc(cell)}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def _charts(section: AppSection) -> str:
    charts = []
    for metric, days in section.series.items():
        points = [
            ChartPoint(
                d.day.isoformat(), d.estimate.value, d.estimate.low, d.estimate.high, d.estimate.n
            )
            for d in days
        ]
        charts.append(
            line_chart_svg(
                [ChartSeries(metric, points)],
                title=f"{section.app}: {metric} per day (95% interval)",
            )
        )
    return '<div class="charts">' + "".join(charts) + "</div>"


def weekly_html(report: WeeklyReport) -> str:
    """The report as one self-contained HTML page with inline SVG plots."""
    body = [
        f"<h1>{esc(_title(report))}</h1>",
        f'<p class="muted">Source: {esc(report.source)}. Figures: mean [95% interval] '
        "(n = traces behind it); correctness and completeness from the judged base "
        "sample only.</p>",
    ]
    body += [f"<p><strong>Note:</strong> {esc(note)}</p>" for note in report.notes]
    body += [
        "<h2>This week against last week</h2>",
        _html_table(_OVERVIEW_HEAD, _overview_rows(report), numeric_from=2),
    ]
    for section in report.apps:
        body += [
            f"<h2>{esc(section.app)}</h2>",
            f'<p class="muted">{section.traces} traces in the two weeks.</p>',
            _charts(section),
        ]
        head, rows = _daily_rows(section)
        body += [
            "<details><summary>Per day, with counts</summary>",
            _html_table(head, rows),
            "</details>",
        ]
        # Red only for what needs looking at: none is no risk.
        css = ' class="risk"' if section.critical_total else ""
        body += [
            "<h3>Critical unsupported claims (this week)</h3>",
            f"<p{css}>{esc(_critical_line(section))}</p>",
        ]
        if section.critical:
            body.append(_html_table(_CRITICAL_HEAD, _critical_rows(section), numeric_from=99))
        if section.top_sources:
            body += [
                f"<h3>{esc(_SOURCES_TITLE)}</h3>",
                f'<p class="muted">{esc(_SOURCES_NOTE)}</p>',
                _html_table(_SOURCES_HEAD, [[s, str(n)] for s, n in section.top_sources]),
            ]
    body.append("<h2>Judge cost and errors (this week)</h2>")
    body.append(
        _html_table(_JUDGE_HEAD, _judge_rows(report), numeric_from=2)
        if report.judge
        else "<p>No judge calls recorded.</p>"
    )
    return html_page(_title(report), "\n".join(body))
