"""Why Kafka clients could not start, told apart: credentials refused, TLS refused, or a
broker that does not answer.

kafka-python's constructors retry every failed connection until their bootstrap timeout
and then raise ``KafkaTimeoutError`` whatever the cause; the cause itself is only in the
warnings and errors they log about each attempt. :class:`KafkaErrorWatch` reads those
lines while the clients start, keeps the first one that waiting cannot cure (an
authentication failure, a certificate the client does not trust or the broker refuses, a
SASL mechanism the listener does not offer) so start-up can stop at once, and the last one
of any kind, so a timeout can say what the attempts ran into. Each diagnosis is one line
naming the setting to look at; it quotes the broker's and the TLS library's reasons, never
a setting's value.

A broker answers wrong credentials with an error and then closes the connection; kafka-python
3 often reads the close first and reports only "socket disconnected". So the watch also reads
the client's DEBUG lines of the SASL exchange (kept out of the log below -vv): a connection
that closes while its credentials await the broker's answer was refused them, and one that
closes while its SASL handshake awaits one was refused the mechanism.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Literal, NamedTuple

from sidecar._userinfo import mask_secrets
from sidecar.config import Settings
from sidecar.config.kafka import KafkaClient, KafkaSecurity

__all__ = ["Diagnosis", "KafkaErrorWatch", "diagnose"]

_LOGGER = "kafka"

Kind = Literal["authentication", "tls", "protocol", "connection"]
"""What failed: the credentials, TLS, the protocol the listener speaks (the line names the
setting), or the connection itself (the line is the short cause: connection refused)."""


class Diagnosis(NamedTuple):
    """One failed connection attempt, explained."""

    kind: Kind
    line: str
    """What happened and which setting to look at, in one line."""
    final: bool
    """Waiting will not cure it: start-up stops at once."""


_SSL_REASON = re.compile(r"\[SSL: (?P<code>[A-Z0-9_]+)\] (?P<text>[^(]*?)\s*(?:\(_ssl\.c:\d+\))?$")
_VERIFY = re.compile(r"certificate verify failed: (?P<reason>[^(]*?)\s*(?:\(_ssl\.c:\d+\)|$)")
_REFUSED_CERTIFICATE = (
    "ALERT_UNKNOWN_CA",
    "ALERT_BAD_CERTIFICATE",
    "ALERT_CERTIFICATE_UNKNOWN",
    "ALERT_CERTIFICATE_REQUIRED",
    "CERTIFICATE_REQUIRED",
    "ALERT_ACCESS_DENIED",
)
_NOT_TLS = ("WRONG_VERSION_NUMBER", "UNEXPECTED_EOF_WHILE_READING", "EOF occurred in violation")
_CONNECTION = re.compile(r"\[(?P<peer>[^\]<\s]+)<-(?P<local>\d+)\]")
_EXCHANGE_LOGGER = "kafka.net.connection"
_BACKOFF = re.compile(r"\s*\(backoff [^)]*\)\s*$")
_AUTHENTICATION = re.compile(
    r"SaslAuthenticationFailedError|AuthenticationFailedError|Authentication failed"
)


def _after(text: str, marker: str) -> str:
    """The broker's own words: what follows the last ``marker`` in ``text``."""
    _, found, rest = text.rpartition(marker)
    if not found:
        return ""
    rest = _BACKOFF.sub("", rest).strip()
    while rest.endswith(")") and rest.count(")") > rest.count("("):
        rest = rest[:-1].rstrip()  # the close of the line's own "Abort (...)"
    return rest.rstrip(".")


def diagnose(text: str, security: KafkaSecurity, *, where: str, bootstrap: str) -> Diagnosis | None:
    """The diagnosis of one kafka-python log line about a failed connection, or None when
    the line is not about one (``where``: the settings' prefix for this client)."""
    mechanism = security.sasl_mechanism
    at = f"Kafka at {bootstrap}"
    if _AUTHENTICATION.search(text):
        reason = _after(text, "SaslAuthenticationFailedError:") or "authentication failed"
        if mechanism == "OAUTHBEARER":
            look = f"{where}.sasl_oauth_token_provider and the token it returns"
        elif mechanism == "GSSAPI":
            look = f"{where}.sasl_kerberos_service_name and the Kerberos credentials"
        elif mechanism == "AWS_MSK_IAM":
            look = "the AWS credentials and region of the process"
        else:
            look = f"{where}.sasl_plain_username and {where}.sasl_plain_password"
        return Diagnosis(
            "authentication", f"{at} refused the credentials ({reason}); check {look}", True
        )
    if "UnsupportedSaslMechanism" in text:
        offered = _after(text, "Enabled mechanisms:")
        return Diagnosis(
            "authentication",
            f"{at} does not offer SASL mechanism {mechanism}"
            + (f" (it offers {offered})" if offered else "")
            + f"; check {where}.sasl_mechanism",
            True,
        )
    if "CERTIFICATE_VERIFY_FAILED" in text:
        found = _VERIFY.search(text)
        reason = found.group("reason").strip().rstrip(".") if found else "verify failed"
        if "mismatch" in reason:
            return Diagnosis(
                "tls",
                f"TLS to {at} failed: {reason}; connect by a name the broker's certificate "
                f"carries (kafka.bootstrap_servers) or set {where}.ssl_check_hostname false",
                True,
            )
        return Diagnosis(
            "tls",
            f"TLS to {at} failed: the broker's certificate is not trusted ({reason}); "
            f"check {where}.ssl_cafile",
            True,
        )
    alert = next((code for code in _REFUSED_CERTIFICATE if code in text), None)
    if alert is not None:
        reason = _ssl_text(text) or alert
        if security.ssl_certfile is None:
            return Diagnosis(
                "tls",
                f"{at} asks for a client certificate ({reason}); set {where}.ssl_certfile "
                f"and {where}.ssl_keyfile",
                True,
            )
        return Diagnosis(
            "tls",
            f"{at} refused the client certificate ({reason}); check that {where}.ssl_certfile "
            "is signed by a CA the broker trusts",
            True,
        )
    protocol = f"{where}.security_protocol {security.security_protocol}"
    if any(code in text for code in _NOT_TLS):
        return Diagnosis(
            "protocol",
            f"the TLS handshake with {at} failed ({_ssl_text(text) or 'no TLS answer'}); "
            f"does the listener at that port speak TLS? check {protocol}",
            False,
        )
    if "socket disconnected" in text:
        return Diagnosis(
            "protocol",
            f"{at} closed the connection while it was set up; does the listener at that port "
            f"speak {security.security_protocol}? check {protocol}",
            False,
        )
    if "ECONNREFUSED" in text or "Connection refused" in text:
        return Diagnosis("connection", "connection refused", False)
    if "gaierror" in text or "Name or service not known" in text or "DNS lookup failed" in text:
        return Diagnosis("connection", "host name not found", False)
    return None


