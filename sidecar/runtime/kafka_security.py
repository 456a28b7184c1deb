"""What a secured Kafka client needs before it connects: its files checked, its OAUTHBEARER
token provider loaded.

Files named by the settings are read before any connection, so a missing CA bundle, an
unreadable key or a key that does not match its certificate stops start-up at once with the
setting's name (kafka-python would retry them as an unreachable broker until its timeout).
The TLS context is built as kafka-python builds it, so what passes here loads there too.

``sasl_oauth_token_provider`` is an import path ``module:callable``: a kafka-python
``AbstractTokenProvider`` class (made with the configured options) or instance, or any
callable (called with the options) returning a token or a ``(token, expiry_ms)`` pair, as
``aws_msk_iam_sasl_signer.MSKAuthTokenProvider.generate_auth_token`` does. Every token it
hands out is masked in the log lines from then on.
"""

from __future__ import annotations

import importlib
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sidecar._userinfo import remember_secret
from sidecar.config.kafka import KafkaSecurity
from sidecar.errors import ConfigError

__all__ = ["check_files", "token_provider", "uses_tls"]

_FILES = ("ssl_cafile", "ssl_certfile", "ssl_keyfile", "ssl_crlfile")
_EARLY_SECONDS = 60.0
"""A token whose expiry is known is replaced this long before it expires."""


def uses_tls(security: KafkaSecurity) -> bool:
    """Whether the client speaks TLS to the brokers."""
    return security.security_protocol in ("SSL", "SASL_SSL")


def check_files(security: KafkaSecurity, where: str = "kafka") -> None:
    """Raise :class:`ConfigError`, naming the setting under ``where``, for a file that is
    missing or unreadable, a CA bundle with no certificate, a certificate or key that is
    not PEM, a key that does not match its certificate or an encrypted key without its
    ``ssl_password``. Files of a client that does not speak TLS are not read."""
    if not uses_tls(security):
        return
    for name in _FILES:
        path = getattr(security, name)
        if path is not None:
            _readable(Path(path), f"{where}.{name}")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if security.ssl_cafile is not None:
        try:
            context.load_verify_locations(security.ssl_cafile)
        except ssl.SSLError as exc:
            raise ConfigError(
                f"{where}.ssl_cafile: {security.ssl_cafile} holds no PEM certificate "
                f"({_reason(exc)})"
            ) from None
    if security.ssl_certfile is not None:
        password = security.ssl_password
        try:
            # A callable, never None: OpenSSL would ask for an encrypted key's pass phrase
            # on the terminal.
            context.load_cert_chain(
                security.ssl_certfile,
                security.ssl_keyfile,
                password=lambda: password.get_secret_value() if password is not None else "",
            )
        except ssl.SSLError as exc:
            raise ConfigError(_key_problem(security, exc, where)) from None


def _readable(path: Path, setting: str) -> None:
    if not path.exists():
        raise ConfigError(f"{setting}: {path} does not exist")
    if not path.is_file():
        raise ConfigError(f"{setting}: {path} is not a file")
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise ConfigError(f"{setting}: cannot read {path} ({exc.strerror})") from None


def _reason(exc: ssl.SSLError) -> str:
    return str(exc.reason or exc.strerror or type(exc).__name__)


def _key_problem(security: KafkaSecurity, exc: ssl.SSLError, where: str) -> str:
    reason = _reason(exc)
    if reason == "KEY_VALUES_MISMATCH":
        return (
            f"{where}.ssl_keyfile: {security.ssl_keyfile} is not the key of "
            f"{where}.ssl_certfile {security.ssl_certfile}"
        )
    if reason in ("BAD_DECRYPT", "BAD_PASSWORD_READ", "INTERRUPTED_OR_CANCELLED") or _encrypted(
        security.ssl_keyfile or security.ssl_certfile
    ):
        if security.ssl_password is None:
            return (
                f"{where}.ssl_keyfile: {security.ssl_keyfile} is encrypted; "
                f"set {where}.ssl_password"
            )
        return f"{where}.ssl_password does not decrypt {where}.ssl_keyfile {security.ssl_keyfile}"
    return (
        f"{where}.ssl_certfile / {where}.ssl_keyfile: cannot load {security.ssl_certfile} "
        f"with its key ({reason}); both must be PEM"
    )


