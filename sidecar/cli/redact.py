"""`citewatch redact`: try the redaction settings on sample texts or traces."""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from collections.abc import Callable
from typing import IO, Any

import click

from sidecar.cli._common import (
    CliError,
    config_option,
    one_line_errors,
    open_output,
    output_option,
    settings_from,
)
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from sidecar.redaction import Redactor, build_redactor

__all__ = ["redact_command"]


class _BadLine(ValueError):
    """A {"text": ...} line that cannot be read; the message never quotes the line."""


def _redact_text_line(redactor: Redactor, line: str, totals: Counter[str]) -> str:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # JSONDecodeError, json's integer limit, nesting
        raise _BadLine("not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise _BadLine('expected an object with a string "text"')
    result = redactor.redact_text(data["text"])
    totals.update(entity.type for entity in result.entities)
    entities = [{"type": e.type, "start": e.start, "end": e.end} for e in result.entities]
    return json.dumps({"text": result.text, "entities": entities}, ensure_ascii=False)


def _redact_trace_line(
    redactor: Redactor, line: str, totals: Counter[str], *, limits: DecodeLimits
) -> str:
    trace = decode_trace(line, limits=limits)
    redacted, counts = redactor.redact(trace)
    totals.update(counts)
    return redacted.model_dump_json(exclude_defaults=True)


@click.command("redact")
@click.argument(
    "source", metavar="FILE|-", type=click.Path(allow_dash=True, dir_okay=False), default="-"
)
@click.option(
    "--traces",
    is_flag=True,
    help='Lines are whole traces (trace schema v1), not {"text": ...} objects.',
)
@output_option(
    "out_path",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    show_default=True,
    help="Where the redacted JSON Lines go (replaced).",
)
@config_option
@one_line_errors
def redact_command(source: str, traces: bool, out_path: str, config_file: str | None) -> None:
    """Redact JSON Lines from FILE (or - for stdin) with the configured redaction settings.

    Each {"text": ...} line becomes {"text": redacted, "entities": [{type, start, end}]},
    offsets into the original text; with --traces each trace is written back redacted.
    Counts per entity type go to stderr; a bad line is reported by number and skipped.
    The settings are those `citewatch run` uses (--config, CITEWATCH_REDACTION_*), even
    when redaction.enabled is false, so they can be tried before they are switched on.

    Exit codes: 0 done; 2 usage error, bad settings or unreadable input.

    \b
    Examples:
      echo '{"text": "mail jane@example.com"}' | citewatch redact
      citewatch redact --traces examples/traces.jsonl --output redacted.jsonl
    """
    settings = settings_from(config_file, {})
    redactor = build_redactor(settings.redaction)
    totals: Counter[str] = Counter()
    bad = 0
    handle: Callable[[Redactor, str, Counter[str]], str] = _redact_text_line
    if traces:
        handle = functools.partial(_redact_trace_line, limits=DecodeLimits.from_settings(settings))
    try:
        in_stream: IO[str] = (
            sys.stdin if source == "-" else open(source, encoding="utf-8", errors="surrogateescape")
        )
    except OSError as exc:
        raise CliError(f"cannot read {source}: {exc.strerror}") from None
    out_stream: IO[str] = sys.stdout if out_path == "-" else open_output(out_path)
    try:
        for number, line in enumerate(in_stream, start=1):
            if not line.strip():
                continue
            try:
                redacted = handle(redactor, line, totals)
                redacted.encode("utf-8")  # a lone surrogate would fail the write below
            except Exception as exc:
                # One bad line never ends the run. The reason only: a message could quote
                # the line's raw text (a _BadLine's does not).
                reason = (
                    exc.reason
                    if isinstance(exc, TraceError)
                    else str(exc)
                    if isinstance(exc, _BadLine)
                    else f"error: {type(exc).__name__}"
                )
                click.echo(f"line {number}: {reason}", err=True)
                bad += 1
                continue
            out_stream.write(redacted + "\n")
    finally:
        if in_stream is not sys.stdin:
            in_stream.close()
        if out_stream is not sys.stdout:
            out_stream.close()
        else:
            out_stream.flush()
    summary: dict[str, Any] = dict(sorted(totals.items()))
    for entity_type, count in summary.items():
        click.echo(f"{entity_type}\t{count}", err=True)
    click.echo(f"total\t{sum(totals.values())}" + (f"\tbad lines\t{bad}" if bad else ""), err=True)
