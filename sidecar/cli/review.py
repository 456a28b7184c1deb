"""`citewatch review`: the review queue's store, its page, and what feeds it."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import click

from sidecar.cli._common import CliError, config_option, one_line_errors, settings_from
from sidecar.config import Settings
from sidecar.review.store import ReviewStore

__all__ = ["review_group"]

logger = logging.getLogger(__name__)

_store_option = click.option(
    "--store",
    "store",
    metavar="FILE",
    default=None,
    help="The review store (SQLite file; must exist) [default: review.store].",
)
_new_store_option = click.option(
    "--store",
    "store",
    metavar="FILE",
    default=None,
    help="The review store (SQLite file; created if missing) [default: review.store].",
)


_MODES = {
    "proxy": "the proxy's user header",
    "tokens": "their own tokens",
    "open": "name, on loopback",
}


def _open(settings: Settings, *, create: bool = False) -> ReviewStore:
    """The configured store; only the commands that fill one (``create``) make a new file,
    so a mistyped path is an error rather than an empty store."""
    if not settings.review.store:
        raise CliError(
            "no review store: pass --store FILE or set review.store (CITEWATCH_REVIEW_STORE)"
        )
    if not create and not Path(settings.review.store).is_file():
        raise CliError(
            f"no review store at {settings.review.store} (review import or review consume "
            "creates one)"
        )
    return ReviewStore(
        settings.review.store,
        caps=settings.review.daily_caps,
        reviewers=settings.review.reviewers_per_item,
    )


def _consumer(settings: Settings, group: str) -> Any:
    from kafka import KafkaConsumer
    from kafka.errors import KafkaError

    from sidecar.runtime.kafka_clients import check_client_files, review_consumer_config
    from sidecar.runtime.kafka_diagnosis import KafkaErrorWatch
    from sidecar.runtime.startup import StartupAbandoned, build_until_stopped

    if settings.review.topic is None:
        raise CliError("no review topic: pass --topic or set review.topic (CITEWATCH_REVIEW_TOPIC)")
    check_client_files(settings, ("review",))
    config = review_consumer_config(settings, group)
    # Built in a thread so refused credentials or TLS end it at once, not after
    # kafka-python's bootstrap timeout (its threads are daemons: nothing holds the exit).
    with KafkaErrorWatch(settings, "review") as watch:
        try:
            consumer = build_until_stopped(
                lambda: KafkaConsumer(**config),
                stop=threading.Event(),
                retriable=lambda exc: False,
                what="the review consumer",
                failed=watch.failed,
            )
        except KafkaError as exc:
            raise CliError(watch.explain(type(exc).__name__)) from None
        except StartupAbandoned:
            raise CliError(watch.explain("no answer")) from None
    assert consumer is not None  # only a set stop event returns None, and none is set
    consumer.subscribe([settings.review.topic])
    return consumer


@click.group("review")
def review_group() -> None:
    """The review queue: claims citewatch is unsure of, or that matter most, and an audit
    slice, labelled by people in a small web page. Guide: docs/review.md.

    \b
    Examples:
      citewatch review serve --store review.sqlite
      citewatch review import evaluations.jsonl --traces traces.jsonl --store review.sqlite
      citewatch review consume --bootstrap-servers kafka:9092 --store review.sqlite
      citewatch calibrate --from-review review.sqlite
    """


@review_group.command("serve")
@config_option
@click.option(
    "--store",
    "store",
    metavar="FILE",
    default=None,
    help="The review store (SQLite file; must exist unless --consume) [default: review.store].",
)
@click.option(
    "--host",
    default=None,
    help="Bind address [default: review.host, 127.0.0.1]; any other than loopback "
    "needs review.reviewer_tokens or review.proxy_user_header.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port [default: review.port, 8470; 0 picks one].",
)
@click.option(
    "--consume",
    is_flag=True,
    help="Also read the review topic into the store (kafka.bootstrap_servers, review.topic).",
)
@click.option(
    "--group", default="citewatch-review", show_default=True, help="Consumer group of --consume."
)
@one_line_errors
def serve_command(
    config_file: str | None,
    store: str | None,
    host: str | None,
    port: int | None,
    consume: bool,
    group: str,
) -> None:
    """Serve the reviewers' page until interrupted.

    One claim at a time by priority, its cited passages with the evidence quote marked;
    keys s / p / u / k label it supported / partial / unsupported / skip, 1-9 choose a
    failure type, n types a note. /metrics serves the queue's metrics (queue depth by
    reason, labels, reviewer agreement). Reviewers are known by their own tokens
    (review.reviewer_tokens, kept hashed), by an authenticating proxy's user header
    (review.proxy_user_header from review.trusted_proxies), or, for one reviewer per item
    on loopback only, by the name they type. Tokens never come from a flag.

    Exit codes: 0 stopped; 2 bad settings, no store, a page reachable beyond loopback
    without per-reviewer identity, a weak review.token, or the port taken.

    \b
    Examples:
      citewatch review serve --store review.sqlite
      citewatch review serve --config review.yaml   # reviewer_tokens, public_names
    """
    from sidecar.review.access import AccessError, access_from_settings
    from sidecar.review.server import create_review_server
    from sidecar.review.web import create_app

    settings = settings_from(
        config_file, {"review.store": store, "review.host": host, "review.port": port}
    )
    review = settings.review
    try:
        access = access_from_settings(review)
    except AccessError as exc:
        raise CliError(str(exc)) from None
    opened = _open(settings, create=consume)
    app = create_app(opened, access=access)
    try:
        server = create_review_server(app, host=review.host, port=review.port)
    except OSError as exc:
        raise CliError(
            f"cannot serve on {review.host}:{review.port}: {exc.strerror or exc}"
        ) from None
    stop = threading.Event()
    if consume:
        from sidecar.review.consume import consume as consume_topic

        consumer = _consumer(settings, group)
        threading.Thread(
            target=consume_topic, args=(consumer, opened, stop), daemon=True, name="review-consume"
        ).start()
    bound = server.port
    click.echo(
        f"citewatch review: serving {opened.path} on http://{review.host}:{bound}/"
        + f" (reviewers known by {_MODES[access.mode]})"
        + "; Ctrl-C stops",
        err=True,
    )
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.close()
        opened.close()


@review_group.command("token")
@click.argument("name")
def token_command(name: str) -> None:
    """Make a new token for reviewer NAME: prints the token (give it to them) and the
    settings line that keeps only its SHA-256 (add it to review.reviewer_tokens).

    Exit codes: 0 printed; 2 a name that is empty, longer than 64 characters or not
    printable.

    \b
    Examples:
      citewatch review token ann
    """
    import secrets

    from sidecar.review.access import hash_token

    if not name or len(name) > 64 or not name.isprintable():
        raise click.UsageError("NAME must be 1 to 64 printable characters")
    token = secrets.token_urlsafe(32)
    click.echo(f"token for {name} (give it to them, it is not kept): {token}")
    click.echo("add to the settings:")
    click.echo("review:\n  reviewer_tokens:\n" + f'    "{name}": "{hash_token(token)}"')


@review_group.command("import")
@config_option
@_new_store_option
@click.argument("records", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--traces",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The traces the records were made from (JSON Lines): their cited "
    "passages are redacted with the configured redaction and kept.",
)
@one_line_errors
def import_command(
    config_file: str | None, store: str | None, records: tuple[str, ...], traces: str | None
) -> None:
    """Route the claims of evaluation-record files (JSON Lines, or directories of them)
    into the store, by the review settings (routes, audit rate, caps).

    Without --traces the items carry the cited source IDs but no passage text (records
    hold only the redacted claim text).

    Exit codes: 0 done; 2 unreadable records or traces, or no store.

    \b
    Examples:
      citewatch review import evaluations.jsonl --traces traces.jsonl --store review.sqlite
    """
    from sidecar.decode import decode_trace
    from sidecar.errors import TraceError
    from sidecar.quality._io import read_records, record_files
    from sidecar.review.importer import items_from_records, redacted_traces

    settings = settings_from(config_file, {"review.store": store})
    files = [file for path in records for file in record_files(path)]
    evaluated = list(read_records(files, strict=True))
    redacted = None
    if traces is not None:
        decoded = []
        for number, line in enumerate(Path(traces).read_bytes().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                decoded.append(decode_trace(line))
            except TraceError as exc:
                raise CliError(f"{traces}:{number}: {exc}") from None
        redacted = redacted_traces(decoded, settings)
    items = items_from_records(evaluated, settings, traces=redacted)
    with _open(settings, create=True) as opened:
        result = opened.add(items)
    click.echo(
        f"citewatch review import: {len(evaluated)} records, {len(items)} routed "
        f"claims: {result.stored} stored, {result.duplicates} already there, "
        f"{result.capped} over the day's caps",
        err=True,
    )


@review_group.command("consume")
@config_option
@_new_store_option
@click.option("--bootstrap-servers", default=None, help="Kafka host:port list.")
@click.option("--topic", default=None, help="The review topic [default: review.topic].")
@click.option("--group", default="citewatch-review", show_default=True, help="Consumer group.")
@one_line_errors
def consume_command(
    config_file: str | None,
    store: str | None,
    bootstrap_servers: str | None,
    topic: str | None,
    group: str,
) -> None:
    """Read the review topic into the store until SIGTERM or Ctrl-C (at least once; each
    item is stored once by its ID).

    Exit codes: 0 stopped; 2 bad settings, no store or topic, or Kafka unusable.

    \b
    Examples:
      citewatch review consume --bootstrap-servers kafka:9092 --topic citewatch.review \\
          --store review.sqlite
    """
    from sidecar.review.consume import consume
    from sidecar.runtime.shutdown import ShutdownSignals

    settings = settings_from(
        config_file,
        {
            "review.store": store,
            "review.topic": topic,
            "kafka.bootstrap_servers": bootstrap_servers,
        },
    )
    opened = _open(settings, create=True)
    consumer = _consumer(settings, group)
    signals = ShutdownSignals().install()
    click.echo(
        f"citewatch review consume: {settings.review.topic} at "
        f"{settings.kafka.bootstrap_servers} into {opened.path}",
        err=True,
    )
    try:
        summary = consume(consumer, opened, signals.event)
    finally:
        signals.restore()
        consumer.close()
        opened.close()
    click.echo(
        f"citewatch review consume: {summary.records} records, {summary.stored} "
        f"stored, {summary.duplicates} already there, {summary.capped} over the "
        f"day's caps, {summary.bad} not review items",
        err=True,
    )


@review_group.command("status")
@config_option
@_store_option
@one_line_errors
def status_command(config_file: str | None, store: str | None) -> None:
    """Print the queue: items waiting by reason, labels, disagreements, agreement.

    Exit codes: 0 printed; 2 no store or an unusable one.

    \b
    Examples:
      citewatch review status --store review.sqlite
    """
    settings = settings_from(config_file, {"review.store": store})
    with _open(settings) as opened:
        depth = opened.queue_depth()
        labels = opened.labels()
        agree, total = opened.agreement()
        click.echo("waiting: " + ", ".join(f"{k} {v}" for k, v in depth.items()))
        click.echo(
            f"labels: {len(labels)} ({len(opened.final_labels())} items settled), "
            f"disagreements: {len(opened.disagreements())}, reviewer agreement: "
            + (f"{agree}/{total}" if total else "n/a")
        )


@review_group.command("purge")
@config_option
@_store_option
@click.option(
    "--older-than",
    "days",
    type=click.FloatRange(min=0.0),
    required=True,
    metavar="DAYS",
    help="Delete unlabelled items received more than DAYS ago.",
)
@one_line_errors
def purge_command(config_file: str | None, store: str | None, days: float) -> None:
    """Delete unlabelled items older than DAYS (retention); labelled items and every label
    are kept, as calibration data.

    Exit codes: 0 done; 2 no store or an unusable one.

    \b
    Examples:
      citewatch review purge --older-than 90 --store review.sqlite
    """
    settings = settings_from(config_file, {"review.store": store})
    with _open(settings) as opened:
        deleted = opened.purge(older_than_days=days)
    click.echo(f"citewatch review purge: {deleted} unlabelled items deleted", err=True)
