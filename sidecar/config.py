"""The one settings object of citewatch.

Built by the CLI from (highest first) command-line flags, ``CITEWATCH_*`` environment
variables, an optional YAML file, and the defaults below. Settings are grouped in sections;
an environment variable names the section then the field: ``CITEWATCH_JUDGE_MODEL`` sets
``judge.model``, ``CITEWATCH_METRICS_PORT`` sets ``metrics.port``.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from schemas import InputFormat, JudgeChoice, RedactionType, ReviewRoute, VerdictLabel
from sidecar._regex import compile_linear
from sidecar._userinfo import mask_userinfo
from sidecar.errors import ConfigError, describe_validation_error

__all__ = [
    "ChecksSettings",
    "ClaimsSettings",
    "CustomPattern",
    "DeadLetterPayload",
    "DeadLetterSettings",
    "DeriveMode",
    "GateSettings",
    "InputSettings",
    "JudgeSettings",
    "KafkaSettings",
    "LimitsSettings",
    "MetricsSettings",
    "ProducerSettings",
    "RedactionSettings",
    "ReviewSettings",
    "RuntimeSettings",
    "SamplingSettings",
    "ScoringSettings",
    "Settings",
    "load_settings",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


class ScoringSettings(_Section):
    """How the per-trace scores are combined."""

    weight_correctness: float = Field(default=0.45, ge=0.0, le=1.0)
    """Weight of correctness in the overall score."""
    weight_completeness: float = Field(default=0.40, ge=0.0, le=1.0)
    """Weight of completeness in the overall score."""
    weight_validity: float = Field(default=0.15, ge=0.0, le=1.0)
    """Weight of citation validity in the overall score."""
    partial_credit: float = Field(default=0.5, ge=0.0, le=1.0)
    """Value of a 'partial' verdict (supported is 1.0, unsupported 0.0)."""

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> ScoringSettings:
        total = self.weight_correctness + self.weight_completeness + self.weight_validity
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"overall weights must sum to 1.0, they sum to {total:.4f}")
        return self


class ChecksSettings(_Section):
    """Deterministic checks."""

    marker_pattern: str | None = None
    """A regex (RE2 syntax: linear time, no backreferences or lookaround) whose first group
    is the text inside one citation marker (IDs separated by commas or semicolons).
    Default: bracketed IDs like [S1], [1], [S1, S2]."""
    max_record_bytes: int = Field(default=1_048_576, gt=0)
    """Records larger than this are dead-lettered with reason too_large."""
    max_json_depth: int = Field(default=32, gt=1)
    """JSON nested deeper than this is dead-lettered with reason too_deep."""

    @model_validator(mode="after")
    def _linear_marker_pattern(self) -> ChecksSettings:
        if self.marker_pattern is not None:
            try:
                compiled = compile_linear(self.marker_pattern)
            except ValueError as exc:
                raise ValueError(f"checks.marker_pattern: {exc}") from None
            if compiled.groups < 1:
                raise ValueError("checks.marker_pattern needs one capturing group for the IDs")
        return self


class LimitsSettings(_Section):
    """Bounds on one trace, so no record costs more than a known amount. A trace beyond any
    of them is dead-lettered with the reason named here, before any stage sees it."""

    max_claims: int = Field(default=1_000, ge=1)
    """Claims in one trace; more is dead-lettered with reason too_many_claims."""
    max_sources: int = Field(default=1_000, ge=1)
    """Retrieved sources in one trace; more is dead-lettered with reason too_many_sources."""
    max_citations_per_claim: int = Field(default=100, ge=1)
    """Source IDs one claim cites; more is dead-lettered with reason too_many_citations."""
    max_text_chars: int = Field(default=65_536, ge=1)
    """Characters of any one string (answer, question, a passage, a claim, an unknown field);
    longer is dead-lettered with reason text_too_long."""
    max_number_chars: int = Field(default=64, ge=49, le=4_000)
    """Characters of one JSON number literal; longer is dead-lettered with reason
    number_too_long (Python refuses integers beyond 4300 digits anyway)."""


class RuntimeSettings(_Section):
    """How `citewatch run` watches its own records."""

    slow_record_seconds: float = Field(default=30.0, gt=0.0)
    """A record still being evaluated after this long is logged once (IDs only), counted in
    citewatch_slow_records_total, and makes /readyz answer 503 until it finishes."""
    worker_stuck_seconds: float = Field(default=120.0, gt=0.0)
    """The worker's event loop gone this long without a heartbeat (a stage keeping it busy)
    makes /healthz answer 503, so the liveness probe restarts the process."""
DeriveMode = Literal["off", "sentences"]


class ClaimsSettings(_Section):
    """Claims derived from the answer's markers, for traces that carry no claims."""

    derive: DeriveMode = "sentences"
    """sentences: a trace without claims gets one claim per answer sentence, citing the
    markers in it (a sentence without markers is an uncited claim; questions and lead-ins
    none); such claims are marked derived. off: such a trace is only checked for markers
    and gets the finding no_claims."""
    importance: int = Field(default=2, ge=1, le=3)
    """Importance of every derived claim (1 minor, 2 relevant, 3 critical: an uncited
    critical claim pages, so 3 only for apps where every sentence matters)."""


