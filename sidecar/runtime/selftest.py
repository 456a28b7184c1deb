"""A self-test of the seams an installed dependency can break: each one called once.

A dependency inside its declared range can still change an interface citewatch calls (a
keyword a client method no longer takes, a constructor argument, a config key). Such a
change fails every record the same way, so it is found once at start-up instead: each seam
is called in process, without network, the way the service calls it, and each result names
the installed version and, when it failed, the exception's class and where it was raised
(never its text).

    kafka-python        the clients' configuration keys, offsets as committed, a record
                        batch written and read back with its CRC checked
    opentelemetry-sdk   a judge span through the SDK's tracer provider, exported in memory
    opentelemetry-proto an OTLP export request encoded and decoded
    prometheus-client   every citewatch metric registered, one judge call counted, exposed
    citewatch           the native redaction engine: imported and redacting one address
    openai              the judge's request path: a chat completion and a server error
                        through the client, the bounded transport and the reply models

``citewatch run`` refuses to start when one fails (:func:`failures_message`);
``citewatch selftest`` shows every result.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from sidecar.config import Settings

__all__ = ["SEAMS", "SeamResult", "failures_message", "run_selftest", "seams_in_use"]

logger = logging.getLogger(__name__)

_ADDRESS = "jane.doe@example.com"


@dataclass(frozen=True, slots=True)
class SeamResult:
    """How one seam answered: ``error`` is None when it worked."""

    distribution: str
    version: str
    what: str
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the seam worked."""
        return self.error is None

    def line(self) -> str:
        """``distribution version: ok`` or ``...: failed: <class> at <where> (<what>)``."""
        state = "ok" if self.error is None else f"failed: {self.error}"
        return f"{self.distribution} {self.version}: {state} ({self.what})"


class SeamError(Exception):
    """A seam answered, but not as citewatch needs (the message names what differs)."""


def _installed(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "(not installed)"


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "an unknown location"
    last = frames[-1]
    parts = last.filename.replace("\\", "/").rsplit("/", 2)
    return f"{'/'.join(parts[-2:])}:{last.lineno} in {last.name}"


# -- the seams ----------------------------------------------------------------------------------


def _kafka(settings: Settings) -> None:
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka.record import MemoryRecords, MemoryRecordsBuilder
    from kafka.structs import OffsetAndMetadata, TopicPartition

    from sidecar.runtime.kafka_clients import admin_config, consumer_config, producer_config

    for client, config in (
        (KafkaConsumer, consumer_config(settings)),
        (KafkaProducer, producer_config(settings)),
        (KafkaAdminClient, admin_config(settings)),
    ):
        unknown = sorted(set(config) - set(client.DEFAULT_CONFIG))
        if unknown:
            raise SeamError(f"{client.__name__} does not take {', '.join(unknown)}")
    OffsetAndMetadata(1, "", -1)
    TopicPartition("citewatch", 0)
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1024)
    builder.append(timestamp=None, key=b"key", value=b"value", headers=[("h", b"v")])
    builder.close()
    batch = MemoryRecords(builder.buffer()).next_batch()
    if batch is None or not batch.validate_crc():
        raise SeamError("a record batch written here does not read back with its CRC")
    [record] = list(batch)
    if (record.key, record.value) != (b"key", b"value"):
        raise SeamError("a record batch reads back other bytes than were written")


def _otel_sdk(_settings: Settings) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from exporters.tracing import get_tracer, judge_span, set_judge_usage

    del OTLPSpanExporter  # imported: what OTEL_TRACES_EXPORTER=otlp builds
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        with judge_span(get_tracer(provider), model="selftest", operation="chat") as span:
            set_judge_usage(span, input_tokens=1, output_tokens=1)
        if len(exporter.get_finished_spans()) != 1:
            raise SeamError("the span was not exported")
    finally:
        provider.shutdown()


def _otel_proto(_settings: Settings) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    span.name = "selftest"
    decoded = ExportTraceServiceRequest.FromString(request.SerializeToString())
    if decoded.resource_spans[0].scope_spans[0].spans[0].name != "selftest":
        raise SeamError("an OTLP request does not decode to what was encoded")


def _prometheus(_settings: Settings) -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from exporters.prometheus import CitewatchMetrics

    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, apps=["selftest"])
    metrics.judge_request(
        model="selftest", outcome="ok", latency_seconds=0.1, input_tokens=1, output_tokens=1
    )
    exposed = generate_latest(registry)
    if b'citewatch_judge_requests_total{model="selftest",outcome="ok"} 1.0' not in exposed:
        raise SeamError("a counted judge call is not in the exposition")


