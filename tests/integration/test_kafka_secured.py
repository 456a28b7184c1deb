"""`citewatch run` against secured listeners of a real broker, with the settings of
docs/operations.md (Secured Kafka): every record delivered, no secret in the log at -vv, and
each kind of mistake its own line and exit 2 before the start-up wait is over."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.kafka import (
    ROOT,
    Sidecar,
    Topics,
    kafka_local,
    new_topics,
    offsets,
    produce,
    read_topic,
    run_topics,
    trace_bytes,
    wait_until,
)
from tests.support.kafka_tokens import HEADER

pytestmark = pytest.mark.integration

TRACES = 12
BAD = [b"{not json", b'{"schema_version": "1"}']
TOKEN_PROVIDER = "tests.support.kafka_tokens:unsecured_jwt"
REFUSED = (
    r"Error: Kafka at 127\.0\.0\.1:\d+ refused the credentials \("
    r"(Authentication failed [^)]*SCRAM-SHA-512|it closed the connection on them)\); "
    r"check kafka\.sasl_plain_username and kafka\.sasl_plain_password"
)
"""A wrong password: the broker's words, or (when kafka-python reads the broker's close
before its answer) what the SASL exchange showed."""

_TLS = kafka_local().secured_module()
make_ca, make_certificate = _TLS.make_ca, _TLS.make_certificate


def doc_settings(heading: str, *, nth: int = 0) -> dict[str, Any]:
    """The ``nth`` YAML block with a ``kafka:`` section after ``### heading`` in
    docs/operations.md, as the settings it is."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    start = text.index(f"\n### {heading}\n")
    end = text.find("\n### ", start + 1)
    blocks = re.findall(r"```yaml\n(.*?)```", text[start : end if end > 0 else None], re.S)
    found = [yaml.safe_load(block) for block in blocks]
    settings: dict[str, Any] = [b for b in found if isinstance(b, dict) and "kafka" in b][nth]
    return settings


def _with_files(settings: dict[str, Any], files: dict[str, str]) -> dict[str, Any]:
    """The settings with each /etc/... file the docs name replaced by the test's file of
    the same name."""
    kafka = dict(settings["kafka"])
    for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
        if name in kafka:
            kafka[name] = files[Path(kafka[name]).name]
    return {**settings, "kafka": kafka}


def _files(broker: Any) -> dict[str, str]:
    found = broker.credentials()
    return {
        "ca.pem": found["ca"],
        "client.pem": found["client_cert"],
        "client.key": found["client_key"],
    }


def _config(tmp_path: Path, settings: dict[str, Any]) -> str:
    path = tmp_path / "citewatch.yaml"
    path.write_text(yaml.safe_dump(settings))
    return str(path)


def _sidecar(
    broker: Any,
    listener: str,
    topics: Topics,
    config: str,
    log: Path,
    env: dict[str, str] | None = None,
    *,
    bootstrap: str | None = None,
    verbosity: int = 2,
) -> Sidecar:
    return Sidecar(
        bootstrap or broker.listener(listener),
        topic=topics.source,
        group=topics.group,
        evaluations=topics.evaluations,
        dead_letters=topics.dead_letters,
        extra=["--config", config],
        env={"CITEWATCH_KAFKA_STARTUP_WAIT_SECONDS": "300", **(env or {})},
        log=log,
        verbosity=verbosity,
    )


def _delivers_everything(
    broker: Any, listener: str, config: str, log: Path, env: dict[str, str]
) -> str:
    """Run citewatch on ``listener`` until every trace is evaluated and every bad record
    is a dead letter with lag 0, stop it with SIGTERM; returns its log."""
    plain = broker.bootstrap
    topics = run_topics(plain, partitions=2)
    produce(plain, topics.source, [*(trace_bytes(i, topics.source) for i in range(TRACES)), *BAD])
    sidecar = _sidecar(broker, listener, topics, config, log, env)
    try:
        wait_until(
            lambda: _caught_up(plain, topics),
            timeout=240,
            what="every record committed",
        )
        sidecar.signal(signal.SIGTERM)
        code = sidecar.wait(60)
    finally:
        sidecar.stop()
    text = log.read_text(errors="replace")
    assert code == 0, text[-3000:]
    assert len(read_topic(plain, topics.evaluations)) == TRACES
    assert sorted(r.value for r in read_topic(plain, topics.dead_letters)) == sorted(BAD)
    # kafka-python's -vv lines carry fetched and produced records: written without them.
    assert "Can I get a refund" not in text
    assert "Refunds are available" not in text
    assert "not json" not in text
    return text


