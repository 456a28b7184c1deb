"""The Kafka source and sinks (``kafka.*``), and how each client proves who it is."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator

from sidecar._userinfo import mask_userinfo
from sidecar.config._section import Section

__all__ = [
    "KafkaClient",
    "KafkaSecurity",
    "KafkaSettings",
    "SaslMechanism",
    "SecurityProtocol",
    "security_problem",
]

SecurityProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal[
    "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI", "AWS_MSK_IAM"
]
KafkaClient = Literal["consumer", "producer", "review"]
"""The clients that can have settings of their own: the trace consumer (its lag samples
too), the producer of evaluations, dead letters and review items, and the review topic's
consumer of `citewatch review consume` and `review serve --consume`."""

_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class KafkaSecurity(Section):
    """How a client connects and authenticates; every option passes to kafka-python under
    the same name. The guide: docs/operations.md, Secured Kafka."""

    security_protocol: SecurityProtocol = "PLAINTEXT"
    """kafka-python security_protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."""
    sasl_mechanism: SaslMechanism | None = None
    """SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, GSSAPI (Kerberos,
    needs the gssapi package) or AWS_MSK_IAM (kafka-python's own, needs botocore)."""
    sasl_plain_username: str | None = None
    """SASL user name (PLAIN and SCRAM)."""
    sasl_plain_password: SecretStr | None = None
    """SASL password (PLAIN and SCRAM); masked by `citewatch config show` and in every log
    line."""
    sasl_oauth_token_provider: str | None = None
    """OAUTHBEARER tokens: an import path ``module:callable`` (a kafka-python
    AbstractTokenProvider class or instance, or a callable returning a token or a
    ``(token, expiry_ms)`` pair, as aws_msk_iam_sasl_signer's
    ``MSKAuthTokenProvider.generate_auth_token`` does). Every token is masked in the logs."""
    sasl_oauth_token_provider_options: dict[str, str] = Field(default_factory=dict)
    """Keyword arguments of the token provider's call (e.g. ``{region: eu-west-1}``)."""
    sasl_kerberos_service_name: str | None = None
    """GSSAPI: the brokers' Kerberos service name (kafka-python's default: kafka)."""
    sasl_kerberos_domain_name: str | None = None
    """GSSAPI: the brokers' Kerberos host name, when not the one connected to."""
    ssl_cafile: str | None = None
    """CA bundle (PEM) the brokers' certificates are checked against; unset: the system's."""
    ssl_certfile: str | None = None
    """Client certificate (PEM) for TLS client authentication (mTLS)."""
    ssl_keyfile: str | None = None
    """The client certificate's private key (PEM)."""
    ssl_password: SecretStr | None = None
    """Password of an encrypted ``ssl_keyfile``; masked like every secret."""
    ssl_crlfile: str | None = None
    """Certificate revocation list (PEM) checked for the brokers' certificates."""
    ssl_check_hostname: bool = True
    """Check that the broker's certificate names the host connected to. Turn it off only
    for brokers addressed by a name their certificates do not carry."""

    @field_validator("sasl_oauth_token_provider")
    @classmethod
    def _import_path(cls, value: str | None) -> str | None:
        if value is not None and not _IMPORT_PATH.match(value):
            raise ValueError(
                f"{value!r} is not an import path module:callable "
                "(e.g. aws_msk_iam_sasl_signer:MSKAuthTokenProvider.generate_auth_token)"
            )
        return value


_SECURITY_FIELDS = tuple(KafkaSecurity.model_fields)


def security_problem(security: KafkaSecurity, where: str = "kafka") -> str | None:
    """What in ``security`` kafka-python would only report as a broker that never answers,
    as one line naming the settings under ``where``; None when it is consistent. Checked
    at start-up, not when the settings are read: secrets come from the environment, which
    `citewatch config show` or a manifest check may not have."""
    protocol, mechanism = security.security_protocol, security.sasl_mechanism
    sasl = protocol.startswith("SASL_")
    if sasl and mechanism is None:
        return f"{where}.security_protocol {protocol} needs {where}.sasl_mechanism"
    if not sasl and mechanism is not None:
        return (
            f"{where}.sasl_mechanism {mechanism} needs {where}.security_protocol "
            "SASL_SSL (or SASL_PLAINTEXT)"
        )
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and (
        security.sasl_plain_username is None or security.sasl_plain_password is None
    ):
        return (
            f"{where}.sasl_mechanism {mechanism} needs {where}.sasl_plain_username and "
            f"{where}.sasl_plain_password"
        )
    if mechanism == "OAUTHBEARER" and security.sasl_oauth_token_provider is None:
        return f"{where}.sasl_mechanism OAUTHBEARER needs {where}.sasl_oauth_token_provider"
    if (security.ssl_certfile is None) != (security.ssl_keyfile is None):
        return f"{where}.ssl_certfile and {where}.ssl_keyfile go together"
    return None


class KafkaSettings(KafkaSecurity):
    """The Kafka source and sinks, and how their clients connect (:class:`KafkaSecurity`,
    with ``client_overrides`` per client). What every runtime shares (the shutdown
    deadline, the replay window) is in ``runtime.*``."""

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
    client_overrides: dict[KafkaClient, KafkaSecurity] = Field(default_factory=dict)
    """Security settings of one client that differ from the ones above (the review
    consumer or the producer on a principal of its own); what a client's entry leaves out
    it takes from above."""
    max_in_flight: int = Field(default=1000, gt=0)
    """Records held uncommitted before partitions are paused (backpressure)."""
    max_in_flight_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    """Bytes of record values (and keys) handed to evaluation and not yet finished before
    partitions are paused (backpressure); they resume below half. A record in evaluation
    holds several times its size once decoded, redacted and judged."""
    lag_interval_seconds: float = Field(default=20.0, ge=1.0, le=300.0)
    """How often consumer lag is sampled."""
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

    def security_for(self, client: KafkaClient) -> KafkaSecurity:
        """The security settings ``client`` uses: these, with its override's fields that
        were given."""
        override = self.client_overrides.get(client)
        values: dict[str, Any] = {name: getattr(self, name) for name in _SECURITY_FIELDS}
        if override is not None:
            values.update({name: getattr(override, name) for name in override.model_fields_set})
        return KafkaSecurity.model_validate(values)


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
