"""`citewatch gate`: the release gate against a frozen baseline."""

from __future__ import annotations

from pathlib import Path

import click

from sidecar.cli._common import (
    EXIT_FAILED,
    config_option,
    one_line_errors,
    output_option,
    settings_from,
)
from sidecar.quality.gate import decide, load_summary

__all__ = ["gate_command"]


@click.command("gate")
@click.option(
    "--baseline",
    required=True,
    type=click.Path(exists=True),
    help="Frozen baseline: evaluations (JSON Lines file or directory) or summary JSON.",
)
@click.option(
    "--candidate",
    required=True,
    type=click.Path(exists=True),
    help="Candidate: evaluations (JSON Lines file or directory) or summary JSON.",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Largest allowed drop of the mean overall score [default: gate.tolerance "
    "from the settings, 0.03].",
)
@output_option(
    "summary_out",
    name="--summary-output",
    aliases=("--summary-out",),
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the candidate's summary JSON (freeze it as the next baseline).",
)
@config_option
@one_line_errors
def gate_command(
    baseline: str,
    candidate: str,
    tolerance: float | None,
    summary_out: str | None,
    config_file: str | None,
) -> None:
    """Fail (exit 1) when the candidate regresses against the baseline.

    Fails when the mean overall score drops by more than the tolerance, when any citation ID
    is unresolved, or when any critical claim is unsupported; prints every reason.

    Exit codes: 0 the candidate passes; 1 it fails (a regression); 2 usage error or a
    baseline or candidate that cannot be read.

    \b
    Examples:
      citewatch gate --baseline baseline-summary.json --candidate evaluations/
      citewatch gate --baseline base.jsonl --candidate cand.jsonl --tolerance 0.02 \\
          --summary-output next-baseline.json
    """
    settings = settings_from(config_file, {"gate.tolerance": tolerance})
    base = load_summary(baseline)
    cand = load_summary(candidate)
    if summary_out is not None:
        Path(summary_out).write_text(cand.model_dump_json(indent=2) + "\n", encoding="utf-8")
    decision = decide(base, cand, tolerance=settings.gate.tolerance)

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    delta = "n/a" if decision.delta is None else f"{decision.delta:+.4f}"
    click.echo(
        f"baseline overall {fmt(base.overall)} ({base.judged} judged of {base.traces}), "
        f"candidate overall {fmt(cand.overall)} ({cand.judged} judged of {cand.traces}), "
        f"change {delta}, tolerance {settings.gate.tolerance:.4f}"
    )
    for note in decision.notes:
        click.echo(f"note: {note}")
    if decision.passed:
        click.echo("gate: PASS")
        return
    for reason in decision.reasons:
        click.echo(f"FAIL: {reason}")
    click.echo(f"gate: FAIL ({len(decision.reasons)} reason(s))")
    raise SystemExit(EXIT_FAILED)