def _encrypted(path: str | None) -> bool:
    """Whether the PEM key at ``path`` is encrypted (OpenSSL 3 reports a failed decryption
    only as a PEM error)."""
    if path is None:
        return False
    try:
        text = Path(path).read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return "ENCRYPTED PRIVATE KEY" in text or "Proc-Type: 4,ENCRYPTED" in text


def token_provider(security: KafkaSecurity, where: str = "kafka") -> Any:
    """The kafka-python token provider ``security.sasl_oauth_token_provider`` names,
    masking every token it returns; raises :class:`ConfigError` naming the setting when
    the path does not import or is not a provider."""
    from kafka.errors import KafkaConfigurationError

    setting = f"{where}.sasl_oauth_token_provider"
    path = security.sasl_oauth_token_provider
    if path is None:
        raise ConfigError(f"{setting} is not set")
    options = dict(security.sasl_oauth_token_provider_options)
    target = _imported(path, setting)
    base = _abstract_provider()
    try:
        if isinstance(target, base):
            if options:
                raise ConfigError(
                    f"{where}.sasl_oauth_token_provider_options: {path} is a provider "
                    "already made; options apply to a class or a function"
                )
            inner: Any = target
        elif isinstance(target, type) and issubclass(target, base):
            inner = target(**options)
        elif callable(target):
            inner = _CalledTokens(target, options)
        else:
            raise ConfigError(f"{setting}: {path} is neither a token provider nor callable")
    except (TypeError, ValueError, KafkaConfigurationError) as exc:
        raise ConfigError(f"{setting}: {path} could not be made ({exc})") from None
    return _masking_provider(inner)


def _imported(path: str, setting: str) -> Any:
    module_name, _, attribute = path.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{setting}: cannot import {module_name} ({exc})") from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ConfigError(f"{setting}: {module_name} has no {attribute}") from None
    return target


def _abstract_provider() -> type:
    try:  # kafka-python 3
        from kafka.net.sasl.oauth import AbstractTokenProvider
    except ImportError:  # kafka-python 2
        from kafka.sasl.oauth import AbstractTokenProvider
    found: type = AbstractTokenProvider
    return found


class _CalledTokens:
    """Tokens from a callable, kept until shortly before the expiry it reports."""

    def __init__(
        self,
        call: Callable[..., Any],
        options: Mapping[str, str],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._call = call
        self._options = dict(options)
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._until = 0.0

    def token(self) -> str:
        with self._lock:
            if self._token is not None and self._clock() < self._until:
                return self._token
            value = self._call(**self._options)
            expiry_ms: float | None = None
            if isinstance(value, tuple):
                value, expiry_ms = value[0], value[1]
            if not isinstance(value, str) or not value:
                raise ValueError("the token provider returned no token")
            self._token = value
            self._until = 0.0 if expiry_ms is None else float(expiry_ms) / 1000.0 - _EARLY_SECONDS
            return value

    def extensions(self) -> dict[str, str]:
        return {}


def _masking_provider(inner: Any) -> Any:
    """``inner`` as a kafka-python AbstractTokenProvider whose tokens are masked in logs."""
    base: Any = _abstract_provider()

    class MaskedTokens(base):  # type: ignore[misc]
        def token(self) -> str:
            value = inner.token()
            remember_secret(value if isinstance(value, str) else None)
            return str(value)

        def extensions(self) -> dict[str, str]:
            found: dict[str, str] = inner.extensions()
            return found

    return MaskedTokens()