class KafkaSettings(_Section):
    """The Kafka source and sinks. Security options pass straight to kafka-python."""

    bootstrap_servers: str = "localhost:9092"
    """Comma-separated host:port list."""
    input_topic: str = "rag.traces"
    """Topic the RAG application publishes traces to."""
    group_id: str = "citewatch"
    """Consumer group."""
    evaluations_topic: str = "rag.citation.evaluations"
    """Where evaluation records go, keyed by trace_id."""
    dead_letter_topic: str = "rag.traces.DLT"
    """Where records that cannot be evaluated go, unchanged, with headers saying why."""
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    """kafka-python security_protocol."""
    sasl_mechanism: str | None = None
    """kafka-python sasl_mechanism, e.g. PLAIN, SCRAM-SHA-512."""
    sasl_plain_username: str | None = None
    """SASL user name."""
    sasl_plain_password: SecretStr | None = None
    """SASL password (masked by `citewatch config show`)."""
    ssl_cafile: str | None = None
    """CA bundle for SSL."""
    ssl_certfile: str | None = None
    """Client certificate for SSL."""
    ssl_keyfile: str | None = None
    """Client key for SSL."""
    max_in_flight: int = Field(default=1000, gt=0)
    """Records held uncommitted before partitions are paused (backpressure)."""
    max_in_flight_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    """Bytes of record values (and keys) handed to evaluation and not yet finished before
    partitions are paused (backpressure); they resume below half. A record in evaluation
    holds several times its size once decoded, redacted and judged."""
    lag_interval_seconds: float = Field(default=20.0, ge=1.0, le=300.0)
    """How often consumer lag is sampled."""
    shutdown_deadline_seconds: float = Field(default=20.0, gt=0.0)
    """How long in-flight work may take to finish after SIGTERM."""
    dedup_window: int = Field(default=100_000, ge=0)
    """How many recent trace_ids are remembered so replays are not counted twice."""
    dedup_max_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    """Bytes of the window of recent trace_ids (about 190 per id); the oldest are forgotten
    beyond it or beyond dedup_window, whichever comes first."""
    auto_offset_reset: Literal["earliest", "latest"] = "earliest"
    """Where a new consumer group starts reading."""
    session_timeout_ms: int = Field(default=10_000, ge=1_000, le=300_000)
    """How long the group waits for a silent member before moving its partitions."""
    poll_timeout_ms: int = Field(default=100, ge=1, le=5_000)
    """Longest single poll(); short so shutdown and backpressure react quickly."""
    max_poll_records: int = Field(default=500, ge=1, le=100_000)
    """Records returned by one poll()."""
    commit_interval_seconds: float = Field(default=1.0, gt=0.0, le=60.0)
    """How often finished offsets are committed."""
    max_request_bytes: int = Field(default=16_777_216, gt=0)
    """Largest record the producer sends (a dead letter keeps the original value)."""
    rejoin_after_seconds: float = Field(default=120.0, ge=5.0, le=3600.0)
    """Rejoin the group when a rebalance has not handed out an assignment (even an empty
    one) for this long: kafka-python can leave a join stuck after the leader's sync."""
    startup_wait_seconds: float = Field(default=30.0, gt=0.0, le=3600.0)
    """How long start-up waits for an unreachable cluster before exiting 2."""
    wait_for_kafka: bool = False
    """Keep waiting for an unreachable cluster at start-up instead of exiting 2."""

    @field_validator("bootstrap_servers")
    @classmethod
    def _bootstrap_addresses(cls, value: str) -> str:
        for address in value.split(","):
            problem = _address_problem(address.strip())
            if problem is not None:
                raise ValueError(f"{mask_userinfo(address.strip())!r} {problem}")
        return value


