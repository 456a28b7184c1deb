"""The Kafka client settings come from one place, are ones kafka-python knows, and each
client can have its own security settings."""

from __future__ import annotations

import warnings

import pytest

# kafka-python 3.0 reads its protocol schemas with importlib.resources.read_text, deprecated
# in Python 3.11 (the same guard as tests/integration/conftest.py).
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka.errors import BrokerNotAvailableError, KafkaConfigurationError, KafkaTimeoutError

from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.runtime.kafka_clients import (
    admin_config,
    check_client_files,
    consumer_config,
    producer_config,
    retriable_startup_error,
    review_consumer_config,
    security_config,
)
from tests.support.kafka_tokens import HEADER

SECURE = {
    "kafka": {
        "bootstrap_servers": "k1:9093,k2:9093",
        "group_id": "g",
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "citewatch",
        "sasl_plain_password": "s3cret",
        "ssl_cafile": "/etc/ca.pem",
        "session_timeout_ms": 30_000,
        "max_request_bytes": 4_194_304,
    },
    "producer": {"linger_ms": 5, "batch_size": 65_536, "compression_type": "gzip"},
}
SECURITY = {
    "security_protocol": "SASL_SSL",
    "sasl_mechanism": "SCRAM-SHA-512",
    "sasl_plain_username": "citewatch",
    "sasl_plain_password": "s3cret",
    "ssl_cafile": "/etc/ca.pem",
}


def test_consumer_commits_explicitly_and_carries_the_security_options() -> None:
    assert consumer_config(Settings.model_validate(SECURE)) == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "group_id": "g",
        "client_id": "citewatch",
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        "session_timeout_ms": 30_000,
        "heartbeat_interval_ms": 10_000,
        "max_partition_fetch_bytes": 4_194_304,
        **SECURITY,
    }


def test_producer_is_durable_and_batches_by_the_producer_section() -> None:
    assert producer_config(Settings.model_validate(SECURE)) == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "acks": "all",
        "linger_ms": 5,
        "batch_size": 65_536,
        "compression_type": "gzip",
        "max_request_size": 4_194_304,
        "client_id": "citewatch",
        **SECURITY,
    }


def test_admin_shares_the_cluster_and_security() -> None:
    assert admin_config(Settings.model_validate(SECURE)) == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "client_id": "citewatch",
        **SECURITY,
    }


def test_plaintext_leaves_unset_security_options_out() -> None:
    config = consumer_config(Settings())
    assert config["security_protocol"] == "PLAINTEXT"
    assert not {key for key in config if key.startswith(("sasl_", "ssl_"))}


@pytest.mark.parametrize(
    ("build", "client"),
    [
        pytest.param(consumer_config, KafkaConsumer, id="consumer"),
        pytest.param(producer_config, KafkaProducer, id="producer"),
        pytest.param(admin_config, KafkaAdminClient, id="admin"),
    ],
)
def test_every_option_is_one_kafka_python_knows(build: object, client: type) -> None:
    config = build(Settings.model_validate(SECURE))  # type: ignore[operator]
    assert set(config) - set(client.DEFAULT_CONFIG) == set()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("error", "retriable"),
    [
        pytest.param(BrokerNotAvailableError(), True, id="broker-unavailable"),
        pytest.param(KafkaTimeoutError(), True, id="timeout"),
        pytest.param(KafkaConfigurationError("bad"), False, id="bad-settings"),
        pytest.param(ValueError("bad"), False, id="not-kafka"),
    ],
)
def test_an_unreachable_broker_is_waited_for_and_bad_settings_are_not(
    error: BaseException, retriable: bool
) -> None:
    assert retriable_startup_error(error) is retriable


def test_the_new_security_options_pass_under_kafka_pythons_names() -> None:
    settings = Settings.model_validate(
        {
            "kafka": {
                "security_protocol": "SSL",
                "ssl_cafile": "/etc/ca.pem",
                "ssl_certfile": "/etc/client.pem",
                "ssl_keyfile": "/etc/client.key",
                "ssl_password": "key-pass",
                "ssl_crlfile": "/etc/crl.pem",
                "ssl_check_hostname": False,
            }
        }
    )
    assert security_config(settings) == {
        "security_protocol": "SSL",
        "ssl_cafile": "/etc/ca.pem",
        "ssl_certfile": "/etc/client.pem",
        "ssl_keyfile": "/etc/client.key",
        "ssl_crlfile": "/etc/crl.pem",
        "ssl_password": "key-pass",
        "ssl_check_hostname": False,
    }


