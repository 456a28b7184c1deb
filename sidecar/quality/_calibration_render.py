"""Markdown, HTML and JSON pages of calibration reports (one per judge series)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sidecar.quality._stats import Estimate
from sidecar.quality._svg import confusion_svg, esc, html_page
from sidecar.quality.calibration import CalibrationReport, GroupMetrics
from sidecar.quality.labels import LABELS

__all__ = ["calibration_html", "calibration_json", "calibration_markdown", "fmt_estimate"]

_RISKY = (LABELS.index("unsupported"), LABELS.index("supported"))


def fmt_estimate(est: Estimate, *, percent: bool = True) -> str:
    """'12.5% [8.1-18.3] (5/40)' or 'n/a (0)'."""
    if est.value is None or est.low is None or est.high is None:
        return f"n/a (n={est.n})"
    if percent:
        core = f"{est.value:.1%} [{est.low:.1%}-{est.high:.1%}]"
    else:
        core = f"{est.value:.3f} [{est.low:.3f}-{est.high:.3f}]"
    count = f"{est.successes}/{est.n}" if est.successes is not None else f"n={est.n}"
    return f"{core} ({count})"


def _kappa(m: GroupMetrics) -> str:
    if m.kappa is None:
        return "n/a"
    if m.kappa_low is None or m.kappa_high is None:
        return f"{m.kappa:.3f}"
    return f"{m.kappa:.3f} [{m.kappa_low:.3f}-{m.kappa_high:.3f}]"


def _wkappa(m: GroupMetrics) -> str:
    return "n/a" if m.weighted_kappa is None else f"{m.weighted_kappa:.3f}"


_HEAD = (
    "group",
    "n",
    "unsupported->supported",
    "partial->supported",
    "exact agreement",
    "kappa [95% bootstrap]",
    "weighted kappa (linear)",
    "abstained",
    *(f"precision {label}" for label in LABELS),
)


def _row(name: str, m: GroupMetrics) -> tuple[str, ...]:
    return (
        name,
        str(m.n),
        fmt_estimate(m.unsupported_to_supported),
        fmt_estimate(m.partial_to_supported),
        fmt_estimate(m.agreement),
        _kappa(m),
        _wkappa(m),
        fmt_estimate(m.abstained),
        *(fmt_estimate(m.precision[label]) if label in m.precision else "n/a" for label in LABELS),
    )


def _groups(report: CalibrationReport) -> list[tuple[str, list[tuple[str, GroupMetrics]]]]:
    sections: list[tuple[str, list[tuple[str, GroupMetrics]]]] = [
        ("Overall", [("all claims", report.overall)]),
    ]
    if report.by_importance:
        sections.append(
            ("By importance", [(f"importance {k}", v) for k, v in report.by_importance.items()])
        )
    for name, values in report.by_slice.items():
        sections.append((f"By {name}", [(f"{name}={value}", m) for value, m in values.items()]))
    return sections


def calibration_json(reports: Sequence[CalibrationReport]) -> str:
    """The reports as one JSON document: {"series": [...]}."""
    data: dict[str, Any] = {"series": [r.as_dict() for r in reports]}
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def calibration_markdown(reports: Sequence[CalibrationReport]) -> str:
    """The reports as Markdown tables, the riskier false-support rate first."""
    lines = ["# Judge calibration", ""]
    for report in reports:
        lines += [f"## Rubric {report.rubric_version}, judge model {report.judge_model}", ""]
        if report.unmatched:
            lines += [f"{report.unmatched} labels had no judged claim to pair with.", ""]
        if report.overall.not_judged:
            states = ", ".join(f"{s} {n}" for s, n in report.overall.not_judged.items())
            lines += [f"Labelled claims the judge gave no verdict, by state: {states}.", ""]
        lines += [
            "Rates are 95% Wilson intervals with the count behind each; "
            "unsupported->supported is the share of claims people found unsupported "
            "that the judge called supported. n counts the claims the judge answered; "
            "abstained is the share of labelled claims it left without a verdict, and "
            "precision per verdict class the share of its verdicts people agree with.",
            "",
        ]
        for title, rows in _groups(report):
            lines += [
                f"### {title}",
                "",
                "| " + " | ".join(_HEAD) + " |",
                "|" + "---|" * len(_HEAD),
            ]
            lines += ["| " + " | ".join(_row(name, m)) + " |" for name, m in rows]
            lines.append("")
        lines += [
            "### Confusion matrix (rows: human, columns: judge)",
            "",
            "| human \\ judge | " + " | ".join(LABELS) + " |",
            "|---|---|---|---|",
        ]
        for label, counts in zip(LABELS, report.overall.matrix, strict=True):
            lines.append(f"| {label} | " + " | ".join(str(c) for c in counts) + " |")
        lines.append("")
    return "\n".join(lines)


def calibration_html(reports: Sequence[CalibrationReport]) -> str:
    """A self-contained HTML page; side-by-side matrices when several series are shown."""
    body = ["<h1>Judge calibration</h1>"]
    if len(reports) > 1:
        body.append(
            "<h2>Series side by side</h2><table><tr><th>series</th>"
            + "".join(f"<th>{esc(h)}</th>" for h in _HEAD[1:])
            + "</tr>"
        )
        for report in reports:
            cells = _row("", report.overall)[1:]
            body.append(
                f"<tr><th>rubric {esc(report.rubric_version)}<br>"
                f"{esc(report.judge_model)}</th>"
                + "".join(f'<td class="num">{esc(c)}</td>' for c in cells)
                + "</tr>"
            )
        body.append("</table>")
    body.append('<div class="charts">')
    for report in reports:
        body.append(
            confusion_svg(
                report.overall.matrix,
                LABELS,
                risky=_RISKY,
                title=f"rubric {report.rubric_version} / {report.judge_model}",
            )
        )
    body.append("</div>")
    for report in reports:
        body.append(
            f"<h2>Rubric {esc(report.rubric_version)}, judge model {esc(report.judge_model)}</h2>"
        )
        u2s = report.overall.unsupported_to_supported
        body.append(f'<p class="risk">unsupported&rarr;supported: {esc(fmt_estimate(u2s))}</p>')
        body.append(
            '<p class="muted">Rates: 95% Wilson intervals with the count behind each. '
            "Kappa interval: 95% bootstrap.</p>"
        )
        if report.unmatched:
            body.append(f"<p>{report.unmatched} labels had no judged claim to pair with.</p>")
        for title, rows in _groups(report):
            body.append(
                f"<h3>{esc(title)}</h3><table><tr>"
                + "".join(f"<th>{esc(h)}</th>" for h in _HEAD)
                + "</tr>"
            )
            for name, m in rows:
                cells = _row(name, m)
                body.append(
                    f"<tr><th>{esc(cells[0])}</th>"
                    + "".join(f'<td class="num">{esc(c)}</td>' for c in cells[1:])
                    + "</tr>"
                )
            body.append("</table>")
    return html_page("citewatch judge calibration", "\n".join(body))
