"""`citewatch run`: the long-running service, from Kafka or (the embedded default) a file."""

from __future__ import annotations

import logging
from typing import Any

import click
from prometheus_client import CollectorRegistry

from exporters.http import Limits, MetricsServer, serve
from exporters.prometheus import CitewatchMetrics
from exporters.tracing import configure_tracing, get_tracer
from sidecar import __version__
from sidecar._userinfo import mask_userinfo
from sidecar.assembly import build_pipeline
from sidecar.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    config_option,
    exit_now,
    input_format_option,
    one_line_errors,
    settings_from,
)
from sidecar.cli._file_outcome import file_outcome
from sidecar.cli._progress import (
    PROGRESS_MIN_LINES,
    LineProgress,
    count_lines,
    shown_by_default,
)
from sidecar.cli._quality import QualityTally
from sidecar.cli._summary import JudgeTally, judge_choice
from sidecar.config import Settings
from sidecar.errors import CitewatchError
from sidecar.judge import JUDGE_CHOICES
from sidecar.pipeline import Pipeline
from sidecar.runtime import Runtime, build_runtime
from sidecar.runtime.selftest import failures_message, run_selftest, seams_in_use
from sidecar.runtime.shutdown import ShutdownSignals

__all__ = ["run_command"]

logger = logging.getLogger(__name__)

_FLAG_SETTINGS = {
    "bootstrap_servers": "kafka.bootstrap_servers",
    "topic": "kafka.input_topic",
    "group": "kafka.group_id",
    "evaluations_topic": "kafka.evaluations_topic",
    "dead_letter_topic": "kafka.dead_letter_topic",
    "input_path": "input.path",
    "output": "input.output",
    "dead_letters": "input.dead_letters",
    "once": "input.once",
    "metrics_port": "metrics.port",
    "metrics_address": "metrics.address",
    "judge_backend": "judge.backend",
    "sample_rate": "sampling.rate",
    "shutdown_deadline": "runtime.shutdown_deadline_seconds",
    "input_format": "input.format",
    "wait_for_kafka": "kafka.wait_for_kafka",
}
_INPUT_ONLY = ("output", "dead_letters", "once", "append")


def _metrics(settings: Settings) -> tuple[CollectorRegistry, CitewatchMetrics]:
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(
        registry=registry,
        apps=settings.metrics.apps,
        max_apps=settings.metrics.max_apps,
        version=__version__,
    )
    return registry, metrics


def _name_build(metrics: CitewatchMetrics, pipeline: Pipeline) -> None:
    """citewatch_build_info from the judge stage that was built: what actually runs."""
    identity = pipeline.judge.identity if pipeline.judge is not None else None
    metrics.set_build_info(
        version=__version__,
        rubric_version=identity.rubric_version if identity else "",
        judge_model=identity.model if identity else "",
    )


def _serve(registry: CollectorRegistry, settings: Settings, ready: Any, live: Any) -> MetricsServer:
    m = settings.metrics
    limits = Limits(
        max_connections=m.max_connections,
        request_timeout=m.request_timeout_seconds,
        response_timeout=m.response_timeout_seconds,
        backlog=m.backlog,
    )
    try:
        return serve(
            registry, address=m.address, port=m.port, ready=ready, live=live, limits=limits
        )
    except OSError as exc:
        raise CliError(
            f"cannot serve metrics on {settings.metrics.address}:{settings.metrics.port}: "
            f"{exc.strerror or exc}"
        ) from None


def _metrics_url(settings: Settings, server: MetricsServer) -> str:
    return f"http://{settings.metrics.address}:{server.port}/metrics"


def _first_line(settings: Settings, server: MetricsServer) -> str:
    """What is read, where metrics are served (and, for an input that ends, that they are
    served only until then) and which judge runs."""
    path = settings.input.path
    ends = path is not None and (path == "-" or settings.input.once)
    served = " while the run lasts (the endpoint closes with it)" if ends else ""
    tail = f"metrics on {_metrics_url(settings, server)}{served}, judge {judge_choice(settings)}"
    if path is None:
        kafka = settings.kafka
        return (
            f"citewatch run: consuming {kafka.input_topic} at {kafka.bootstrap_servers} "
            f"as group {kafka.group_id}, {tail}"
        )
    follow = path != "-" and not settings.input.once
    return (
        f"citewatch run: {'following' if follow else 'reading'} "
        f"{'standard input' if path == '-' else path}"
        f", records to {settings.input.output or 'standard output'}, {tail}"
        + ("; Ctrl-C stops" if follow else "")
    )