def test_gssapi_passes_the_kerberos_names() -> None:
    settings = Settings.model_validate(
        {
            "kafka": {
                "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": "GSSAPI",
                "sasl_kerberos_service_name": "kafka-prod",
                "sasl_kerberos_domain_name": "kafka.example.internal",
            }
        }
    )
    assert security_config(settings) == {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "GSSAPI",
        "sasl_kerberos_service_name": "kafka-prod",
        "sasl_kerberos_domain_name": "kafka.example.internal",
    }


def test_a_client_override_changes_only_what_it_gives() -> None:
    settings = Settings.model_validate(
        {
            **SECURE,
            "kafka": {
                **SECURE["kafka"],
                "client_overrides": {
                    "review": {
                        "sasl_plain_username": "reviewer",
                        "sasl_plain_password": "review-pw",
                    }
                },
            },
        }
    )
    assert security_config(settings, "consumer") == SECURITY
    assert security_config(settings, "producer") == SECURITY
    assert review_consumer_config(settings, "citewatch-review") == {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "group_id": "citewatch-review",
        "client_id": "citewatch-review",
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        **SECURITY,
        "sasl_plain_username": "reviewer",
        "sasl_plain_password": "review-pw",
    }


def test_oauthbearer_gets_its_token_provider_made() -> None:
    settings = Settings.model_validate(
        {
            "kafka": {
                "security_protocol": "SASL_SSL",
                "sasl_mechanism": "OAUTHBEARER",
                "sasl_oauth_token_provider": "tests.support.kafka_tokens:unsecured_jwt",
                "sasl_oauth_token_provider_options": {"subject": "citewatch"},
            }
        }
    )
    provider = security_config(settings)["sasl_oauth_token_provider"]
    assert provider.token().startswith(HEADER + ".")
    config = consumer_config(settings)
    assert set(config) - set(KafkaConsumer.DEFAULT_CONFIG) == set()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("kafka", "line"),
    [
        pytest.param(
            {"security_protocol": "SASL_SSL"},
            "kafka.security_protocol SASL_SSL needs kafka.sasl_mechanism",
            id="no-mechanism",
        ),
        pytest.param(
            {"sasl_mechanism": "PLAIN"},
            "kafka.sasl_mechanism PLAIN needs kafka.security_protocol SASL_SSL (or SASL_PLAINTEXT)",
            id="mechanism-without-sasl",
        ),
        pytest.param(
            {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512"},
            "kafka.sasl_mechanism SCRAM-SHA-512 needs kafka.sasl_plain_username and "
            "kafka.sasl_plain_password",
            id="no-credentials",
        ),
        pytest.param(
            {"security_protocol": "SASL_SSL", "sasl_mechanism": "OAUTHBEARER"},
            "kafka.sasl_mechanism OAUTHBEARER needs kafka.sasl_oauth_token_provider",
            id="no-token-provider",
        ),
        pytest.param(
            {"security_protocol": "SSL", "ssl_certfile": "/etc/c.pem"},
            "kafka.ssl_certfile and kafka.ssl_keyfile go together",
            id="certificate-without-key",
        ),
        pytest.param(
            {
                "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": "PLAIN",
                "sasl_plain_username": "citewatch",
                "sasl_plain_password": "pw",
                "client_overrides": {"review": {"sasl_mechanism": "OAUTHBEARER"}},
            },
            "kafka.client_overrides.review.sasl_mechanism OAUTHBEARER needs "
            "kafka.client_overrides.review.sasl_oauth_token_provider",
            id="override",
        ),
    ],
)
def test_settings_that_cannot_connect_stop_before_connecting(
    kafka: dict[str, object], line: str
) -> None:
    settings = Settings.model_validate({"kafka": kafka})
    with pytest.raises(ConfigError) as caught:
        check_client_files(settings, ("consumer", "producer", "review"))
    assert str(caught.value) == line