_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$")


def _address_problem(address: str) -> str | None:
    """Why ``address`` is not a host[:port] a Kafka client can connect to, or None (no port
    means 9092, as kafka-python reads it)."""
    if _HOST.match(address) and not address.startswith("["):
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        return "is not host:port (e.g. kafka-1:9092)"
    if not _HOST.match(host):
        return "has no valid host name or address before the port"
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return f"has port {port!r}; a port is a number from 1 to 65535"
    return None


CompressionType = Literal["none", "gzip", "lz4", "zstd"]
"""Codecs of the evaluation and dead-letter producer; lz4 and zstd need their packages."""

_CODEC_MODULES = {"lz4": "lz4", "zstd": "zstandard"}


class ProducerSettings(_Section):
    """Batching of the producer that writes evaluation records and dead letters.

    The defaults were measured with bench/kafka_throughput.py (see docs/operations.md,
    Scaling): one replica's throughput is bound by its interpreter lock, and every new
    producer batch wakes kafka-python's sender thread, so batches that fill for a while
    cost less than batches of one record. Offsets are committed only after the ack, so a
    longer linger delays commits by that much, never loses a record.
    """

    # Measured (docs/operations.md, Scaling): linger 20 ms with 256 KiB batches beat 5 ms
    # with 16 KiB (kafka-python's default, which a second of one replica's records fills
    # many times over: every full or new batch wakes the sender), 50 ms (more records held
    # until their ack, no faster) and 1 MiB (never filled); gzip cost more CPU than the
    # bytes it saves on a local broker.
    linger_ms: int = Field(default=20, ge=0, le=1_000)
    """How long a producer batch waits for more records before it is sent."""
    batch_size: int = Field(default=262_144, ge=1_024, le=16_777_216)
    """Bytes per partition batch; a full batch is sent at once."""
    compression_type: CompressionType = "none"
    """Codec of produced batches: none, gzip, or lz4 / zstd when their package is installed
    (worth it when the network to the brokers, not CPU, is what is scarce)."""

    @model_validator(mode="after")
    def _codec_installed(self) -> ProducerSettings:
        module = _CODEC_MODULES.get(self.compression_type)
        if module is not None:
            import importlib.util

            if importlib.util.find_spec(module) is None:
                raise ValueError(f"compression_type {self.compression_type} needs the "
                                 f"{module} package, which is not installed")
        return self