def _progress(settings: Settings, asked: bool | None) -> LineProgress:
    """The progress bar of a file run: the file's lines as its total when it is read to its
    end (--once); on when asked, else for files over PROGRESS_MIN_LINES lines when stderr is
    a terminal."""
    path = settings.input.path
    if path is None or path == "-" or asked is False:
        return LineProgress(total=None, enabled=bool(asked) and path is not None)
    try:
        total = count_lines(path) if settings.input.once else None
    except OSError:  # the runtime's start says why it cannot be read
        total = None
    return LineProgress(total=total, enabled=bool(asked) or shown_by_default(total))


def _echo_judge(settings: Settings, tally: JudgeTally) -> None:
    for line in tally.lines(settings):
        click.echo(line, err=True)


def _run(
    settings: Settings,
    runtime: Runtime,
    registry: CollectorRegistry,
    signals: ShutdownSignals,
    quality: QualityTally,
    tally: JudgeTally,
    progress: LineProgress,
) -> tuple[int, bool]:
    """Serve health and metrics (answering during start-up), say what runs, run it.
    Returns the exit code and whether to leave at once: a thread is still busy with an
    abandoned record, or start-up gave up on an unreachable source with a client
    constructor perhaps still blocked in its thread."""
    server = _serve(registry, settings, runtime.ready, runtime.live)
    click.echo(mask_userinfo(_first_line(settings, server)), err=True)
    try:
        with progress.shown():
            result = runtime.run(signals.event)
    finally:
        server.close()
    if result.summary is not None:
        return file_outcome(
            settings,
            result.summary,
            quality,
            tally,
            left_behind=result.left_behind,
            interrupted=signals.interrupted,
            ended=signals.received is None,
        ), result.left_behind
    if result.gave_up is not None:
        click.echo(f"Error: {mask_userinfo(result.gave_up)}", err=True)
        # A client constructor may still be blocked in its thread (and kafka-python's own
        # threads with it): exit now rather than wait for them in teardown.
        return EXIT_USAGE, True
    if result.started:
        # A service stopped by SIGTERM exits 0 whatever the judge did; the line says what
        # it did.
        _echo_judge(settings, tally)
    return EXIT_INTERRUPTED if signals.interrupted else EXIT_OK, result.left_behind