def _native(settings: Settings) -> None:
    from sidecar.redaction import build_redactor

    redactor = build_redactor(settings.redaction)
    if _ADDRESS in redactor.redact_text(f"write to {_ADDRESS} today").text:
        raise SeamError("the engine left an e-mail address in place")


def _openai(settings: Settings) -> None:
    import openai
    from pydantic import SecretStr

    from schemas import JudgeResult
    from sidecar.judge._openai_http import (
        HTTP_LIBRARY,
        make_client,
        post_json,
        translate_error,
    )
    from sidecar.judge._openai_reply import ChatReply

    content = json.dumps({"verdicts": []})

    def answer(request: Any) -> Any:
        if request.url.path.endswith("/failing/chat/completions"):
            return HTTP_LIBRARY.Response(500, json={"error": {"message": "selftest"}})
        body = json.loads(request.content)
        if body.get("model") != "selftest":
            return HTTP_LIBRARY.Response(400, json={"error": {"message": "no model"}})
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant"}}
        choice["message"]["content"] = content  # type: ignore[index]
        return HTTP_LIBRARY.Response(200, json={"object": "chat.completion", "choices": [choice]})

    async def calls() -> None:
        judge = settings.judge.model_copy(
            update={"api_key": SecretStr("selftest"), "base_url": "http://selftest.invalid/v1"}
        )
        client = make_client(judge, transport=HTTP_LIBRARY.MockTransport(answer))
        try:
            body = json.dumps({"model": "selftest", "messages": []}).encode()
            response = await post_json(client, "/chat/completions", body, timeout=5.0)
            reply = ChatReply.model_validate_json(response.content)
            choices = reply.choices or []
            if not choices or choices[0].message.content is None:
                raise SeamError("a chat completion reads back without its content")
            JudgeResult.model_validate_json(choices[0].message.content)
            try:
                await post_json(client, "/failing/chat/completions", body, timeout=5.0)
            except openai.OpenAIError as exc:
                if translate_error(exc).kind != "api_error":
                    raise SeamError("a server error is not the judge error api_error") from exc
            else:
                raise SeamError("a server error raised nothing")
        finally:
            await client.close()

    asyncio.run(calls())


_SEAMS: tuple[tuple[str, str, Callable[[Settings], None]], ...] = (
    ("openai", "the judge's request path", _openai),
    ("kafka-python", "client settings, offsets, record batches", _kafka),
    ("opentelemetry-sdk", "a judge span", _otel_sdk),
    ("opentelemetry-proto", "OTLP spans as input", _otel_proto),
    ("prometheus-client", "the metrics", _prometheus),
    ("citewatch", "the native redaction engine", _native),
)


SEAMS: tuple[str, ...] = tuple(distribution for distribution, _, _ in _SEAMS)
"""The seams by the distribution each one names, in the order they are tested."""


def seams_in_use(settings: Settings) -> tuple[str, ...]:
    """The seams a ``citewatch run`` with ``settings`` calls: the judge's only with an
    OpenAI-API judge, kafka-python only without ``input.path``."""
    from sidecar.judge.registry import BACKENDS, resolve_backend_name

    name = resolve_backend_name(settings)
    judge = name in BACKENDS and BACKENDS[name].needs_api_key  # type: ignore[index]
    return tuple(
        seam
        for seam in SEAMS
        if (seam != "openai" or judge) and (seam != "kafka-python" or settings.input.path is None)
    )


def run_selftest(settings: Settings, *, only: Iterable[str] | None = None) -> list[SeamResult]:
    """Call every seam once (those of ``only``, when given); one result each, in a fixed
    order. Never raises for a seam; must not be called from a running event loop (the
    judge's seam runs its own)."""
    chosen = set(SEAMS if only is None else only)
    results = []
    for distribution, what, check in _SEAMS:
        if distribution not in chosen:
            continue
        started = time.perf_counter()
        error: str | None = None
        try:
            check(settings)
        except SeamError as exc:
            error = str(exc)
        except Exception as exc:  # any failure of the seam is the finding itself
            error = f"{type(exc).__name__} at {_where(exc)}"
        results.append(
            SeamResult(
                distribution,
                _installed(distribution),
                what,
                round(time.perf_counter() - started, 6),
                error,
            )
        )
    logger.info("self-test: %s", "; ".join(result.line() for result in results))
    return results


def failures_message(results: list[SeamResult]) -> str | None:
    """One line per seam that failed, for a refusal to start; None when every seam worked."""
    failed = [result.line() for result in results if not result.ok]
    if not failed:
        return None
    return "the installed dependencies fail citewatch's self-test: " + "; ".join(failed)