class InputSettings(_Section):
    """The embedded file source used instead of Kafka, and what input records are."""

    format: InputFormat = "trace_v1"
    """What each record of the input (file, standard input or Kafka topic) is: trace_v1, or
    openai_responses, openai_chat, anthropic_messages (an API exchange in an envelope, see
    docs/producing.md), otlp_json or otlp_proto (the spans of one trace, as the
    OpenTelemetry Collector's kafka exporter writes them)."""
    path: str | None = None
    """JSON Lines file of traces, or - for standard input. When set, Kafka is not used."""
    output: str | None = None
    """Where evaluation records go with a file input; standard output when unset."""
    once: bool = False
    """Stop at the end of the input instead of following it as it grows."""
    dead_letters: str | None = None
    """JSON Lines file for bad input lines (line number, reason); not written when unset."""
    follow_interval_seconds: float = Field(default=0.5, gt=0.0, le=60.0)
    """How often a followed file is checked for new lines."""
    concurrency: int = Field(default=64, ge=1, le=4096)
    """Traces evaluated at once from a file (matters with a slow judge)."""

    @model_validator(mode="after")
    def _lines_hold_text(self) -> InputSettings:
        if self.path is not None and self.format == "otlp_proto":
            raise ValueError("otlp_proto records are read from Kafka only (a file of lines "
                             "cannot hold protobuf); use otlp_json for files")
        return self


class MetricsSettings(_Section):
    """The Prometheus endpoint and label policy."""

    port: int = Field(default=9464, ge=0, le=65535)
    """Port of /metrics, /healthz and /readyz (0 picks a free port)."""
    address: str = "127.0.0.1"
    """Bind address; this host only by default. In a pod or container, set the pod's
    address (the shipped manifests set 0.0.0.0) so Prometheus and the kubelet reach it."""
    max_connections: int = Field(default=256, ge=8, le=65_536)
    """Open connections to the metrics port; beyond it the oldest idle one is closed for
    each new one (lowered to fit the process's descriptor limit)."""
    request_timeout_seconds: float = Field(default=5.0, gt=0.0, le=300.0)
    """Seconds a client may take to send a complete request, or stay idle between two."""
    response_timeout_seconds: float = Field(default=30.0, gt=0.0, le=600.0)
    """Seconds a request may take to be answered and its response taken by the client."""
    backlog: int = Field(default=1024, ge=16, le=65_535)
    """Connections the kernel queues on the metrics port before they are accepted."""
    apps: list[str] = Field(default_factory=list)
    """Allow-list of app label values; any other app is reported as 'other'. When empty,
    the first ``max_apps`` apps seen are admitted instead."""
    max_apps: int = Field(default=20, ge=0, le=1000)
    """With no ``apps`` list: how many distinct apps get their own label value, first seen
    first; later ones are 'other' (bounded, so label cardinality stays bounded)."""


# Measured on public human-labelled claims (docs/screen.md): the screen's "supported" is
# precise (0.88-0.998 on four public sets), its "unsupported" is not (0.10-0.45 on three of
# them), so only "supported" may skip the LLM, and only below importance 3.
_SCREEN_TRUSTED_DEFAULT: tuple[VerdictLabel, ...] = ("supported",)