def _ssl_text(text: str) -> str:
    for line in reversed(text.splitlines()):
        found = _SSL_REASON.search(line)
        if found:
            return found.group("text").strip()
    return ""


class KafkaErrorWatch(logging.Handler):
    """Reads kafka-python's warnings and errors while it is attached (a context manager)
    and diagnoses each failed connection attempt of one client.

    The ``kafka`` logger must let WARNING records through while it watches; the lines
    themselves reach the log's handlers only as the verbosity says.
    """

    def __init__(self, settings: Settings, client: KafkaClient = "consumer") -> None:
        super().__init__(level=logging.DEBUG)
        from sidecar.runtime.kafka_clients import setting_prefix

        self._security = settings.kafka.security_for(client)
        self._where = setting_prefix(settings, client)
        self._bootstrap = settings.kafka.bootstrap_servers
        self._lock = threading.Lock()
        self._final: Diagnosis | None = None
        self._last: Diagnosis | None = None
        self.failed = threading.Event()
        """Set once a diagnosis that waiting cannot cure is made."""
        self._awaiting: dict[str, str] = {}
        """Connections (by local port) whose SASL handshake or credentials await the
        broker's answer, and which of the two."""
        self._saved: list[tuple[logging.Logger, int, bool]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a record that cannot be formatted says nothing to diagnose
            return
        if record.levelno < logging.WARNING:
            self._follow_exchange(text)
            return
        found = self._refused_by_closing(text) if "socket disconnected" in text else None
        if found is None:
            found = diagnose(text, self._security, where=self._where, bootstrap=self._bootstrap)
        if found is None:
            return
        self._note(found)

    def _follow_exchange(self, text: str) -> None:
        if "Sasl" not in text:
            return
        connection = _CONNECTION.search(text)
        if connection is None:
            return
        local = connection.group("local")
        with self._lock:
            for step in ("SaslHandshake", "SaslAuthenticate"):
                if f": {step}Request(" in text:
                    self._awaiting[local] = step
                elif f"{step}Response(" in text:
                    self._awaiting.pop(local, None)

    def _refused_by_closing(self, text: str) -> Diagnosis | None:
        connection = _CONNECTION.search(text)
        with self._lock:
            step = (
                None if connection is None else self._awaiting.pop(connection.group("local"), None)
            )
        if step is None:
            return None
        said = (
            "UnsupportedSaslMechanism"
            if step == "SaslHandshake"
            else "SaslAuthenticationFailedError: it closed the connection on them"
        )
        return diagnose(said, self._security, where=self._where, bootstrap=self._bootstrap)

    def _note(self, found: Diagnosis) -> None:
        with self._lock:
            self._last = found
            if found.final and self._final is None:
                self._final = found
                self.failed.set()

    @property
    def final(self) -> Diagnosis | None:
        """The first diagnosis that waiting cannot cure, if any."""
        return self._final

    @property
    def last(self) -> Diagnosis | None:
        """The latest diagnosis of any kind, if any."""
        return self._last

    def explain(self, fallback: str) -> str:
        """One line for clients that could not be built: the final diagnosis, else the
        latest, else ``fallback`` (kafka-python's error class)."""
        found = self._final or self._last
        if found is None:
            return f"cannot use Kafka at {self._bootstrap}: {fallback}"
        if found.kind == "connection":
            return f"cannot reach Kafka at {self._bootstrap} ({found.line})"
        return mask_secrets(found.line)

    def __enter__(self) -> KafkaErrorWatch:
        kafka, exchange = logging.getLogger(_LOGGER), logging.getLogger(_EXCHANGE_LOGGER)
        self._saved = [(logger, logger.level, logger.propagate) for logger in (kafka, exchange)]
        if not logging.getLogger().isEnabledFor(logging.DEBUG):
            # The exchange's DEBUG lines are for this watch only, not for the log.
            kafka.propagate = False
            if not kafka.isEnabledFor(logging.WARNING):
                kafka.setLevel(logging.WARNING)
            exchange.setLevel(logging.DEBUG)
        kafka.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(_LOGGER).removeHandler(self)
        for logger, level, propagate in self._saved:
            logger.setLevel(level)
            logger.propagate = propagate