def _caught_up(bootstrap: str, topics: Topics) -> bool:
    committed, ends = offsets(bootstrap, topics.source, topics.group)
    # A partition the producer left empty has no committed offset.
    return (
        sum(ends.values()) == TRACES + len(BAD)
        and bool(committed)
        and all(committed.get(partition, 0) == end for partition, end in ends.items())
    )


def _masked(text: str, secret: str) -> None:
    """No spelling of ``secret`` in ``text``."""
    assert secret not in text
    assert repr(secret.encode())[2:-1] not in text


def test_scram_over_tls_delivers_every_record_without_the_password_in_the_log(
    secured_broker: Any, tmp_path: Path
) -> None:
    found = secured_broker.credentials()
    settings = _with_files(doc_settings("SCRAM-SHA-512 over TLS"), _files(secured_broker))
    env = {
        "CITEWATCH_KAFKA_SASL_PLAIN_USERNAME": found["user"],
        "CITEWATCH_KAFKA_SASL_PLAIN_PASSWORD": found["password"],
    }
    text = _delivers_everything(
        secured_broker, "SASL_SSL", _config(tmp_path, settings), tmp_path / "run.log", env
    )
    assert " DEBUG kafka." in text  # -vv: kafka-python's own lines are there, masked
    _masked(text, found["password"])


def test_sasl_plain_over_tls_keeps_the_password_it_sends_out_of_the_log(
    secured_broker: Any, tmp_path: Path
) -> None:
    found = secured_broker.credentials()
    settings = doc_settings("SASL PLAIN over TLS (Confluent Cloud, Azure Event Hubs)")
    # A public CA signs the cloud's brokers; the local broker's is the test's own.
    settings["kafka"]["ssl_cafile"] = found["ca"]
    env = {
        "CITEWATCH_KAFKA_SASL_PLAIN_USERNAME": found["user"],
        "CITEWATCH_KAFKA_SASL_PLAIN_PASSWORD": found["password"],
    }
    text = _delivers_everything(
        secured_broker, "SASL_SSL", _config(tmp_path, settings), tmp_path / "run.log", env
    )
    # The request that carries the credentials in clear is logged, as its type only.
    assert "Request 3: <SaslAuthenticateRequest>" in text
    _masked(text, found["password"])


def test_mtls_with_an_encrypted_key_delivers_every_record(
    secured_broker: Any, tmp_path: Path
) -> None:
    found = secured_broker.credentials()
    password = "key-pass-" + tmp_path.name[-6:]
    cert, key = make_certificate(
        tmp_path / "tls", "client", ca=Path(found["ca"]), password=password
    )
    files = {"ca.pem": found["ca"], "client.pem": str(cert), "client.key": str(key)}
    settings = _with_files(doc_settings("mTLS (TLS client certificates)"), files)
    text = _delivers_everything(
        secured_broker,
        "MTLS",
        _config(tmp_path, settings),
        tmp_path / "run.log",
        {"CITEWATCH_KAFKA_SSL_PASSWORD": password},
    )
    assert password not in text


def test_oauthbearer_with_a_token_provider_from_the_settings_delivers_every_record(
    secured_broker: Any, tmp_path: Path
) -> None:
    settings = _with_files(
        doc_settings("OAUTHBEARER (AWS MSK IAM, Azure Event Hubs, your own tokens)", nth=1),
        _files(secured_broker),
    )
    kafka = settings["kafka"]
    kafka["ssl_cafile"] = secured_broker.credentials()["ca"]
    kafka["sasl_oauth_token_provider"] = TOKEN_PROVIDER
    kafka["sasl_oauth_token_provider_options"] = {"subject": "citewatch"}
    text = _delivers_everything(
        secured_broker, "OAUTH", _config(tmp_path, settings), tmp_path / "run.log", {}
    )
    assert "Authenticated via SASL / OAuth" in text
    assert HEADER not in text  # no token, whole or in part


def _fails(
    broker: Any,
    tmp_path: Path,
    settings: dict[str, Any],
    listener: str,
    env: dict[str, str] | None = None,
    *,
    bootstrap: str | None = None,
) -> tuple[str, str]:
    """Run citewatch with settings that cannot work; returns its one Error line and its
    log, once it exited 2 (well within its 300 s start-up wait)."""
    topics = Topics("traces-unused", "evals-unused", "dlt-unused", "group-unused")
    log = tmp_path / "run.log"
    sidecar = _sidecar(
        broker, listener, topics, _config(tmp_path, settings), log, env, bootstrap=bootstrap
    )
    try:
        code = sidecar.wait(120)
    finally:
        sidecar.stop()
    text = log.read_text(errors="replace")
    errors = [line for line in text.splitlines() if line.startswith("Error:")]
    assert (code, len(errors)) == (2, 1), text[-3000:]
    return errors[0], text