class JudgeSettings(_Section):
    """The LLM judge."""

    backend: JudgeChoice | None = None
    """Judge backend. Unset: lexical (the offline screen); an API key alone never selects an
    LLM judge."""
    model: str = "gpt-4.1-mini-2025-04-14"
    """Pinned judge model snapshot."""
    base_url: str | None = None
    """OpenAI-compatible endpoint; OPENAI_BASE_URL when unset."""
    api_key: SecretStr | None = None
    """API key; OPENAI_API_KEY when unset."""
    timeout_seconds: float = Field(default=30.0, gt=0.0)
    """Per-call timeout."""
    max_retries: int = Field(default=4, ge=0, le=10)
    """Retries on 429, 5xx, connection errors and timeouts."""
    concurrency: int = Field(default=16, ge=1, le=1024)
    """Judge calls in flight at once."""
    rubric_file: str | None = None
    """A rubric Markdown file replacing the built-in one; its first line names its version
    (``rubric_version: ...``)."""
    max_output_tokens: int = Field(default=4096, ge=64)
    """Upper bound on the tokens of one judge reply."""
    max_reply_bytes: int = Field(default=4 * 2**20, ge=1024)
    """Largest judge reply read, in bytes; a longer one is refused while it is read (never
    held whole in memory) and is the judge error reply_too_large."""
    max_reason_chars: int = Field(default=2_000, ge=16)
    """Longest reason of one verdict; a longer one makes the reply reply_too_large."""
    max_quote_chars: int = Field(default=2_000, ge=16)
    """Longest evidence quote of one verdict; a longer one makes the reply reply_too_large.
    A shorter quote that is longer than the claim's cited passages is found in none of them:
    quote_not_found, as any fabricated quote."""
    quote_min_chars: int = Field(default=8, ge=1, le=1_000)
    """Shortest evidence quote of a supported or partial verdict, in characters after
    whitespace is collapsed (a Chinese, Japanese or Korean character counts two; a whole
    cited passage that is shorter is accepted); a shorter one is refused: the verdict
    becomes unsupported, quote_not_found, its reason saying why."""
    quote_min_content_words: int = Field(default=2, ge=0, le=100)
    """Content words of the claim (not function words like "the", "of"; compared as lemmas,
    numbers as numbers) an evidence quote must carry, or all of the claim's when it has
    fewer; a quote carrying fewer is refused like a short one (0: no such rule)."""
    retry_base_seconds: float = Field(default=0.5, gt=0.0)
    """First backoff delay; doubled on each retry, with jitter."""
    retry_max_seconds: float = Field(default=20.0, gt=0.0)
    """Longest backoff delay, and the longest Retry-After honoured."""
    call_deadline_seconds: float = Field(default=120.0, gt=0.0)
    """Longest time one trace may spend in the judge, retries included."""
    circuit_failures: int = Field(default=5, ge=1)
    """Consecutive failed calls (after retries) that open the circuit breaker."""
    circuit_reset_seconds: float = Field(default=30.0, gt=0.0)
    """How long the breaker stays open before one probe call may close it."""
    cache_size: int = Field(default=10_000, ge=0)
    """Claim verdicts kept in the in-memory LRU cache (0 disables it)."""
    cache_max_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    """Bytes of the verdict cache (keys, verdicts, reasons, quotes); the least recently used
    are evicted beyond it or beyond cache_size, whichever comes first (0 disables it)."""
    cache_text_chars: int = Field(default=2_048, ge=64, le=1_000_000)
    """Characters of a judge reason or evidence quote kept in the cache; longer ones are
    stored cut, ending in " [truncated]" (the quote is checked whole before)."""
    screen: bool = True
    """With an LLM backend, run the offline screen first: a claim it resolves with a verdict
    of a trusted class is not sent to the LLM."""
    screen_trusted_verdicts: list[VerdictLabel] = Field(
        default_factory=lambda: list(_SCREEN_TRUSTED_DEFAULT)
    )
    """Screen verdict classes that skip the LLM, for claims up to
    ``screen_skip_max_importance``; set from the screen's measured precision per class
    (bench.screen). ``unsupported`` is refused: the screen's "unsupported" is a suspicion
    the LLM must confirm, never a final verdict."""
    datamark: bool = True
    """Join the words of the question and the passages in the judge request by a mark
    (U+02C6, "datamarking"), which the rubric says sets them apart as document text, never
    instructions. It costs about one prompt token per word of passage text (bench.judge_cost:
    1.48x the prompt tokens per judged trace); off sends them with plain spaces."""
    screen_skip_max_importance: int = Field(default=2, ge=0, le=3)
    """The highest claim importance a trusted screen verdict settles without the LLM;
    importance-3 claims always go to the LLM by default (0: every claim does)."""
    screen_cache_bytes: int = Field(default=160 * 2**20, ge=0)
    """Bound, in (estimated) bytes, of the screen's cache of prepared passages; 0 turns it
    off. The default holds one record of the largest accepted size (1 MiB of text prepared
    is at most about 140 MB), so each trace's passages are prepared once; raise it with
    ``limits.max_record_bytes``."""

    @field_validator("screen_trusted_verdicts")
    @classmethod
    def _screen_never_settles_unsupported(cls, value: list[VerdictLabel]) -> list[VerdictLabel]:
        if "unsupported" in value:
            raise ValueError(
                "the screen's 'unsupported' cannot skip the LLM: on public labelled sets it "
                "is right 10-45% of the time (docs/screen.md), so it is a suspicion the LLM "
                "judges; trust 'supported' and 'partial' only")
        return value


