"""The `citewatch` click group: every command of `sidecar.cli` registered on it."""

from __future__ import annotations

from typing import Any

import click

from sidecar import __version__
from sidecar.cli._logging import configure_logging
from sidecar.cli.calibrate import calibrate_command
from sidecar.cli.check import check_command
from sidecar.cli.config import config_group
from sidecar.cli.gate import gate_command
from sidecar.cli.redact import redact_command
from sidecar.cli.replay import replay_command
from sidecar.cli.report import report_command
from sidecar.cli.review import review_group
from sidecar.cli.run import run_command
from sidecar.cli.stability import stability_command

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="citewatch")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-v INFO, -vv DEBUG).")
def cli(verbose: int) -> None:
    """citewatch: live checks of the citations in a RAG application's answers.

    Reads answer traces (from Kafka or a JSON Lines file), checks every citation
    deterministically, asks a judge whether cited passages support each claim, and exports
    validity, correctness and completeness as Prometheus metrics and evaluation records.

    Exit codes of every command: 0 ok; 1 the gate failed (a regression); 2 usage error,
    invalid settings or unreadable input; 3 the judge failed on every call it was asked.
    Producing traces: docs/producing.md; judges and reading the reports: docs/judges.md.

    \b
    Examples:
      citewatch run --input examples/traces.jsonl --once --output evaluations.jsonl
      citewatch check examples/traces.jsonl --output evaluations.jsonl
      citewatch run --bootstrap-servers kafka:9092 --config citewatch.yaml
    """
    configure_logging(verbose)


cli.add_command(check_command)
cli.add_command(config_group)
cli.add_command(calibrate_command)
cli.add_command(gate_command)
cli.add_command(report_command)
cli.add_command(replay_command)
cli.add_command(stability_command)
cli.add_command(run_command)
cli.add_command(redact_command)
cli.add_command(review_group)


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    return cli.main(args=argv, prog_name="citewatch")