def _scram(broker: Any) -> dict[str, Any]:
    return _with_files(doc_settings("SCRAM-SHA-512 over TLS"), _files(broker))


def _scram_env(broker: Any, password: str | None = None) -> dict[str, str]:
    found = broker.credentials()
    return {
        "CITEWATCH_KAFKA_SASL_PLAIN_USERNAME": found["user"],
        "CITEWATCH_KAFKA_SASL_PLAIN_PASSWORD": password or found["password"],
    }


def test_a_wrong_password_is_refused_credentials(secured_broker: Any, tmp_path: Path) -> None:
    wrong = "not-the-password-" + tmp_path.name[-6:]
    line, text = _fails(
        secured_broker,
        tmp_path,
        _scram(secured_broker),
        "SASL_SSL",
        _scram_env(secured_broker, wrong),
    )
    assert re.fullmatch(REFUSED, line), line
    assert wrong not in text


def test_a_ca_that_did_not_sign_the_broker_is_an_untrusted_certificate(
    secured_broker: Any, tmp_path: Path
) -> None:
    settings = _scram(secured_broker)
    settings["kafka"]["ssl_cafile"] = str(make_ca(tmp_path / "other", "other-ca"))
    line, _ = _fails(secured_broker, tmp_path, settings, "SASL_SSL", _scram_env(secured_broker))
    assert re.fullmatch(
        r"Error: TLS to Kafka at 127\.0\.0\.1:\d+ failed: the broker's certificate is not "
        r"trusted \(unable to get local issuer certificate\); check kafka\.ssl_cafile",
        line,
    ), line


def test_a_host_name_the_certificate_does_not_carry_is_a_mismatch(
    secured_broker: Any, tmp_path: Path
) -> None:
    port = secured_broker.listener("SASL_SSL").rpartition(":")[2]
    line, _ = _fails(
        secured_broker,
        tmp_path,
        _scram(secured_broker),
        "SASL_SSL",
        _scram_env(secured_broker),
        bootstrap=f"localhost:{port}",
    )
    assert re.fullmatch(
        rf"Error: TLS to Kafka at localhost:{port} failed: Hostname mismatch, certificate is "
        r"not valid for 'localhost'; connect by a name the broker's certificate carries "
        r"\(kafka\.bootstrap_servers\) or set kafka\.ssl_check_hostname false",
        line,
    ), line


def test_a_client_certificate_from_another_ca_is_refused(
    secured_broker: Any, tmp_path: Path
) -> None:
    other = make_ca(tmp_path / "other", "other-ca")
    cert, key = make_certificate(tmp_path / "other", "client", ca=other)
    files = {**_files(secured_broker), "client.pem": str(cert), "client.key": str(key)}
    settings = _with_files(doc_settings("mTLS (TLS client certificates)"), files)
    line, _ = _fails(secured_broker, tmp_path, settings, "MTLS")
    assert re.fullmatch(
        r"Error: Kafka at 127\.0\.0\.1:\d+ refused the client certificate \([^)]+\); check "
        r"that kafka\.ssl_certfile is signed by a CA the broker trusts",
        line,
    ), line


def test_a_key_that_is_not_the_certificates_stops_before_connecting(
    secured_broker: Any, tmp_path: Path
) -> None:
    _, other_key = make_certificate(
        tmp_path / "other", "stray", ca=Path(secured_broker.credentials()["ca"])
    )
    files = {**_files(secured_broker), "client.key": str(other_key)}
    settings = _with_files(doc_settings("mTLS (TLS client certificates)"), files)
    line, text = _fails(secured_broker, tmp_path, settings, "MTLS")
    assert line == (
        f"Error: kafka.ssl_keyfile: {other_key} is not the key of kafka.ssl_certfile "
        f"{files['client.pem']}"
    )
    assert "connecting to Kafka" not in text


def test_a_missing_ca_file_stops_before_connecting(secured_broker: Any, tmp_path: Path) -> None:
    settings = _scram(secured_broker)
    missing = tmp_path / "no-such-ca.pem"
    settings["kafka"]["ssl_cafile"] = str(missing)
    line, text = _fails(secured_broker, tmp_path, settings, "SASL_SSL", _scram_env(secured_broker))
    assert line == f"Error: kafka.ssl_cafile: {missing} does not exist"
    assert "connecting to Kafka" not in text


