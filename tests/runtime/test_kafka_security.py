"""Files named by the TLS settings are read before connecting, each mistake one line naming
its setting; an OAUTHBEARER token provider is a configured import path whose tokens are
masked in the log."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:  # kafka-python 3
        from kafka.net.sasl.oauth import AbstractTokenProvider
    except ImportError:  # kafka-python 2
        from kafka.sasl.oauth import AbstractTokenProvider  # type: ignore[no-redef]

from sidecar._userinfo import forget_secrets, mask_secrets
from sidecar.config.kafka import KafkaSecurity
from sidecar.errors import ConfigError
from sidecar.runtime.kafka_security import check_files, token_provider
from tests.support.kafka import kafka_local

TLS = kafka_local().secured_module()


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tls")
    ca = TLS.make_ca(folder, "ca")
    cert, key = TLS.make_certificate(folder, "client", ca=ca)
    _, other_key = TLS.make_certificate(folder, "other", ca=ca)
    locked_cert, locked_key = TLS.make_certificate(folder, "locked", ca=ca, password="open-sesame")
    return {
        "ca": ca,
        "cert": cert,
        "key": key,
        "other_key": other_key,
        "locked_cert": locked_cert,
        "locked_key": locked_key,
        "folder": folder,
    }


def _mtls(tls: dict[str, Path], **changes: Any) -> KafkaSecurity:
    values: dict[str, Any] = {
        "security_protocol": "SSL",
        "ssl_cafile": str(tls["ca"]),
        "ssl_certfile": str(tls["cert"]),
        "ssl_keyfile": str(tls["key"]),
        **changes,
    }
    return KafkaSecurity.model_validate(values)


def test_files_that_load_pass(tls: dict[str, Path]) -> None:
    check_files(_mtls(tls))
    check_files(
        _mtls(
            tls,
            ssl_certfile=str(tls["locked_cert"]),
            ssl_keyfile=str(tls["locked_key"]),
            ssl_password="open-sesame",
        )
    )


def test_a_client_without_tls_reads_no_file() -> None:
    check_files(KafkaSecurity(ssl_cafile="/no/such/ca.pem"))


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        pytest.param(
            {"ssl_cafile": "{folder}/missing.pem"},
            "kafka.ssl_cafile: {folder}/missing.pem does not exist",
            id="missing-ca",
        ),
        pytest.param(
            {"ssl_certfile": "{folder}"},
            "kafka.ssl_certfile: {folder} is not a file",
            id="folder-as-certificate",
        ),
        pytest.param(
            {"ssl_cafile": "{key}"},
            "kafka.ssl_cafile: {key} holds no PEM certificate (NO_CERTIFICATE_OR_CRL_FOUND)",
            id="ca-is-a-key",
        ),
        pytest.param(
            {"ssl_keyfile": "{other_key}"},
            "kafka.ssl_keyfile: {other_key} is not the key of kafka.ssl_certfile {cert}",
            id="key-of-another-certificate",
        ),
        pytest.param(
            {"ssl_certfile": "{locked_cert}", "ssl_keyfile": "{locked_key}"},
            "kafka.ssl_keyfile: {locked_key} is encrypted; set kafka.ssl_password",
            id="encrypted-key-without-password",
        ),
        pytest.param(
            {
                "ssl_certfile": "{locked_cert}",
                "ssl_keyfile": "{locked_key}",
                "ssl_password": "wrong",
            },
            "kafka.ssl_password does not decrypt kafka.ssl_keyfile {locked_key}",
            id="wrong-password",
        ),
    ],
)
def test_each_file_mistake_names_its_setting(
    tls: dict[str, Path], changes: dict[str, str], line: str
) -> None:
    names = {name: str(path) for name, path in tls.items()}
    filled = {name: value.format(**names) for name, value in changes.items()}
    with pytest.raises(ConfigError) as caught:
        check_files(_mtls(tls, **filled), "kafka")
    assert str(caught.value) == line.format(**names)


def test_an_override_is_named_by_its_prefix(tls: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match=r"^kafka\.client_overrides\.review\.ssl_cafile: "):
        check_files(_mtls(tls, ssl_cafile="/no/such.pem"), "kafka.client_overrides.review")


# -- token providers ----------------------------------------------------------------------

CALLS: list[dict[str, str]] = []


def expiring_token(subject: str) -> tuple[str, int]:
    CALLS.append({"subject": subject})
    return f"token-of-{subject}-{len(CALLS)}", 4_102_444_800_000  # 2100-01-01


def plain_token() -> str:
    CALLS.append({})
    return f"plain-token-{len(CALLS)}"


class Provider(AbstractTokenProvider):  # type: ignore[misc]
    def __init__(self, audience: str) -> None:
        self.audience = audience

    def token(self) -> str:
        return f"class-token-for-{self.audience}"

    def extensions(self) -> dict[str, str]:
        return {"logicalCluster": "lkc-1"}


INSTANCE = Provider("made-already")
NOT_CALLABLE = 42


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    CALLS.clear()
    forget_secrets()
    yield
    forget_secrets()


def _oauth(path: str, **options: str) -> KafkaSecurity:
    return KafkaSecurity(
        security_protocol="SASL_SSL",
        sasl_mechanism="OAUTHBEARER",
        sasl_oauth_token_provider=path,
        sasl_oauth_token_provider_options=options,
    )


HERE = __name__


def test_a_function_returning_a_token_and_expiry_is_called_once_until_it_expires() -> None:
    provider = token_provider(_oauth(f"{HERE}:expiring_token", subject="citewatch"))
    assert isinstance(provider, AbstractTokenProvider)
    assert [provider.token(), provider.token()] == ["token-of-citewatch-1"] * 2
    assert CALLS == [{"subject": "citewatch"}]
    assert mask_secrets("Bearer token-of-citewatch-1") == "Bearer ***"


def test_a_function_returning_a_bare_token_is_called_each_time() -> None:
    provider = token_provider(_oauth(f"{HERE}:plain_token"))
    assert [provider.token(), provider.token()] == ["plain-token-1", "plain-token-2"]


def test_a_provider_class_is_made_with_the_options_and_keeps_its_extensions() -> None:
    provider = token_provider(_oauth(f"{HERE}:Provider", audience="kafka"))
    assert (provider.token(), provider.extensions()) == (
        "class-token-for-kafka",
        {"logicalCluster": "lkc-1"},
    )


def test_a_provider_instance_is_used_as_it_is() -> None:
    assert token_provider(_oauth(f"{HERE}:INSTANCE")).token() == "class-token-for-made-already"


@pytest.mark.parametrize(
    ("path", "options", "line"),
    [
        pytest.param(
            "no_such_module_here:token",
            {},
            "kafka.sasl_oauth_token_provider: cannot import no_such_module_here "
            "(No module named 'no_such_module_here')",
            id="no-module",
        ),
        pytest.param(
            f"{HERE}:missing",
            {},
            f"kafka.sasl_oauth_token_provider: {HERE} has no missing",
            id="no-attribute",
        ),
        pytest.param(
            f"{HERE}:NOT_CALLABLE",
            {},
            f"kafka.sasl_oauth_token_provider: {HERE}:NOT_CALLABLE is neither a token "
            "provider nor callable",
            id="not-callable",
        ),
        pytest.param(
            f"{HERE}:INSTANCE",
            {"audience": "x"},
            f"kafka.sasl_oauth_token_provider_options: {HERE}:INSTANCE is a provider already "
            "made; options apply to a class or a function",
            id="options-for-an-instance",
        ),
        pytest.param(
            f"{HERE}:Provider",
            {"nope": "x"},
            f"kafka.sasl_oauth_token_provider: {HERE}:Provider could not be made "
            "(Provider.__init__() got an unexpected keyword argument 'nope')",
            id="wrong-options",
        ),
    ],
)
def test_a_provider_that_cannot_be_had_names_the_setting(
    path: str, options: dict[str, str], line: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        token_provider(_oauth(path, **options))
    assert str(caught.value) == line


def test_the_import_path_is_checked_with_the_settings() -> None:
    with pytest.raises(ValueError, match="is not an import path module:callable"):
        _oauth("just_a_module")
