"""kafka-python's lines about a failed connection, read into one line each naming the
setting to look at (the lines are as kafka-python 3 writes them against a real broker)."""

from __future__ import annotations

import logging

import pytest

from sidecar.config import Settings
from sidecar.config.kafka import KafkaSecurity
from sidecar.runtime.kafka_diagnosis import Diagnosis, KafkaErrorWatch, diagnose

AT = "127.0.0.1:9094"
SCRAM = KafkaSecurity(
    security_protocol="SASL_SSL",
    sasl_mechanism="SCRAM-SHA-512",
    sasl_plain_username="citewatch",
    sasl_plain_password="pw-1234",
)
MTLS = KafkaSecurity(security_protocol="SSL", ssl_certfile="c.pem", ssl_keyfile="c.key")
TLS_ONLY = KafkaSecurity(security_protocol="SSL")


@pytest.mark.parametrize(
    ("security", "text", "expected"),
    [
        pytest.param(
            SCRAM,
            "Bootstrap connection to bootstrap-0 failed: [Error 58] SaslAuthenticationFailedError:"
            " SaslAuthenticationFailedError: Authentication failed during authentication due to "
            "invalid credentials with SASL mechanism SCRAM-SHA-512 (backoff 0.11 secs)",
            Diagnosis(
                "authentication",
                f"Kafka at {AT} refused the credentials (Authentication failed during "
                "authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512); "
                "check kafka.sasl_plain_username and "
                "kafka.sasl_plain_password",
                True,
            ),
            id="wrong-password",
        ),
        pytest.param(
            SCRAM,
            "<KafkaSSLTransport [127.0.0.1:9094<-5]>: Abort ([Error 58] "
            "SaslAuthenticationFailedError: SaslAuthenticationFailedError: Authentication "
            "failed during authentication due to invalid credentials with SASL mechanism "
            "SCRAM-SHA-512)",
            Diagnosis(
                "authentication",
                f"Kafka at {AT} refused the credentials (Authentication failed during "
                "authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512); "
                "check kafka.sasl_plain_username and kafka.sasl_plain_password",
                True,
            ),
            id="wrong-password-abort-line",
        ),
        pytest.param(
            SCRAM,
            "Connection failed: KafkaConnectionError: Handshake failed: [SSL: "
            "CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer "
            "certificate (_ssl.c:1006)",
            Diagnosis(
                "tls",
                f"TLS to Kafka at {AT} failed: the broker's certificate is not trusted (unable "
                "to get local issuer certificate); check kafka.ssl_cafile",
                True,
            ),
            id="untrusted",
        ),
        pytest.param(
            SCRAM,
            "Connection failed: KafkaConnectionError: Handshake failed: [SSL: "
            "CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, "
            "certificate is not valid for 'localhost'. (_ssl.c:1006)",
            Diagnosis(
                "tls",
                f"TLS to Kafka at {AT} failed: Hostname mismatch, certificate is not valid for "
                "'localhost'; connect by a name the broker's certificate carries "
                "(kafka.bootstrap_servers) or set kafka.ssl_check_hostname false",
                True,
            ),
            id="host-name",
        ),
        pytest.param(
            MTLS,
            "Connection lost: KafkaConnectionError: [SSL: SSLV3_ALERT_CERTIFICATE_UNKNOWN] sslv3 "
            "alert certificate unknown (_ssl.c:2580)",
            Diagnosis(
                "tls",
                f"Kafka at {AT} refused the client certificate (sslv3 alert certificate "
                "unknown); check that kafka.ssl_certfile is signed by a CA the broker trusts",
                True,
            ),
            id="client-certificate-refused",
        ),
        pytest.param(
            TLS_ONLY,
            "Connection lost: KafkaConnectionError: [SSL: SSLV3_ALERT_BAD_CERTIFICATE] sslv3 "
            "alert bad certificate (_ssl.c:2580)",
            Diagnosis(
                "tls",
                f"Kafka at {AT} asks for a client certificate (sslv3 alert bad certificate); "
                "set kafka.ssl_certfile and kafka.ssl_keyfile",
                True,
            ),
            id="client-certificate-missing",
        ),
        pytest.param(
            SCRAM,
            "<KafkaConnection node_id=bootstrap-0>: SaslHandshake failed: "
            "UnsupportedSaslMechanismError",
            Diagnosis(
                "authentication",
                f"Kafka at {AT} does not offer SASL mechanism SCRAM-SHA-512; check "
                "kafka.sasl_mechanism",
                True,
            ),
            id="mechanism",
        ),
        pytest.param(
            TLS_ONLY,
            "Connection failed: KafkaConnectionError: Handshake failed: [SSL: "
            "UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (_ssl.c:1006)",
            Diagnosis(
                "protocol",
                f"the TLS handshake with Kafka at {AT} failed (EOF occurred in violation of "
                "protocol); does the listener at that port speak TLS? check "
                "kafka.security_protocol SSL",
                False,
            ),
            id="tls-to-plaintext",
        ),
        pytest.param(
            SCRAM,
            "Bootstrap connection to bootstrap-0 failed: KafkaConnectionError: 111 ECONNREFUSED",
            Diagnosis("connection", "connection refused", False),
            id="refused",
        ),
    ],
)
def test_each_failure_is_told_apart(
    security: KafkaSecurity, text: str, expected: Diagnosis
) -> None:
    assert diagnose(text, security, where="kafka", bootstrap=AT) == expected


