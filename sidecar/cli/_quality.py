"""The quality table that ends `citewatch check` and `citewatch run --input`.

Counted from the evaluation records a run wrote: each mean beside its n (how many traces had
a value; a mean of none is "not judged", never 0), the claims left without a verdict by
reason (with the screen's conflict class for ``suspect`` and the distrust for
``unverified``), the critical claims by reason, and the deterministic findings by code.
:func:`summary_table` renders it, with a command's own totals and the judge's rows, the same
way for both commands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import get_args

from rich.console import Console
from rich.table import Table

from schemas import CriticalReason, EvaluationRecord, NotJudgedReason
from sidecar.cli._summary import JudgeTally

__all__ = [
    "FIRST_CRITICAL",
    "MEASURES",
    "NOT_JUDGED",
    "QualityTally",
    "critical_note",
    "print_summary",
    "summary_table",
]

MEASURES = ("validity", "correctness", "completeness", "overall")
"""The scores averaged, in the table's order."""
NOT_JUDGED: tuple[str, ...] = get_args(NotJudgedReason)
_CRITICAL: tuple[str, ...] = get_args(CriticalReason)
_LABELS = {"validity": "citation validity"}
FIRST_CRITICAL = 3
"""Trace IDs of critical unsupported claims the summary names."""


def _mean(total: float, n: int) -> str:
    return f"{total / n:.4f}" if n else "not judged"


@dataclass
class QualityTally:
    """The quality figures of the evaluation records of one run."""

    traces: int = 0
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MEASURES, 0.0))
    counts: Counter[str] = field(default_factory=Counter)
    not_judged: Counter[str] = field(default_factory=Counter)
    not_judged_detail: Counter[tuple[str, str]] = field(default_factory=Counter)
    not_judged_important: int = 0
    critical: Counter[str] = field(default_factory=Counter)
    critical_unjudged: int = 0
    findings: Counter[str] = field(default_factory=Counter)
    critical_traces: int = 0
    """Traces with at least one critical unsupported claim."""
    first_critical: list[str] = field(default_factory=list)
    """The IDs of the first :data:`FIRST_CRITICAL` of them, in the order written."""

    def add(self, record: EvaluationRecord) -> None:
        """Count one evaluation record that was written."""
        self.traces += 1
        for measure in MEASURES:
            value = getattr(record.scores, measure)
            if value is not None:
                self.sums[measure] += value
                self.counts[measure] += 1
        for claim in record.claims:
            if claim.not_judged is not None:
                self.not_judged[claim.not_judged] += 1
                self.not_judged_important += claim.importance == 3
                if claim.not_judged_detail is not None:
                    self.not_judged_detail[claim.not_judged, claim.not_judged_detail] += 1
            if claim.critical_reason is not None:
                self.critical[claim.critical_reason] += 1
        self.critical_unjudged += record.scores.critical_unjudged
        if any(claim.critical_reason is not None for claim in record.claims):
            self.critical_traces += 1
            if len(self.first_critical) < FIRST_CRITICAL:
                self.first_critical.append(record.trace_id)
        self.findings.update([finding.code for finding in record.findings])

    def mean(self, measure: str) -> str:
        """The mean of ``measure`` to four places, or "not judged" when no trace had one."""
        return _mean(self.sums[measure], self.counts[measure])

    def rows(self) -> list[tuple[str, str, str]]:
        """(measure, value, n) rows: n is set for means only."""
        rows = [(f"mean {_LABELS.get(m, m)}", self.mean(m), str(self.counts[m])) for m in MEASURES]
        rows.append(("claims not judged", str(sum(self.not_judged.values())), ""))
        for reason in NOT_JUDGED:
            rows.append((f"  not judged: {reason}", str(self.not_judged[reason]), ""))
            rows += [
                (f"    {reason}: {detail}", str(n), "")
                for (of, detail), n in sorted(self.not_judged_detail.items())
                if of == reason
            ]
        rows.append(("  not judged at importance 3", str(self.not_judged_important), ""))
        rows.append(("critical unsupported claims", str(sum(self.critical.values())), ""))
        rows += [(f"  critical: {reason}", str(self.critical[reason]), "") for reason in _CRITICAL]
        rows.append(("critical claims left unjudged", str(self.critical_unjudged), ""))
        rows += [(f"finding: {code}", str(n), "") for code, n in sorted(self.findings.items())]
        return rows


def summary_table(
    title: str, totals: Sequence[tuple[str, str]], quality: QualityTally, judge: JudgeTally
) -> Table:
    """One run's summary: the command's ``totals`` (lines read, traces written...), what the
    judge did, then the quality rows."""
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("n", justify="right")
    for measure, value in (*totals, *judge.rows()):
        table.add_row(measure, value, "")
    for row in quality.rows():
        table.add_row(*row)
    return table


def critical_note(quality: QualityTally, records_in: str) -> str | None:
    """Where to look for the critical unsupported claims: the first trace IDs, and the
    records that hold them (``records_in``: a file, or "-" for standard output)."""
    if not quality.critical_traces:
        return None
    ids = ", ".join(quality.first_critical)
    shown = (
        f"first {len(quality.first_critical)}: {ids}"
        if quality.critical_traces > len(quality.first_critical)
        else ids
    )
    where = "standard output" if records_in == "-" else records_in
    select = "jq -c 'select(.scores.critical_unsupported > 0)'"
    tail = "" if records_in == "-" else f" {records_in}"
    return (
        f"critical unsupported claims in {quality.critical_traces} trace(s) ({shown}); their "
        f"records are in {where}: {select}{tail}"
    )


def print_summary(
    console: Console,
    title: str,
    totals: Sequence[tuple[str, str]],
    quality: QualityTally,
    judge: JudgeTally,
    *,
    records_in: str | None = None,
) -> None:
    """Print :func:`summary_table` on ``console`` (the command's stderr), then, when
    ``records_in`` (where the records went) is given, where the critical claims are."""
    console.print(summary_table(title, totals, quality, judge))
    note = critical_note(quality, records_in) if records_in is not None else None
    if note is not None:
        console.print(note, markup=False, highlight=False, soft_wrap=True)
