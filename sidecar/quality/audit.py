"""The judge's precision on live traffic, from the review store's audit slice.

The audit slice is a uniform random share of judged claims (a hash of trace and claim ID,
blind to flags and verdicts), so the settled labels of its items estimate, without the
bias of reviewing only what was flagged:

- precision per verdict class: of the judge's "supported" verdicts, the share people also
  call supported (and so for partial and unsupported);
- precision per path: the same, split by what resolved the verdict (screen, llm, cache);
- recall per class: of the claims people call supported, the share the judge called so.

Each is a Wilson 95 % interval. Skipped or unsettled audit items are left out, which keeps
the estimate unbiased only if skipping does not depend on whether the judge was right: the
report says how many were left out. The weekly report shows this week against last week
(by the UTC day of the trace).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from sidecar.quality._stats import Estimate, wilson_interval
from sidecar.review.store import FinalLabel, ReviewStore

__all__ = [
    "AuditFigures",
    "AuditRow",
    "AuditSection",
    "audit_figures",
    "audit_html",
    "audit_markdown",
    "audit_rows",
    "audit_section",
]

_CLASSES = ("supported", "partial", "unsupported")


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One settled audit item: the judge's verdict, the people's label, the path, the day."""

    judge: str
    human: str
    path: str
    day: date


@dataclass(frozen=True, slots=True)
class AuditFigures:
    """The judge's precision and recall on the audit items of one period."""

    start: date
    end: date
    n: int
    precision: dict[str, Estimate] = field(default_factory=dict)
    precision_by_path: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    recall: dict[str, Estimate] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AuditSection:
    """This week and last week on the audit slice, with the items left out."""

    this_week: AuditFigures
    last_week: AuditFigures
    unsettled: int


def audit_rows(labels: Iterable[FinalLabel]) -> list[AuditRow]:
    """The settled audit items that carry a verdict of the judge."""
    return [
        AuditRow(
            judge=label.item.verdict,
            human=label.label,
            path=label.item.resolved_by or "unknown",
            day=label.item.day,
        )
        for label in labels
        if label.item.audit and label.item.verdict is not None
    ]


def audit_figures(rows: Iterable[AuditRow], *, start: date, end: date) -> AuditFigures:
    """Precision per class and per path, and recall per class, of the rows whose day is in
    ``start..end`` (inclusive)."""
    chosen = [row for row in rows if start <= row.day <= end]
    precision = {}
    recall = {}
    for label in _CLASSES:
        said = [row for row in chosen if row.judge == label]
        precision[label] = wilson_interval(sum(row.human == label for row in said), len(said))
        truly = [row for row in chosen if row.human == label]
        recall[label] = wilson_interval(sum(row.judge == label for row in truly), len(truly))
    by_path: dict[str, dict[str, Estimate]] = {}
    for path in sorted({row.path for row in chosen}):
        for label in _CLASSES:
            said = [row for row in chosen if row.path == path and row.judge == label]
            if said:
                by_path.setdefault(path, {})[label] = wilson_interval(
                    sum(row.human == label for row in said), len(said)
                )
    return AuditFigures(
        start=start,
        end=end,
        n=len(chosen),
        precision=precision,
        precision_by_path=by_path,
        recall=recall,
    )


def audit_section(store: ReviewStore | str | Path, *, end: date) -> AuditSection:
    """The weekly audit section from a store (or its path): the seven days ending on
    ``end`` and the seven before."""
    if not isinstance(store, ReviewStore):
        with ReviewStore(store) as opened:
            return audit_section(opened, end=end)
    rows = audit_rows(store.final_labels())
    audited = sum(1 for item in store.items() if item.audit and item.verdict is not None)
    start = end - timedelta(days=6)
    return AuditSection(
        this_week=audit_figures(rows, start=start, end=end),
        last_week=audit_figures(
            rows, start=start - timedelta(days=7), end=start - timedelta(days=1)
        ),
        unsettled=audited - len(rows),
    )


def _fmt(est: Estimate) -> str:
    if est.value is None:
        return "n/a (0)"
    return f"{est.value:.3f} [{est.low:.3f}, {est.high:.3f}] ({est.successes}/{est.n})"


def _table(section: AuditSection) -> tuple[list[str], list[list[str]]]:
    this, last = section.this_week, section.last_week
    rows = [
        [f"precision {label}", _fmt(this.precision[label]), _fmt(last.precision[label])]
        for label in _CLASSES
    ]
    for path in sorted(set(this.precision_by_path) | set(last.precision_by_path)):
        for label in _CLASSES:
            now = this.precision_by_path.get(path, {}).get(label)
            before = last.precision_by_path.get(path, {}).get(label)
            if now is None and before is None:
                continue
            rows.append(
                [
                    f"precision {label}, resolved by {path}",
                    _fmt(now) if now else "n/a (0)",
                    _fmt(before) if before else "n/a (0)",
                ]
            )
    rows += [
        [f"recall {label}", _fmt(this.recall[label]), _fmt(last.recall[label])]
        for label in _CLASSES
    ]
    head = [
        "figure",
        f"this week ({this.start} to {this.end}, {this.n} items)",
        f"last week ({last.start} to {last.end}, {last.n} items)",
    ]
    return head, rows


_NOTE = (
    "Audit slice: a uniform random share of the judge's verdicts, labelled by people; "
    "95 % Wilson intervals, (agreeing/labelled) in brackets."
)


def audit_markdown(section: AuditSection) -> str:
    """The section as Markdown."""
    head, rows = _table(section)
    lines = [
        "",
        "## Judge precision on the audit slice",
        "",
        _NOTE,
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if section.unsettled:
        lines += [
            "",
            f"{section.unsettled} audit items are not settled yet (unlabelled, "
            "skipped or disputed) and are left out.",
        ]
    return "\n".join(lines) + "\n"


def audit_html(section: AuditSection) -> str:
    """The section as an HTML fragment (a heading, a note and a table)."""
    head, rows = _table(section)
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    extra = (
        f"<p>{section.unsettled} audit items are not settled yet and are left out.</p>"
        if section.unsettled
        else ""
    )
    return (
        f'<section id="audit"><h2>Judge precision on the audit slice</h2>'
        f"<p>{html.escape(_NOTE)}</p><table><thead><tr>{cells}</tr></thead>"
        f"<tbody>{body}</tbody></table>{extra}</section>"
    )