class SamplingSettings(_Section):
    """Which traces the judge sees."""

    rate: float = Field(default=0.1, ge=0.0, le=1.0)
    """Base sample rate, by a hash of trace_id."""
    priority_critical: bool = True
    """Judge every trace with an importance-3 cited claim (sampled_by=priority)."""
    priority_prescreen: bool = True
    """Judge every trace whose cited claims the pre-screen flags (sampled_by=priority)."""
    priority_new_generator_traces: int = Field(default=20, ge=0)
    """Judge the first N traces of each unseen generator model and prompt version."""
    generators_max_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    """Bytes of the table of generator models and prompt versions seen (for the first-N
    rule): each is a fixed-size digest (about 200 bytes, whatever the names' length), the
    least recently seen forgotten beyond it (and then counted as unseen again)."""
    requests_per_minute: int | None = Field(default=600, ge=1)
    """Judge requests per rolling minute; unset for no limit."""
    tokens_per_minute: int | None = Field(default=400_000, ge=1)
    """Judge tokens (input + output, estimated before the call) per rolling minute."""
    tokens_per_day: int | None = Field(default=None, ge=1)
    """Judge tokens per UTC day; unset for no limit."""


RedactionMode = Literal["placeholder", "hmac", "drop"]
_ENTITY_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


class CustomPattern(_Section):
    """An extra entity type found by a regular expression."""

    name: str = Field(min_length=1, max_length=40)
    """Entity type name, upper case (e.g. EMPLOYEE_ID); placeholders read <EMPLOYEE_ID_1>."""
    pattern: str = Field(min_length=1)
    """Regex in RE2 syntax (Python's, less backreferences and lookaround: it runs in time
    linear in the text); the span of group 1 is replaced when the pattern has a group, else
    the whole match."""

    @model_validator(mode="after")
    def _check(self) -> CustomPattern:
        if not _ENTITY_NAME.match(self.name):
            raise ValueError(f"custom pattern name {self.name!r} must match [A-Z][A-Z0-9_]*")
        try:
            compiled = compile_linear(self.pattern)
        except ValueError as exc:
            raise ValueError(f"custom pattern {self.name}: {exc}") from None
        if compiled.fullmatch("") is not None:
            raise ValueError(f"custom pattern {self.name} matches the empty string")
        return self