def test_a_line_about_something_else_is_no_diagnosis() -> None:
    assert (
        diagnose("Bootstrap complete: ClusterMetadata(...)", SCRAM, where="kafka", bootstrap=AT)
        is None
    )


def _settings() -> Settings:
    return Settings.model_validate(
        {
            "kafka": {
                "bootstrap_servers": AT,
                "security_protocol": "SASL_SSL",
                "sasl_mechanism": "SCRAM-SHA-512",
                "sasl_plain_username": "citewatch",
                "sasl_plain_password": "pw-1234",
                "client_overrides": {"review": {"sasl_plain_username": "reviewer"}},
            }
        }
    )


def _log(name: str, level: int, message: str) -> None:
    logging.getLogger(name).log(level, message)


def test_a_connection_closed_while_its_credentials_await_an_answer_was_refused_them() -> None:
    conn = "<KafkaConnection node_id=bootstrap-0 host=[127.0.0.1:9094<-43044] (initializing)>"
    transport = "<KafkaSSLTransport [127.0.0.1:9094<-43044]>"
    with KafkaErrorWatch(_settings(), "review") as watch:
        _log(
            "kafka.net.connection", logging.DEBUG, f"{conn} Request 3: SaslAuthenticateRequest(...)"
        )
        _log(
            "kafka.net.connection",
            logging.DEBUG,
            f"{conn}: Response 3 (2 ms): SaslAuthenticateResponse(error_code=0)",
        )
        _log(
            "kafka.net.connection", logging.DEBUG, f"{conn} Request 4: SaslAuthenticateRequest(...)"
        )
        assert not watch.failed.is_set()
        _log("kafka.net.transport", logging.ERROR, f"{transport}: socket disconnected")
    assert watch.failed.is_set()
    assert watch.explain("KafkaTimeoutError") == (
        f"Kafka at {AT} refused the credentials (it closed the connection on them); check "
        "kafka.client_overrides.review.sasl_plain_username and "
        "kafka.client_overrides.review.sasl_plain_password"
    )


def test_a_connection_closed_while_its_handshake_awaits_an_answer_was_refused_the_mechanism() -> (
    None
):
    conn = "<KafkaConnection node_id=bootstrap-0 host=[127.0.0.1:9094<-43050] (initializing)>"
    with KafkaErrorWatch(_settings()) as watch:
        _log(
            "kafka.net.connection",
            logging.DEBUG,
            f"{conn} Request 2: SaslHandshakeRequest(version=1)",
        )
        _log(
            "kafka.net.transport",
            logging.ERROR,
            "<KafkaSSLTransport [127.0.0.1:9094<-43050]>: socket disconnected",
        )
    assert watch.explain("KafkaTimeoutError") == (
        f"Kafka at {AT} does not offer SASL mechanism SCRAM-SHA-512; check kafka.sasl_mechanism"
    )


def test_a_connection_closed_after_its_credentials_were_accepted_is_not_a_refusal() -> None:
    conn = "<KafkaConnection node_id=1 host=[127.0.0.1:9094<-5000] (initializing)>"
    with KafkaErrorWatch(_settings()) as watch:
        _log(
            "kafka.net.connection", logging.DEBUG, f"{conn} Request 3: SaslAuthenticateRequest(...)"
        )
        _log(
            "kafka.net.connection",
            logging.DEBUG,
            f"{conn}: Response 3: SaslAuthenticateResponse(error_code=0)",
        )
        _log(
            "kafka.net.transport",
            logging.ERROR,
            "<KafkaSSLTransport [127.0.0.1:9094<-5000]>: socket disconnected",
        )
        _log(
            "kafka.net.manager",
            logging.WARNING,
            "Bootstrap connection failed: KafkaConnectionError: 111 ECONNREFUSED",
        )
    assert not watch.failed.is_set()
    assert watch.explain("KafkaTimeoutError") == f"cannot reach Kafka at {AT} (connection refused)"


def test_the_watch_leaves_the_loggers_as_it_found_them() -> None:
    kafka, exchange = logging.getLogger("kafka"), logging.getLogger("kafka.net.connection")
    before = (kafka.level, kafka.propagate, exchange.level, list(kafka.handlers))
    with KafkaErrorWatch(_settings()):
        pass
    assert (kafka.level, kafka.propagate, exchange.level, list(kafka.handlers)) == before
