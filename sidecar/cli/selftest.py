"""`citewatch selftest`: call each dependency seam once and name the installed versions."""

from __future__ import annotations

import click

from sidecar.cli._common import CliError, config_option, settings_from
from sidecar.runtime.selftest import failures_message, run_selftest

__all__ = ["selftest_command"]


@click.command("selftest")
@config_option
def selftest_command(config_file: str | None) -> None:
    """Call each seam of the installed dependencies once and say how it answered.

    The judge's request path through the openai client, kafka-python's client settings and
    record batches, a span through the OpenTelemetry SDK, OTLP protobuf messages, the
    Prometheus metrics and the native redaction engine are each called in process, without
    network. One line per seam names the installed version and, when it failed, the
    exception's class and where it was raised. `citewatch run` runs the seams it uses at
    start-up and refuses to start when one fails.

    Exit codes: 0 every seam works; 2 bad settings, or a seam failed (install a version in
    the range pyproject.toml declares).

    \b
    Example:
      citewatch selftest --config citewatch.yaml
    """
    settings = settings_from(config_file, {})
    results = run_selftest(settings)
    for result in results:
        click.echo(result.line())
    failed = failures_message(results)
    if failed is not None:
        raise CliError(failed)