class RedactionSettings(_Section):
    """Redaction of sensitive text before anything leaves the process."""

    enabled: bool = True
    """Redact traces before judging and emitting."""
    types: list[RedactionType] = Field(default_factory=lambda: list(get_args(RedactionType)))
    """Built-in entity types that are redacted; leave one out to keep its values."""
    allow: list[str] = Field(default_factory=list)
    """Values never redacted (compared case-insensitively), e.g. the support address."""
    custom_patterns: list[CustomPattern] = Field(default_factory=list)
    """Extra entity types, each a name and a regex."""
    default_mode: RedactionMode = "placeholder"
    """How values are replaced: placeholder (<EMAIL_1>, numbered per trace), hmac (<EMAIL_
    followed by a keyed hash, stable across traces), drop (removed)."""
    modes: dict[str, RedactionMode] = Field(default_factory=dict)
    """Mode per entity type, overriding default_mode, e.g. {"EMAIL": "hmac"}."""
    hmac_key: SecretStr | None = None
    """Key of the hmac mode (required when any type uses it; never logged or shown)."""
    phone_region: str = Field(default="US", min_length=2, max_length=2)
    """Region assumed for phone numbers written without a +country code (ISO 3166 alpha-2);
    it only makes such a number and its +country code form share one placeholder."""
    email_obfuscations: bool = True
    """Also redact e-mail addresses written to dodge filters: "jane at example dot com",
    "jane[at]example.com"."""
    ner_detector: str | None = None
    """Optional extra detector, "module:attribute": a class or factory called without
    arguments that returns an object with ``name`` and ``detect(text)`` (see
    sidecar.redaction.Detector), e.g. a Presidio adapter with a spaCy model you installed.
    Off by default."""

    @model_validator(mode="after")
    def _check(self) -> RedactionSettings:
        for name in self.modes:
            if not _ENTITY_NAME.match(name):
                raise ValueError(f"redaction mode for {name!r}: not an entity type name")
        uses_hmac = self.default_mode == "hmac" or "hmac" in self.modes.values()
        if uses_hmac and (self.hmac_key is None or not self.hmac_key.get_secret_value()):
            raise ValueError("hmac redaction mode needs redaction.hmac_key")
        if self.ner_detector is not None and ":" not in self.ner_detector:
            raise ValueError("redaction.ner_detector must read 'module:attribute'")
        return self


DeadLetterPayload = Literal["raw", "redacted"]


class DeadLetterSettings(_Section):
    """What a dead letter carries of the record that could not be evaluated."""

    payload: DeadLetterPayload | None = None
    """raw (the record's bytes as read) or redacted (its key, value and headers through the
    redaction settings, as text when they do not parse). Unset, each sink has its default:
    raw on the Kafka dead-letter topic, since the input topic holds the same bytes already
    (give the topic the input's ACLs and no longer a retention); redacted in the
    input.dead_letters file, which would otherwise be a new copy of raw text."""


class GateSettings(_Section):
    """The release gate (`citewatch gate`)."""

    tolerance: float = Field(default=0.03, ge=0.0, le=1.0)
    """How far the candidate's mean overall score may fall below the baseline's before the
    gate fails. Derive it from measured judge variance: `citewatch stability` re-judges a
    fixed slice several times and suggests about 2 x sqrt(2) x the spread of the run means,
    so judge noise alone rarely fails a release."""


class ReviewSettings(_Section):
    """The review queue: which claims reach people, and where their packets are kept."""

    store: str | None = None
    """SQLite file of the review store; `citewatch run` writes routed claims to it. None: no
    store is written (items can still go to ``review.topic``)."""
    topic: str | None = None
    """Kafka topic the routed claims are produced to (e.g. citewatch.review), keyed by item
    ID, so several replicas feed one store through `citewatch review consume`."""
    routes: list[ReviewRoute] = Field(
        default_factory=lambda: list(get_args(ReviewRoute)))
    """The flag routes that are on; the audit slice is on while ``audit_rate`` > 0."""
    audit_rate: float = Field(default=0.01, ge=0.0, le=1.0)
    """Share of judged claims sent to review whatever their flags, by a hash of (trace_id,
    claim_id): the uniform slice the judge's precision on live traffic is estimated on."""
    daily_caps: dict[str, int] = Field(default_factory=lambda: {
        "critical_unjudged": 500, "injection_influenced": 500, "unverified": 500,
        "suspect": 500, "abstained_critical": 500, "disagreement": 500, "audit": 1000})
    """Items stored per route and UTC day; beyond a cap a route's items are counted and
    dropped, so a bad hour cannot flood the queue. A route missing here has no cap."""
    reviewers_per_item: int = Field(default=1, ge=1, le=2)
    """Independent reviewers each item needs; with 2, disagreements go to adjudication."""
    host: str = "127.0.0.1"
    """Bind address of `citewatch review serve`; anything but loopback requires a token."""
    port: int = Field(default=8470, ge=0, le=65535)
    """Port of `citewatch review serve` (0 picks one)."""
    token: SecretStr | None = None
    """Token reviewers give to sign in; required when ``host`` is not a loopback address."""

    @model_validator(mode="after")
    def _known_caps(self) -> ReviewSettings:
        known = {*get_args(ReviewRoute), "audit"}
        unknown = sorted(set(self.daily_caps) - known)
        if unknown:
            raise ValueError(f"review.daily_caps: unknown route(s) {', '.join(unknown)}")
        if any(cap < 0 for cap in self.daily_caps.values()):
            raise ValueError("review.daily_caps must not be negative")
        return self