def test_a_mechanism_the_listener_does_not_offer_is_named(
    secured_broker: Any, tmp_path: Path
) -> None:
    settings = _with_files(
        doc_settings("OAUTHBEARER (AWS MSK IAM, Azure Event Hubs, your own tokens)", nth=1),
        _files(secured_broker),
    )
    settings["kafka"].update(
        ssl_cafile=secured_broker.credentials()["ca"],
        sasl_oauth_token_provider=TOKEN_PROVIDER,
        sasl_oauth_token_provider_options={"subject": "citewatch"},
    )
    line, _ = _fails(secured_broker, tmp_path, settings, "SASL_SSL")
    assert re.fullmatch(
        r"Error: Kafka at 127\.0\.0\.1:\d+ does not offer SASL mechanism OAUTHBEARER"
        r"( \(it offers [^)]*\))?; check kafka\.sasl_mechanism",
        line,
    ), line


def test_the_docs_give_every_secured_setup_its_settings() -> None:
    shapes = {
        "SCRAM-SHA-512 over TLS": ("SASL_SSL", "SCRAM-SHA-512"),
        "mTLS (TLS client certificates)": ("SSL", None),
        "SASL PLAIN over TLS (Confluent Cloud, Azure Event Hubs)": ("SASL_SSL", "PLAIN"),
        "OAUTHBEARER (AWS MSK IAM, Azure Event Hubs, your own tokens)": ("SASL_SSL", "OAUTHBEARER"),
    }
    found = {
        heading: (
            doc_settings(heading)["kafka"]["security_protocol"],
            doc_settings(heading)["kafka"].get("sasl_mechanism"),
        )
        for heading in shapes
    }
    assert found == shapes
    assert json.dumps(doc_settings("One client on a principal of its own")) == json.dumps(
        {"kafka": {"client_overrides": {"review": {"sasl_plain_username": "citewatch-review"}}}}
    )


def _review_consume(
    broker: Any, tmp_path: Path, settings: dict[str, Any], topic: str, group: str
) -> Any:
    """`citewatch review consume -vv` on the SASL_SSL listener, its stderr in consume.log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
    log = open(tmp_path / "consume.log", "wb")  # noqa: SIM115 - kept by the child
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from sidecar.cli import main; sys.exit(main())",
            "-vv",
            "review",
            "consume",
            "--config",
            _config(tmp_path, settings),
            "--bootstrap-servers",
            broker.listener("SASL_SSL"),
            "--topic",
            topic,
            "--group",
            group,
            "--store",
            str(tmp_path / "review.sqlite"),
        ],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    log.close()
    return process


def test_the_review_consumer_connects_on_a_principal_of_its_own(
    secured_broker: Any, tmp_path: Path
) -> None:
    found = secured_broker.credentials()
    [topic] = new_topics(secured_broker.bootstrap, "review", partitions=1)
    produce(secured_broker.bootstrap, topic, [b"not a review item"])
    # The other clients' user is refused; the review consumer's own is not.
    settings = _scram(secured_broker)
    settings["kafka"].update(sasl_plain_username="nobody", sasl_plain_password="nobody-pw")
    settings["kafka"]["client_overrides"] = {
        "review": {"sasl_plain_username": found["user"], "sasl_plain_password": found["password"]}
    }
    group = "review-" + tmp_path.name[-6:]
    process = _review_consume(secured_broker, tmp_path, settings, topic, group)
    log = tmp_path / "consume.log"
    try:
        wait_until(
            lambda: offsets(secured_broker.bootstrap, topic, group)[0] == {0: 1},
            timeout=120,
            what="the record read and committed",
        )
        process.send_signal(signal.SIGTERM)
        code = process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    text = log.read_text(errors="replace")
    assert code == 0, text[-3000:]
    assert "1 records, 0 stored, 0 already there, 0 over the day's caps, 1 not review items" in text
    assert found["password"] not in text


def test_the_review_consumer_without_its_own_principal_is_refused(
    secured_broker: Any, tmp_path: Path
) -> None:
    settings = _scram(secured_broker)
    settings["kafka"].update(sasl_plain_username="nobody", sasl_plain_password="nobody-pw")
    process = _review_consume(secured_broker, tmp_path, settings, "review-unused", "unused")
    try:
        code = process.wait(120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    text = (tmp_path / "consume.log").read_text(errors="replace")
    errors = [line for line in text.splitlines() if line.startswith("Error:")]
    assert code == 2, text[-3000:]
    assert len(errors) == 1 and re.fullmatch(REFUSED, errors[0]), errors
    assert "nobody-pw" not in text
