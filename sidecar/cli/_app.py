"""The `citewatch` click group: every command of `sidecar.cli` registered on it."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from gettext import gettext as _
from typing import Any

import click

from sidecar import __version__
from sidecar.cli._logging import configure_logging

__all__ = ["cli", "main"]

# Every command, as "module:attribute". A command's module is imported when the command is
# looked up (to run it or to show its help), so `citewatch check` does not import what
# `citewatch calibrate` or `citewatch review serve` need.
_COMMANDS: dict[str, str] = {
    "check": "sidecar.cli.check:check_command",
    "config": "sidecar.cli.config:config_group",
    "calibrate": "sidecar.cli.calibrate:calibrate_command",
    "gate": "sidecar.cli.gate:gate_command",
    "report": "sidecar.cli.report:report_command",
    "replay": "sidecar.cli.replay:replay_command",
    "stability": "sidecar.cli.stability:stability_command",
    "run": "sidecar.cli.run:run_command",
    "redact": "sidecar.cli.redact:redact_command",
    "review": "sidecar.cli.review:review_group",
    "selftest": "sidecar.cli.selftest:selftest_command",
}


# Each command's summary: the first paragraph of its help, which is all `citewatch --help`
# shows of it (shortened to the terminal's width). Listed here so the group's help imports no
# command; tests/cli/test_help_listing.py holds each to its command's own help.
_SUMMARIES: dict[str, str] = {
    "check": "Evaluate JSON Lines traces from FILE (or - for stdin) without Kafka.",
    "config": "Inspect the settings citewatch would run with.",
    "calibrate": "Compare judge verdicts with human labels in LABELS (CSV or JSON Lines).",
    "gate": "Fail (exit 1) when the candidate regresses against the baseline.",
    "report": "Write the weekly quality report (self-contained HTML and Markdown) and print "
    "the Markdown.",
    "replay": "Re-judge a human-labelled set with the configured judge and calibrate the result.",
    "stability": "Re-judge a fixed slice of TRACES several times and print the spread.",
    "run": "Run the service: consume traces, evaluate, export metrics, until SIGTERM.",
    "redact": "Redact JSON Lines from FILE (or - for stdin) with the configured redaction "
    "settings.",
    "review": "The review queue: claims citewatch is unsure of, or that matter most, and an "
    "audit slice, labelled by people in a small web page. Guide: docs/review.md.",
    "selftest": "Call each seam of the installed dependencies once and say how it answered.",
}


class _LazyCommands(MutableMapping[str, click.Command]):
    """A group's commands by name, each imported from its module on first lookup."""

    def __init__(self, specs: dict[str, str]) -> None:
        self._specs = dict(specs)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        command = self._loaded.get(name)
        if command is None:
            module, _, attribute = self._specs[name].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{self._specs[name]} is not a click command")
            if command.name != name:
                raise ValueError(f"{self._specs[name]} is named {command.name!r}, not {name!r}")
            self._loaded[name] = command
        return command

    def listing(self, name: str) -> click.Command:
        """What the group's help lists for ``name``: the command when it is imported (or was
        added as a command), else a stand-in with its summary and nothing else."""
        command = self._loaded.get(name)
        if command is None:
            return click.Command(name, help=_SUMMARIES[name])
        return command

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._specs[name] = ""
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._specs[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)


class _LazyGroup(click.Group):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = self._lazy = _LazyCommands(_COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their summaries, as click lists them, without importing them."""
        commands = [(name, self._lazy.listing(name)) for name in self.list_commands(ctx)]
        commands = [(name, command) for name, command in commands if not command.hidden]
        if commands:
            # click's own layout: three times the default spacing after the longest name
            limit = formatter.width - 6 - max(len(name) for name, command in commands)
            rows = [(name, command.get_short_help_str(limit)) for name, command in commands]
            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    return cli.main(args=argv, prog_name="citewatch")