class Settings(BaseSettings):
    """Everything `citewatch run` and `citewatch check` need."""

    model_config = SettingsConfigDict(
        env_prefix="CITEWATCH_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        extra="forbid",
        validate_default=True,
    )

    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    producer: ProducerSettings = Field(default_factory=ProducerSettings)
    input: InputSettings = Field(default_factory=InputSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    checks: ChecksSettings = Field(default_factory=ChecksSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    claims: ClaimsSettings = Field(default_factory=ClaimsSettings)
    scoring: ScoringSettings = Field(default_factory=ScoringSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    redaction: RedactionSettings = Field(default_factory=RedactionSettings)
    dead_letters: DeadLetterSettings = Field(default_factory=DeadLetterSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)

    @model_validator(mode="after")
    def _review_topic_needs_kafka(self) -> Settings:
        if self.input.path is not None and self.review.topic and not self.review.store:
            raise ValueError("review.topic needs the Kafka runtime; with input.path (--input) "
                             "set review.store instead")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Highest first: flags (passed as init data by load_settings), environment, YAML file.
        config_file = _CONFIG_FILE.get()
        if config_file is None:
            return (init_settings, env_settings)
        return (init_settings, env_settings, _YamlFile(settings_cls, config_file))


_CONFIG_FILE: ContextVar[Path | None] = ContextVar("citewatch_config_file", default=None)
"""The YAML file of the settings being built by :func:`load_settings`, if any."""


class _YamlFile(YamlConfigSettingsSource):
    """pydantic-settings' YAML source, with one-line errors for a file it cannot use."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        try:
            # The source skips a missing file silently; a named config file must exist.
            path.open("rb").close()
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
        self._path = path
        super().__init__(settings_cls, yaml_file=path, yaml_file_encoding="utf-8")

    def _read_file(self, file_path: Path) -> dict[str, Any]:
        try:
            loaded = super()._read_file(file_path)
        except OSError as exc:
            raise ConfigError(f"cannot read config file {self._path}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            detail = " ".join(str(exc).split())
            raise ConfigError(f"config file {self._path} is not valid YAML: {detail}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {self._path} must hold a mapping of sections")
        return loaded


def load_settings(
    config_file: str | Path | None = None,
    *,
    overrides: dict[str, Any] | None = None,
) -> Settings:
    """Build the settings from flags (``overrides``), environment, YAML file and defaults.

    Raises :class:`ConfigError` with one readable line naming every bad field.
    """
    token = _CONFIG_FILE.set(Path(config_file) if config_file is not None else None)
    try:
        return Settings(**_nest(overrides or {}))
    except ValidationError as exc:
        raise ConfigError("invalid settings: " + describe_validation_error(exc)) from None
    finally:
        _CONFIG_FILE.reset(token)


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Turn {"judge.model": "x", "metrics": {...}} into nested sections; drops None values."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if value is None:
            continue
        if "." in key:
            section, field = key.split(".", 1)
            nested.setdefault(section, {})[field] = value
        else:
            nested[key] = value
    return nested