@click.command("run")
@config_option
@click.option("--bootstrap-servers", default=None, help="Kafka host:port list (comma-separated).")
@click.option("--topic", default=None, help="Input topic of traces.")
@click.option("--group", default=None, help="Consumer group.")
@click.option("--evaluations-topic", default=None, help="Topic of evaluation records.")
@click.option("--dead-letter-topic", default=None, help="Topic of records that cannot be read.")
@click.option(
    "--input",
    "input_path",
    metavar="FILE|-",
    default=None,
    help="Read JSON Lines traces from FILE (or - for stdin) instead of Kafka.",
)
@click.option(
    "--output",
    metavar="FILE",
    default=None,
    help="With --input: write evaluation records here (default stdout); the file "
    "is replaced unless --append.",
)
@click.option(
    "--dead-letters",
    metavar="FILE",
    default=None,
    help="With --input: write bad lines here with line number and reason; "
    "replaced unless --append.",
)
@click.option(
    "--append",
    is_flag=True,
    default=None,
    help="With --input: append to --output and --dead-letters instead of replacing them.",
)
@click.option(
    "--once",
    is_flag=True,
    default=None,
    help="With --input: stop at the end of the input instead of following it.",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port of /metrics, /healthz, /readyz (default 9464; 0 picks one).",
)
@click.option("--metrics-address", default=None, help="Bind address of the metrics port.")
@click.option(
    "--judge",
    "judge_backend",
    type=click.Choice(JUDGE_CHOICES),
    default=None,
    help="Judge backend (default: lexical, the offline screen; an API "
    "key alone never selects an LLM judge).",
)
@click.option(
    "--sample-rate",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Base share of traces the judge sees, by a hash of trace_id.",
)
@click.option(
    "--shutdown-deadline",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds in-flight work may take after SIGTERM (default 20).",
)
@input_format_option
@click.option(
    "--progress/--no-progress",
    default=None,
    help=f"With --input: a progress bar on stderr; on by default for a file of over "
    f"{PROGRESS_MIN_LINES} lines read to its end (--once), when stderr is a terminal.",
)
@click.option(
    "--wait-for-kafka",
    is_flag=True,
    default=None,
    help="Keep trying an unreachable cluster at start-up instead of exiting 2 after "
    "kafka.startup_wait_seconds (default 30).",
)
@one_line_errors
def run_command(
    config_file: str | None, append: bool | None, progress: bool | None, **flags: Any
) -> None:
    """Run the service: consume traces, evaluate, export metrics, until SIGTERM.

    From Kafka by default (at least once: offsets are committed only after each evaluation
    record or dead letter is acknowledged); with --input, from a JSON Lines file or stdin
    with no Kafka at all (a file is followed as it grows unless --once). Metrics, /healthz
    and /readyz are served on the metrics port. A first line on stderr says what is read,
    where metrics are served and which judge runs; with --input, a summary table ends the
    run (what the judge did; each mean with its n, the number of traces that had a value,
    or "not judged"; claims not judged and critical claims by reason; findings).

    Exit codes: 0 done (or stopped by SIGTERM); 1 (with --input) a signal's shutdown deadline
    abandoned lines that were read but not written; 2 usage error, bad settings, unreadable
    input, an input that ended with no trace in it (an earlier --output is then left as it
    was, and a format that reads the lines is named), an installed dependency that fails
    the start-up self-test (citewatch selftest), or Kafka unreachable for
    kafka.startup_wait_seconds (30 s; --wait-for-kafka waits without end); 3 (with --input)
    the judge failed on every trace it was asked about; 130 stopped by Ctrl-C (SIGINT), like
    SIGTERM after finishing and writing what was in flight.

    \b
    Examples:
      citewatch run --input examples/traces.jsonl --once --output evaluations.jsonl
      citewatch run --input traces.jsonl --metrics-port 9464      # follow a growing file
      citewatch run --bootstrap-servers kafka:9092 --group citewatch --config citewatch.yaml
    """
    given = [
        name
        for name in _INPUT_ONLY
        if (append if name == "append" else flags.get(name)) is not None
    ]
    if progress is not None:
        given.append("progress")
    if flags.get("input_path") is None and given:
        spelled = ", ".join("--" + name.replace("_", "-") for name in given)
        raise click.UsageError(
            f"{spelled} only apply with --input FILE|- (without --input, citewatch run reads Kafka)"
        )
    settings = settings_from(config_file, {_FLAG_SETTINGS[k]: v for k, v in flags.items()})
    unused = [name for name in ("output", "dead_letters") if getattr(settings.input, name)]
    if settings.input.path is None and (unused or settings.input.once):
        raise CliError(
            "input.output, input.dead_letters and input.once only apply with "
            "input.path (--input); without it citewatch run reads Kafka"
        )
    # A dependency whose interface changed fails every record alike: found once, here.
    refused = failures_message(run_selftest(settings, only=seams_in_use(settings)))
    if refused is not None:
        raise CliError(refused)
    tally = JudgeTally.for_settings(settings)
    quality = QualityTally()
    bar = _progress(settings, progress)
    # From here on a SIGTERM is a request to stop, honoured in every state that follows.
    signals = ShutdownSignals().install()
    provider: Any = None
    try:
        try:
            registry, metrics = _metrics(settings)
            provider = configure_tracing()
        except (CitewatchError, ValueError) as exc:
            raise CliError(str(exc)) from None
        tracer = get_tracer(provider)
        pipeline = build_pipeline(
            settings,
            judge_observer=metrics,
            on_stage=metrics.observe_stage,
            tracer=tracer,
            on_record=tally.add,
        )
        _name_build(metrics, pipeline)
        runtime = build_runtime(
            settings,
            pipeline=pipeline,
            metrics=metrics,
            tracer=tracer,
            registry=registry,
            append=bool(append),
            on_written=quality.add,
            on_line=bar,
        )
        code, at_once = _run(settings, runtime, registry, signals, quality, tally, bar)
    finally:
        signals.restore()
        shutdown = getattr(provider, "shutdown", None)
        if shutdown is not None:
            shutdown()  # flushes spans still queued for export
    if at_once:
        # Everything else is closed and committed; skip the interpreter's teardown, which a
        # thread still busy with an abandoned record would drag past the shutdown deadline.
        exit_now(code)
    if code != EXIT_OK:
        raise SystemExit(code)
